/**
 * edit's answers where old_string could only be read one way by a person
 * but is not the file's text: overlapping occurrences (EDIT_AMBIGUOUS, not
 * the first edited silently), look-alike or invisible characters
 * (EDIT_NO_MATCH with the call as the file has it), an inserted character
 * named as such, and a row view shortened. Nothing is written by a refusal;
 * the offered call, sent as is, lands the intended bytes.
 */
import { describe, expect, test } from "bun:test";
import { editTool } from "../../src/tools/edit/run.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { makeContext, readText, seed } from "../helpers/tool-context.ts";
import { bytesOf, call, expectFail, expectOk, expectUntouched, markViewed } from "../helpers/tool-mutation.ts";
import { firstCall, suggestedCalls } from "../helpers/suggested-calls.ts";

const edit = (ctx: ToolContext, path: string, old_string: string, new_string: string, replace_all = false) =>
  call(editTool, { path, old_string, new_string, replace_all }, ctx);

async function viewed(files: Record<string, string>) {
  const ctx = makeContext();
  const versions = await seed(ctx.storage, files);
  for (const path of Object.keys(files)) await markViewed(ctx, path);
  const snapshot = async (path: string) => ({ bytes: await bytesOf(ctx.storage, path), version: versions[path] });
  return { ctx, snapshot };
}

describe("edit: overlapping occurrences (F4)", () => {
  test("row\\nrow\\n over three row lines: EDIT_AMBIGUOUS, nothing written; the second ready call edits the second place", async () => {
    const { ctx, snapshot } = await viewed({ "t.txt": "row\nrow\nrow\n" });
    const before = await snapshot("t.txt");
    const text = expectFail(await edit(ctx, "t.txt", "row\nrow\n", "row\nrow\nNEW\n"), "EDIT_AMBIGUOUS");
    expect(text).toContain("old_string matches 2 places in `t.txt` (counting overlapping occurrences: some share text)");
    expect(text).toContain('pass "replace_all": true to replace only the first of them');
    await expectUntouched(ctx.storage, "t.txt", before);
    const calls = suggestedCalls(text).filter((c) => c.tool === "edit");
    expect(calls).toHaveLength(2);
    expectOk(await call(editTool, calls[1].args, ctx));
    expect(await readText(ctx.storage, "t.txt")).toBe("row\nrow\nrow\nNEW\n");
  });

  test('"==" in "===" and "aa" in "aaa": EDIT_AMBIGUOUS naming the columns, nothing written', async () => {
    const { ctx, snapshot } = await viewed({ "d.txt": "x = a === b\n", "c.txt": "value = 'aaa'\n" });
    const d = await snapshot("d.txt");
    const c = await snapshot("c.txt");
    const eq = expectFail(await edit(ctx, "d.txt", "==", "!="), "EDIT_AMBIGUOUS");
    expect(eq).toContain("(the match at column 7)");
    expect(eq).toContain("(the match at column 8)");
    expectFail(await edit(ctx, "c.txt", "aa", "ab"), "EDIT_AMBIGUOUS");
    await expectUntouched(ctx.storage, "d.txt", d);
    await expectUntouched(ctx.storage, "c.txt", c);
    // The ready call for the second place, sent as is, edits that place.
    expectOk(await call(editTool, suggestedCalls(eq)[1].args, ctx));
    expect(await readText(ctx.storage, "d.txt")).toBe("x = a =!= b\n");
  });

  test("replace_all over overlapping occurrences: left to right, and the result says so", async () => {
    const { ctx } = await viewed({ "c.txt": "aaa\n" });
    const text = expectOk(await edit(ctx, "c.txt", "aa", "b", true));
    expect(text).toContain("counting overlapping occurrences");
    expect(await readText(ctx.storage, "c.txt")).toBe("ba\n");
  });
});

