import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import * as v from "valibot";
import { createPipeline } from "../../src/pipeline/mod.ts";
import { closestName, editDistance } from "../../src/pipeline/suggest.ts";
import { formatPath, validateArgs } from "../../src/pipeline/validate.ts";
import { BatchEditSchema } from "../../src/tools/batch-edit/schema.ts";
import { resultText } from "../../src/result.ts";
import { fakeCtx, fakeTool } from "../helpers/pipeline-fakes.ts";

const schema = v.strictObject({
  path: v.string(),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  mode: v.optional(v.picklist(["lines", "bytes"])),
  operations: v.optional(v.array(v.strictObject({ start: v.string(), end: v.optional(v.string()), text: v.string() }))),
});
const edit = { name: "edit", schema };

/** The INVALID_ARGUMENT text for `args`, failing the test if they are valid. */
function problemsFor(args: unknown, tool: { name: string; schema: v.GenericSchema } = edit, maxProblems?: number): string {
  const outcome = validateArgs(tool, args, { maxProblems });
  if (outcome.ok) throw new Error(`expected ${JSON.stringify(args)} to be invalid`);
  expect(outcome.result.isError).toBe(true);
  expect(outcome.result.code).toBe("INVALID_ARGUMENT");
  return resultText(outcome.result);
}

