/** What clients are shown of a tool, and how a pipeline result becomes an MCP result. */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { annotationsOf, inputSchemaOf, toMcpResult } from "../../src/http/mod.ts";
import { fail, ok, withFacts } from "../../src/result.ts";

describe("inputSchemaOf", () => {
  test("an object schema converts as is, from the input side (defaults shown, not required)", () => {
    const schema = inputSchemaOf({ schema: v.strictObject({ path: v.string(), limit: v.optional(v.number(), 100) }) });
    expect(schema).toMatchObject({
      type: "object",
      properties: { path: { type: "string" }, limit: { type: "number", default: 100 } },
      required: ["path"],
      additionalProperties: false,
    });
  });

  test("a union of object forms gets the top-level type MCP requires", () => {
    const schema = inputSchemaOf({ schema: v.union([v.object({ a: v.string() }), v.object({ b: v.number() })]) });
    expect(schema.type).toBe("object");
    expect((schema.anyOf as unknown[]).length).toBe(2);
  });

  test("a custom check does not stop start-up (the pipeline still enforces it)", () => {
    const schema = inputSchemaOf({
      schema: v.object({
        n: v.pipe(
          v.number(),
          v.check((n) => n % 2 === 0, "even"),
        ),
      }),
    });
    expect(schema).toMatchObject({ type: "object", properties: { n: { type: "number" } } });
  });
});

describe("annotationsOf", () => {
  test("derived from the scope when the tool says nothing", () => {
    expect(annotationsOf({ scope: "read", annotations: {} })).toEqual({ readOnlyHint: true });
    expect(annotationsOf({ scope: "write", annotations: {} })).toEqual({ readOnlyHint: false, destructiveHint: true });
    expect(annotationsOf({ scope: "exec", annotations: {} })).toEqual({ readOnlyHint: false, destructiveHint: true });
  });

  test("the tool's own annotations win", () => {
    expect(annotationsOf({ scope: "write", annotations: { destructiveHint: false, idempotentHint: true } })).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
    });
  });
});

describe("toMcpResult", () => {
  test("success: content and isError pass through, structuredContent says ok, no _meta", () => {
    expect(toMcpResult(ok("fine"))).toEqual({ content: [{ type: "text", text: "fine" }], structuredContent: { ok: true }, isError: false });
  });

  test("failure: the code travels in structuredContent and _meta", () => {
    expect(toMcpResult(fail("EDIT_STALE_LINE_ID", "stale"))).toEqual({
      content: [{ type: "text", text: "stale" }],
      structuredContent: { ok: false, code: "EDIT_STALE_LINE_ID" },
      isError: true,
      _meta: { "toolwarden/code": "EDIT_STALE_LINE_ID" },
    });
  });

  test("a result's facts become structuredContent next to the text", () => {
    const changes = [{ oldStart: 2, oldCount: 1, newStart: 2, newCount: 1, ids: ["2:ab"], complete: true }];
    const result = toMcpResult(withFacts(ok("Edited"), { path: "a.txt", version: "v2", changes }));
    expect(result.structuredContent).toEqual({ ok: true, path: "a.txt", version: "v2", changes });
    expect(result.content).toEqual([{ type: "text", text: "Edited" }]);
  });

  test("notices become trailing text blocks and _meta entries", () => {
    const notice = { text: "exit code 1 after a traceback", source: { kind: "plugin" as const, plugin: "rules" } };
    const result = toMcpResult({ ...fail("RULE_BLOCKED", "blocked"), notices: [notice] });
    expect(result.content).toEqual([
      { type: "text", text: "blocked" },
      { type: "text", text: "exit code 1 after a traceback" },
    ]);
    expect(result._meta).toEqual({ "toolwarden/code": "RULE_BLOCKED", "toolwarden/notices": [notice] });
  });
});
