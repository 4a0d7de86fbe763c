/**
 * view's arguments as models send them: an id with a malformed hash as a
 * bound (a view needs only its number), and numbers and booleans quoted
 * ("context": "2", "regex": "true"), read exactly or refused.
 */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { describeTool } from "../../src/http/catalog.ts";
import { badIdText, boundsWithLineNumbers, lineOfBadId } from "../../src/tools/view/range.ts";
import { viewTool } from "../../src/tools/view/run.ts";
import { ViewArgsSchema } from "../../src/tools/view/schema.ts";
import { firstCall } from "../helpers/suggested-calls.ts";
import { makeContext, seed } from "../helpers/tool-context.ts";
import { rows, view } from "../helpers/tool-view.ts";

const LINES = ["one", "two", "three", "four", "five"];

async function fileContext() {
  const ctx = makeContext();
  await seed(ctx.storage, { "src/a.ts": `${LINES.join("\n")}\n`, "src/b.ts": "three\n" });
  return ctx;
}

describe("a bound written as an id with a malformed hash", () => {
  test("lineOfBadId: the line number of such an id, nothing for anything else", () => {
    expect(lineOfBadId("3:zz")).toBe(3);
    expect(lineOfBadId(" 3 : z ")).toBe(3);
    expect(lineOfBadId("3:")).toBe(3);
    expect(lineOfBadId("03:abc")).toBe(3);
    expect(lineOfBadId("3:zz|three")).toBe(3);
    for (const value of ["3:a3", "3:A3|x", "3", "-3:zz", "0:zz", "x:zz", "abc", 3, undefined]) {
      expect([value, lineOfBadId(value)]).toEqual([value, undefined]);
    }
  });

  test("boundsWithLineNumbers corrects only what that alone makes parse", () => {
    expect(boundsWithLineNumbers("3:zz", undefined)).toEqual({ start: 3, end: undefined });
    expect(boundsWithLineNumbers("1:zz", "4:q")).toEqual({ start: 1, end: 4 });
    expect(boundsWithLineNumbers(2, "4:q")).toEqual({ start: 2, end: 4 });
    expect(boundsWithLineNumbers("3:a3", 5)).toBeUndefined();
    // The other bound is wrong in another way: no half-corrected call.
    expect(boundsWithLineNumbers("3:zz", "abc")).toBeUndefined();
    expect(badIdText("1:zz", "4:q")).toStartWith('start "1:zz" and end "4:q" are not line ids');
  });

  test("refused with the view by line number, not sent off to view for an id; the offered view works", async () => {
    const ctx = await fileContext();
    const out = await view(ctx, { path: "src/a.ts", start: "3:zz" });
    expect(out.result.code).toBe("INVALID_ARGUMENT");
    expect(out.text).not.toContain("View the file to get the current id");
    expect(firstCall(out.text, "view")).toEqual({ path: "src/a.ts", start: 3 });
    const followed = await view(ctx, firstCall(out.text, "view"));
    expect(followed.text).toBe(["[src/a.ts: lines 3-5 of 5]", ...rows(3, LINES.slice(2))].join("\n"));
  });

  test("both bounds, and a search's other arguments, are kept in the offered call", async () => {
    const ctx = await fileContext();
    const out = await view(ctx, { path: "src/a.ts", content: "t", start: "2:x", end: "4:zz" });
    expect(out.result.code).toBe("INVALID_ARGUMENT");
    const call = firstCall(out.text, "view");
    expect(call).toEqual({ path: "src/a.ts", content: "t", start: 2, end: 4 });
    const followed = await view(ctx, call);
    expect(followed.result.isError).toBe(false);
    expect(followed.text).toContain("in src/a.ts lines 2-4 of 5: 2 matching lines");
  });
});

describe("numbers and booleans sent as strings", () => {
  test("exact strings are read as the value: the result is the unquoted call's", async () => {
    const ctx = await fileContext();
    const quoted = await view(ctx, { path: "src", content: "t.r", regex: "true", context: "1", case_sensitive: "false", depth: "2" });
    const plain = await view(ctx, { path: "src", content: "t.r", regex: true, context: 1, case_sensitive: false, depth: 2 });
    expect(quoted.result.isError).toBe(false);
    expect(quoted.text).toBe(plain.text);
    const listed = await view(ctx, { path: ".", hidden: "true", gitignore: "false", depth: "2" });
    expect(listed.text).toBe((await view(ctx, { path: ".", hidden: true, gitignore: false, depth: 2 })).text);
  });

  test('the schema parses exactly: "2" is 2, "true"/"false" are booleans, anything else is refused', () => {
    const parse = (args: Record<string, unknown>) => v.safeParse(ViewArgsSchema, { path: ".", ...args });
    expect(parse({ context: "2" }).output).toEqual({ path: ".", context: 2 });
    expect(parse({ depth: "20", regex: "false", hidden: "true" }).output).toEqual({ path: ".", depth: 20, regex: false, hidden: true });
    for (const args of [
      { context: "2x" },
      { context: " 2" },
      { context: "02" },
      { context: "" },
      { context: "2.5" },
      { context: "11" },
      { context: "-1" },
      { depth: "0" },
      { regex: "True" },
      { regex: "yes" },
      { regex: "1" },
      { regex: 1 },
      { gitignore: "" },
      { context: true },
    ]) {
      expect([args, parse(args).success]).toEqual([args, false]);
    }
  });

  test("a refused string says what is accepted", async () => {
    const ctx = await fileContext();
    const out = await view(ctx, { path: "src", content: "t", context: "two", regex: "yes" });
    expect(out.result.code).toBe("INVALID_ARGUMENT");
    expect(out.text).toContain('- regex: regex must be true or false (got "yes")');
    expect(out.text).toContain('- context: context must be a number (got "two")');
    expect((await view(ctx, { path: "src", content: "t", context: "11" })).text).toContain("context is at most 10 lines");
  });

  test("clients still see number and boolean in the JSON Schema", () => {
    const schema = describeTool(viewTool).inputSchema as { properties: Record<string, Record<string, unknown>> };
    const shape = (name: string) => {
      const { description: _d, ...rest } = schema.properties[name];
      return rest;
    };
    expect(shape("context")).toEqual({ type: "integer", minimum: 0, maximum: 10 });
    expect(shape("depth")).toEqual({ type: "integer", minimum: 1, maximum: 20 });
    for (const name of ["regex", "case_sensitive", "hidden", "gitignore"]) expect([name, shape(name)]).toEqual([name, { type: "boolean" }]);
  });
});