describe("argument problems a model can act on", () => {
  test("wrong type: the field, what was given, what is expected", () => {
    const text = problemsFor({ path: 42 });
    expect(text).toContain("- path: expected string, got 42");
    expect(text).toStartWith("Invalid arguments for `edit` (1 problem); the tool did not run.");
    expect(text).toEndWith("Correct it and call `edit` again.");
  });

  test("missing required field names it and its type", () => {
    expect(problemsFor({})).toContain("- path: missing required field (expected string)");
  });

  test("a field named like an object's own machinery (constructor, __proto__, toString) is an unknown field, never a crash", () => {
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      // JSON.parse makes "__proto__" an own key, as a request body does.
      const args = JSON.parse(`{"path": "a.txt", ${JSON.stringify(name)}: 1}`);
      const text = problemsFor(args);
      expect(text).toContain(`- ${name}: unknown field`);
    }
    // Inside an operation too.
    const nested = JSON.parse('{"path": "a.txt", "operations": [{"start": "1:ab", "text": "x", "constructor": 1}]}');
    expect(problemsFor(nested)).toContain("unknown field");
  });

  test("unknown field lists the accepted fields and the likely intended name", () => {
    const text = problemsFor({ path: "a", limt: 5 });
    expect(text).toContain("- limt: unknown field; accepted fields here: path, limit, mode, operations. Did you mean `limt` -> `limit`?");
  });

  test("several unknown fields of one object are all named in one line", () => {
    const text = problemsFor({ path: "a", foo: 1, bar: 2 });
    expect(text).toContain("- arguments: unknown fields `foo`, `bar`; accepted fields here:");
    expect(text).toContain("(1 problem)");
  });

  test("a misnamed field is reported as missing plus unknown, with the fix", () => {
    const text = problemsFor({ pth: "a" });
    expect(text).toContain("(2 problems)");
    expect(text).toContain("- path: missing required field (expected string)");
    expect(text).toContain("Did you mean `pth` -> `path`?");
  });

  test("a nested array item is addressed as the model wrote it", () => {
    const operations = [
      { start: "1:aa", text: "x" },
      { start: "2:bb", text: "y" },
      { start: 3, text: "z", ned: "4:cc" },
    ];
    const text = problemsFor({ path: "a", operations });
    expect(text).toContain("- operations[2].start: expected string, got 3");
    expect(text).toContain("- operations[2].ned: unknown field; accepted fields here: start, end, text. Did you mean `ned` -> `end`?");
  });

  test("every problem is listed together, in one result", () => {
    const text = problemsFor({ path: 1, limit: 0, mode: "chars" });
    expect(text).toContain("(3 problems)");
    expect(text).toContain("- path: expected string, got 1");
    expect(text).toContain("- limit: expected >=1, got 0");
    expect(text).toContain('- mode: expected ("lines" | "bytes"), got "chars"');
    expect(text).toEndWith("Correct them and call `edit` again.");
  });

  test("checks without an expectation still say what failed", () => {
    expect(problemsFor({ path: "a", limit: 1.5 })).toContain("- limit: invalid integer, got 1.5");
  });

  test("a message the tool author wrote is kept", () => {
    const custom = {
      name: "view",
      schema: v.object({ range: v.pipe(v.string(), v.regex(/^\d+-\d+$/, "range must look like 10-20")) }),
    };
    expect(problemsFor({ range: "ten" }, custom)).toContain('- range: range must look like 10-20 (got "ten")');
  });

  test("the list is capped, with a count of what was left out", () => {
    const operations = Array.from({ length: 25 }, () => ({ start: 1, text: "x" }));
    const text = problemsFor({ path: "a", operations }, edit, 5);
    expect(text).toContain("(25 problems)");
    expect(text.split("\n").filter((l) => l.startsWith("- operations")).length).toBe(5);
    expect(text).toContain("- ... and 20 more not shown");
  });

  test("long given values are truncated to one short line", () => {
    const text = problemsFor({ path: "x".repeat(10_000), limit: "y".repeat(10_000) });
    const line = text.split("\n").find((l) => l.startsWith("- limit"))!;
    expect(line.length).toBeLessThan(120);
    expect(line).toEndWith("…");
  });

  test("arguments that are not an object say so", () => {
    expect(problemsFor("a.txt")).toContain('- arguments: expected Object, got "a.txt"');
    expect(problemsFor(null)).toContain("- arguments: expected Object, got null");
  });

  test("a union of object forms reports the closest form's own problems, not 'expected Object'", () => {
    const op = v.union([v.strictObject({ replace: v.string(), with: v.string() }), v.strictObject({ insert_after: v.string(), text: v.string() })]);
    const batch = { name: "batch_edit", schema: v.strictObject({ ops: v.array(op) }) };
    const text = problemsFor({ ops: [{ replace: "a", wiht: "b" }, 7] }, batch);
    expect(text).toContain("- ops[0]: matches none of the accepted forms ({ replace, with } | { insert_after, text }); closest is { replace, with }:");
    expect(text).toContain("  - ops[0].with: missing required field (expected string)");
    expect(text).toContain("Did you mean `wiht` -> `with`?");
    expect(text).toContain("- ops[1]: expected one of: { replace, with } | { insert_after, text }; got 7");
    expect(text).not.toContain("expected Object");
    expect(text).toContain("(3 problems)");
  });

  test("variant options are followed to list the right accepted fields", () => {
    const variant = {
      name: "op",
      schema: v.strictObject({
        op: v.variant("kind", [
          v.strictObject({ kind: v.literal("insert"), text: v.string() }),
          v.strictObject({ kind: v.literal("delete"), count: v.number() }),
        ]),
      }),
    };
    const text = problemsFor({ op: { kind: "delete", cuont: 1 } }, variant);
    expect(text).toContain("- op.count: missing required field (expected number)");
    expect(text).toContain("- op.cuont: unknown field; accepted fields here: kind, count. Did you mean `cuont` -> `count`?");
  });

  test("valid arguments pass through as valibot's output", () => {
    const outcome = validateArgs({ name: "t", schema: v.object({ n: v.optional(v.number(), 3) }) }, {});
    expect(outcome).toEqual({ ok: true, value: { n: 3 } });
  });

  test("any JSON input either validates or yields an INVALID_ARGUMENT result; validation never throws", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (input) => {
        const outcome = validateArgs(edit, input);
        if (!outcome.ok) {
          expect(outcome.result.code).toBe("INVALID_ARGUMENT");
          expect(resultText(outcome.result)).toStartWith("Invalid arguments for `edit`");
        }
      }),
      { numRuns: 300 },
    );
  });

  test("the pipeline returns the same problems for a real call", async () => {
    const p = createPipeline([fakeTool("edit", "write", schema)]);
    const result = await p.call("edit", { path: "a", operations: [{ start: 1, text: "" }] }, fakeCtx());
    expect(result.code).toBe("INVALID_ARGUMENT");
    expect(resultText(result)).toContain("- operations[0].start: expected string, got 1");
  });
});

describe("paths and names", () => {
  test("paths use dots for keys and brackets for indices and odd keys", () => {
    expect(formatPath([])).toBe("arguments");
    expect(formatPath(["operations", 2, "start"])).toBe("operations[2].start");
    expect(formatPath(["a b", 0])).toBe('["a b"][0]');
  });

  test("edit distance counts a transposition as one edit", () => {
    expect(editDistance("with", "wiht")).toBe(1);
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
  });

  test("only plausible names are suggested", () => {
    expect(closestName("old_string", ["old_str", "new_str", "path"])).toBe("old_str");
    expect(closestName("filePath", ["file_path", "path"])).toBe("file_path");
    expect(closestName("content", ["path", "start", "end"])).toBeUndefined();
  });
});