describe("edit: look-alike and invisible characters (F9)", () => {
  test("file has curly quotes and an em dash, old_string plain ones and --: the ready call keeps the file's characters, and lands", async () => {
    const file = "He said \u201chi\u201d \u2014 then left.\nIt\u2019s fine.\n";
    const { ctx, snapshot } = await viewed({ "doc.md": file });
    const before = await snapshot("doc.md");
    const text = expectFail(await edit(ctx, "doc.md", 'He said "hi" -- then left.', 'He said "hello" -- then left.'), "EDIT_NO_MATCH");
    expect(text).toContain("typographic punctuation");
    await expectUntouched(ctx.storage, "doc.md", before);
    const retry = firstCall(text, "edit");
    expect(retry).toEqual({
      path: "doc.md",
      old_string: "He said \u201chi\u201d \u2014 then left.",
      new_string: "He said \u201chello\u201d \u2014 then left.",
    });
    expectOk(await call(editTool, retry, ctx));
    expect(await readText(ctx.storage, "doc.md")).toBe("He said \u201chello\u201d \u2014 then left.\nIt\u2019s fine.\n");
  });

  test("file has NFD, old_string NFC: the ready call has the file's spelling, and lands", async () => {
    const { ctx, snapshot } = await viewed({ "n.py": 'name = "cafe\u0301"\n' });
    const before = await snapshot("n.py");
    const text = expectFail(await edit(ctx, "n.py", 'name = "caf\u00e9"', 'name = "tea"'), "EDIT_NO_MATCH");
    expect(text).toContain("Unicode normalisation");
    await expectUntouched(ctx.storage, "n.py", before);
    const retry = firstCall(text, "edit");
    expect(retry.old_string).toBe('name = "cafe\u0301"');
    expectOk(await call(editTool, retry, ctx));
    expect(await readText(ctx.storage, "n.py")).toBe('name = "tea"\n');
  });

  test("file has a zero-width space old_string lacks: named as a character only the file has, and the ready call keeps it", async () => {
    const { ctx, snapshot } = await viewed({ "z.py": "x\u200b = 1\ny = 2\n" });
    const before = await snapshot("z.py");
    const text = expectFail(await edit(ctx, "z.py", "x = 1", "x = 2"), "EDIT_NO_MATCH");
    expect(text).toContain('has "\u200b" (U+200B zero-width space), which old_string lacks');
    // The closest place names one difference, not every later character swapped.
    expect(text.split("\n").find((l) => l.startsWith("1. "))).not.toContain("the only other differences");
    expect(text).toContain('"old_string":"x\\u200b = 1"');
    await expectUntouched(ctx.storage, "z.py", before);
    const retry = firstCall(text, "edit");
    expect(retry).toEqual({ path: "z.py", old_string: "x\u200b = 1", new_string: "x\u200b = 2" });
    expectOk(await call(editTool, retry, ctx));
    expect(await readText(ctx.storage, "z.py")).toBe("x\u200b = 2\ny = 2\n");
  });

  test("two places that match once look-alikes are read as one: no ready call", async () => {
    const { ctx } = await viewed({ "q.md": "\u201chi\u201d\n\u201chi\u201d\n" });
    const text = expectFail(await edit(ctx, "q.md", '"hi"', '"yo"'), "EDIT_NO_MATCH");
    expect(suggestedCalls(text).filter((c) => c.tool === "edit")).toEqual([]);
  });
});

describe("edit: old_string copied from a shortened row (F3)", () => {
  const long = `const table = [${Array.from({ length: 600 }, (_, i) => i).join(",")}];`;

  test("says view shortened the line, and offers the part before the marker, which lands keeping the rest", async () => {
    const file = `${long}\nexport default table;\n`;
    const { ctx, snapshot } = await viewed({ "a.js": file });
    const before = await snapshot("a.js");
    const shown = `${long.slice(0, 2000)}… [line truncated: ${long.length} chars total]`;
    const text = expectFail(await edit(ctx, "a.js", shown, `export ${long.slice(0, 2000)}`), "EDIT_NO_MATCH");
    expect(text).toContain("view shortened that line");
    await expectUntouched(ctx.storage, "a.js", before);
    const retry = firstCall(text, "edit");
    expect(retry.old_string).toBe(long.slice(0, 2000));
    expectOk(await call(editTool, retry, ctx));
    expect(await readText(ctx.storage, "a.js")).toBe(`export ${long}\nexport default table;\n`);
  });

  test("when the part before the marker occurs twice: explained, no ready call", async () => {
    const file = `${long}\n${long}\n`;
    const { ctx } = await viewed({ "b.js": file });
    const shown = `${long.slice(0, 2000)}… [line truncated: ${long.length} chars total]`;
    const text = expectFail(await edit(ctx, "b.js", shown, "x"), "EDIT_NO_MATCH");
    expect(text).toContain("occurs at more than one place");
    expect(suggestedCalls(text).filter((c) => c.tool === "edit")).toEqual([]);
  });
});