describe("a misnamed discriminator", () => {
  test("`op` for `operation` in a batch_edit operation: did-you-mean and the operation renamed", async () => {
    const { batchEditTool } = await import("../../src/tools/batch-edit/run.ts");
    const sent = { path: "a.ts", operations: [{ op: "replace", start: "3:aa", content: 'say("hi")' }] };
    const outcome = validateArgs(batchEditTool, sent);
    if (outcome.ok) throw new Error("should fail");
    const text = outcome.result.content[0].text;
    expect(text).toContain("- operations[0].operation: missing required field");
    expect(text).toContain("Did you mean `op` -> `operation`?");
    const fixed = JSON.parse(text.slice(text.indexOf("As it should be: ") + 17, text.indexOf("\nCorrect it")));
    expect(fixed).toEqual({ operation: "replace", start: "3:aa", content: 'say("hi")' });
    expect(validateArgs(batchEditTool, { path: "a.ts", operations: [fixed] }).ok).toBe(true);
  });

  test("`type` and `action` are read the same way; a key holding no accepted value is not", async () => {
    const { batchEditTool } = await import("../../src/tools/batch-edit/run.ts");
    for (const key of ["type", "action"]) {
      const outcome = validateArgs(batchEditTool, { path: "a.ts", operations: [{ [key]: "delete", start: "3:aa" }] });
      if (outcome.ok) throw new Error("should fail");
      expect(outcome.result.content[0].text).toContain(`Did you mean \`${key}\` -> \`operation\`?`);
    }
    const other = validateArgs(batchEditTool, { path: "a.ts", operations: [{ op: "remove", start: "3:aa" }] });
    if (other.ok) throw new Error("should fail");
    expect(other.result.content[0].text).not.toContain("Did you mean");
  });
});

describe("names models use by meaning, and arguments sent as JSON text (batch_edit's own schema)", () => {
  const batch = { name: "batch_edit", schema: BatchEditSchema };
  const ops = [{ operation: "replace", start: "3:5f", content: "x" }];

  test("`edits` for `operations`: the rename and the call as it should be", () => {
    const text = problemsFor({ path: "a.ts", edits: ops }, batch);
    expect(text).toContain("`edits` -> `operations`");
    expect(text).toContain(`As it should be: ${JSON.stringify({ path: "a.ts", operations: ops })}`);
  });

  test("`edits` holding `{op, line, text}`: the call offered renames inside it too, and validates as sent", () => {
    const sent = { path: "a.ts", edits: [{ op: "replace", line: "3:5f", text: "x" }] };
    const text = problemsFor(sent, batch);
    expect(text).toContain("`edits` -> `operations`");
    const offered = JSON.parse(text.slice(text.indexOf("As it should be: ") + 17, text.indexOf("\n", text.indexOf("As it should be: "))));
    expect(offered.operations).toEqual(ops);
    // What the model sent is not changed by the repair.
    expect(sent.edits[0]).toEqual({ op: "replace", line: "3:5f", text: "x" });
  });

  test("`line` / `text` in a replace, `start` in an insert: each gets the field it stands for", () => {
    const replace = problemsFor({ path: "a.ts", operations: [{ operation: "replace", line: "3:5f", text: "x" }] }, batch);
    expect(replace).toContain("`line` -> `start`");
    expect(replace).toContain("`text` -> `content`");
    expect(replace).toContain(`As it should be: ${JSON.stringify({ operation: "replace", start: "3:5f", content: "x" })}`);
    const insert = problemsFor({ path: "a.ts", operations: [{ operation: "insert", start: "3:5f", content: "x" }] }, batch);
    expect(insert).toContain("`start` -> `after`");
  });

  test("operations sent as the JSON text of the array is read as that array; other strings are still refused", () => {
    const outcome = validateArgs(batch, { path: "a.ts", operations: JSON.stringify(ops) });
    expect(outcome).toEqual({ ok: true, value: { path: "a.ts", operations: ops } });
    expect(problemsFor({ path: "a.ts", operations: "[not json" }, batch)).toContain("operations");
    expect(problemsFor({ path: "a.ts", operations: JSON.stringify({ operation: "replace" }) }, batch)).toContain("operations");
  });
});

describe("several misnamed fields in one operation", () => {
  const batch = { name: "batch_edit", schema: BatchEditSchema };
  test("the discriminator and the other names are renamed in one step, and the object offered is valid", () => {
    const sent = [
      { op: "replace", start: "3:5f", new_content: "x" },
      { type: "insert", line: "4:aa", text: "y" },
      { action: "delete", id: "5:bb" },
    ];
    const text = problemsFor({ path: "a.ts", operations: sent }, batch);
    const offered = [...text.matchAll(/As it should be: (\{[^\n]*\})/g)].map((m) => JSON.parse(m[1]));
    expect(offered).toEqual([
      { operation: "replace", start: "3:5f", content: "x" },
      { operation: "insert", after: "4:aa", content: "y" },
      { operation: "delete", start: "5:bb" },
    ]);
    expect(validateArgs(batch, { path: "a.ts", operations: offered }).ok).toBe(true);
  });
});
