/**
 * New text that would be written wrong without a word: a copy of a line view
 * showed shortened (F3), a "\r" ending a line of new text (F5), line endings
 * that differ from the file's (F6), half a surrogate pair (F10). Each case
 * asserts the bytes on disk, and follows the call a refusal offers.
 */
import { describe, expect, test } from "bun:test";
import { findLoneSurrogate, findShortenedLines } from "../../src/text/artifacts.ts";
import { dropTrailingCr } from "../../src/text/eol.ts";
import { resolveShortened } from "../../src/text/shortened.ts";
import { batchEditTool } from "../../src/tools/batch-edit/run.ts";
import { editTool } from "../../src/tools/edit/run.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { writeTool } from "../../src/tools/write/run.ts";
import { makeContext, readText, seed } from "../helpers/tool-context.ts";
import { bytesOf, call, expectFail, expectOk, expectUntouched, markViewed, utf8 } from "../helpers/tool-mutation.ts";
import { id, view } from "../helpers/tool-view.ts";

const LONG = `const table = [${Array.from({ length: 600 }, (_, i) => i).join(",")}];`;
const FILE = `${LONG}\nexport default table;\n`;

/** The text of view's row for line 1 (after its prefix): the line as view shows it. */
async function shownRow(ctx: ToolContext, path: string, n = 1): Promise<string> {
  const { text } = await view(ctx, { path });
  const line = text.split("\n").find((l) => l.startsWith(`${n}:`))!;
  return line.slice(line.indexOf("|") + 1);
}

/** The first `tool {json}` call a text offers, parsed. */
function offered(text: string, tool: string): Record<string, unknown> {
  const m = new RegExp(`^\\s*${tool} (\\{.*\\})$`, "m").exec(text);
  if (!m) throw new Error(`no ${tool} call offered in:\n${text}`);
  return JSON.parse(m[1]);
}

async function setUp(files: Record<string, string>): Promise<ToolContext> {
  const ctx = makeContext();
  await seed(ctx.storage, files);
  for (const path of Object.keys(files)) await markViewed(ctx, path);
  return ctx;
}

describe("F3: a copy of a shortened line is never written", () => {
  test("batch_edit: refused with a ready short edit, which keeps the rest of the line", async () => {
    const ctx = await setUp({ "a.js": FILE });
    const shown = await shownRow(ctx, "a.js");
    expect(shown).toContain("… [line truncated: ");
    const before = await ctx.storage.read("a.js");
    const text = expectFail(
      await call(batchEditTool, { path: "a.js", operations: [{ operation: "replace", start: id(1, LONG), content: `export ${shown}` }] }, ctx),
      "INVALID_ARGUMENT",
    );
    await expectUntouched(ctx.storage, "a.js", before);
    // docs/tools.md ("Pasted view artifacts") shows this very refusal.
    expect(await Bun.file(new URL("../../docs/tools.md", import.meta.url)).text()).toContain(`\n${text}\n`);
    const edit = offered(text, "edit");
    expect(edit).toEqual({ path: "a.js", old_string: "const table ", new_string: "export const table " });
    expectOk(await call(editTool, edit, ctx));
    expect(await readText(ctx.storage, "a.js")).toBe(`export ${FILE}`);
  });

  test("write of the whole file rebuilt from view rows: refused, the offered edit works", async () => {
    const ctx = await setUp({ "b.js": FILE });
    const shown = await shownRow(ctx, "b.js");
    const before = await ctx.storage.read("b.js");
    const text = expectFail(
      await call(writeTool, { path: "b.js", content: `${shown.replace("0,1,2,", "0,1,22,")}\nexport default table;\n` }, ctx),
      "INVALID_ARGUMENT",
    );
    await expectUntouched(ctx.storage, "b.js", before);
    expect(text).toContain("write needs every line whole");
    expectOk(await call(editTool, offered(text, "edit"), ctx));
    expect(await readText(ctx.storage, "b.js")).toBe(FILE.replace("0,1,2,", "0,1,22,"));
  });

  test("edit with the shortened row in new_string: refused before the match is looked at", async () => {
    const ctx = await setUp({ "c.js": FILE });
    const shown = await shownRow(ctx, "c.js");
    const before = await ctx.storage.read("c.js");
    const text = expectFail(
      await call(editTool, { path: "c.js", old_string: "const table = [0,1,2", new_string: `let ${shown.slice(6)}` }, ctx),
      "INVALID_ARGUMENT",
    );
    await expectUntouched(ctx.storage, "c.js", before);
    expectOk(await call(editTool, offered(text, "edit"), ctx));
    expect(await readText(ctx.storage, "c.js")).toBe(FILE.replace("const table", "let table"));
  });

  test("the prefixed copy's refusal offers the short edit, not content without prefixes", async () => {
    const ctx = await setUp({ "d.js": FILE });
    const shown = await shownRow(ctx, "d.js");
    const content = `${id(1, LONG)}|export ${shown}`;
    const text = expectFail(
      await call(batchEditTool, { path: "d.js", operations: [{ operation: "replace", start: id(1, LONG), content }] }, ctx),
      "INVALID_ARGUMENT",
    );
    expect(text).not.toContain("send the operation with content exactly as the lines should read");
    expectOk(await call(editTool, offered(text, "edit"), ctx));
    expect(await readText(ctx.storage, "d.js")).toBe(`export ${FILE}`);
  });

  test("a change at the very end of the shown part: no call offered as ready, the way is said", async () => {
    const ctx = await setUp({ "e.js": FILE });
    const shown = await shownRow(ctx, "e.js");
    const cut = shown.indexOf("… [line truncated:");
    const content = `${shown.slice(0, cut)}X${shown.slice(cut)}`;
    const before = await ctx.storage.read("e.js");
    const text = expectFail(
      await call(batchEditTool, { path: "e.js", operations: [{ operation: "replace", start: id(1, LONG), content }] }, ctx),
      "INVALID_ARGUMENT",
    );
    await expectUntouched(ctx.storage, "e.js", before);
    expect(text).not.toMatch(/^\s*edit \{/m);
    expect(text).toContain("send edit with old_string a short piece of the part you saw");
  });

  test("a copy left unchanged in a range: refused, told to leave it out", async () => {
    const ctx = await setUp({ "f.js": FILE });
    const shown = await shownRow(ctx, "f.js");
    const op = { operation: "replace", start: id(1, LONG), end: id(2, "export default table;"), content: `${shown}\nexport { table };` };
    const text = expectFail(await call(batchEditTool, { path: "f.js", operations: [op] }, ctx), "INVALID_ARGUMENT");
    expect(text).toContain("Line 1 is unchanged in what you sent: leave it out of the operation");
    expect(await readText(ctx.storage, "f.js")).toBe(FILE);
  });

  test("a line the file already ends with that marker is its own: written", async () => {
    const doc = "the row reads: 1:94|const x… [line truncated: 2306 chars total]";
    const ctx = await setUp({ "notes.txt": `${doc}\n` });
    const content = doc.replace("the row", "The row");
    expectOk(await call(batchEditTool, { path: "notes.txt", operations: [{ operation: "replace", start: id(1, doc), content }] }, ctx));
    expect(await readText(ctx.storage, "notes.txt")).toBe(`${content}\n`);
  });

  test("verbatim writes the text as sent", async () => {
    const ctx = await setUp({ "g.js": FILE });
    const shown = await shownRow(ctx, "g.js");
    expectOk(await call(writeTool, { path: "g.js", content: `${shown}\n`, verbatim: true }, ctx));
    expect(await readText(ctx.storage, "g.js")).toBe(`${shown}\n`);
  });

  test("findShortenedLines: the marker at the end with more characters than shown, or a window start", () => {
    const found = findShortenedLines("a\nabc… [line truncated: 50 chars total]\r\nx… [line truncated: 1 chars total]\n… [9 chars before not shown] tail");
    expect(found.map((s) => [s.index, s.visible, s.total, s.before])).toEqual([
      [1, "abc", 50, undefined],
      [3, "tail", undefined, 9],
    ]);
  });

  test("resolveShortened: two lines that fit leave the line unknown; the cut follows maxLineChars", () => {
    const line = `${"x".repeat(30)}0123456789${"y".repeat(30)}`;
    const copy = (max: number) => findShortenedLines(`${line.slice(0, max).replace("0123", "ABCD")}… [line truncated: ${line.length} chars total]`)[0];
    expect(resolveShortened(copy(50), [line, line], [0, 1], 50)).toBeUndefined();
    const one = resolveShortened(copy(50), ["other", line], [0, 1], 50);
    expect(one).toMatchObject({ line: 1, unchanged: false, edit: { old_string: "xxxxxxxxxxxx0123456789yyyyyy", new_string: "xxxxxxxxxxxxABCD456789yyyyyy" } });
    // Cut at 45 but read as cut at 50: the kept tail does not line up, so no edit is built.
    expect(resolveShortened(copy(45), ["other", line], [0, 1], 50)?.edit).toBeUndefined();
  });
});

describe("F5: a \\r ending a line of new text is part of the line ending", () => {
  test("edit in a CRLF file: no \\r\\r\\n, with a note", async () => {
    const ctx = await setUp({ "crlf.txt": "a\r\nb\r\nc\r\n" });
    const text = expectOk(await call(editTool, { path: "crlf.txt", old_string: "b", new_string: "B\r" }, ctx));
    expect(text).toContain('new_string line 1 ended with "\\r"');
    expect(await bytesOf(ctx.storage, "crlf.txt")).toEqual(utf8("a\r\nB\r\nc\r\n"));
  });

  test("batch_edit in an LF file: stays LF", async () => {
    const ctx = await setUp({ "lf.txt": "a\nb\nc\n" });
    const text = expectOk(await call(batchEditTool, { path: "lf.txt", operations: [{ operation: "replace", start: id(2, "b"), content: "B\r\nC\r" }] }, ctx));
    expect(text).toContain('operations[0]: content line 2 ended with "\\r"');
    expect(await bytesOf(ctx.storage, "lf.txt")).toEqual(utf8("a\nB\nC\nc\n"));
  });

  test("write: \\r\\r\\n and a final \\r are line endings", async () => {
    const ctx = await setUp({ "w.txt": "a\nb\n" });
    expectOk(await call(writeTool, { path: "w.txt", content: "a\nB\r\r\nc\r" }, ctx));
    expect(await bytesOf(ctx.storage, "w.txt")).toEqual(utf8("a\nB\nc\n"));
    expectOk(await call(writeTool, { path: "new.txt", content: "x\r\ny\r" }, ctx));
    expect(await bytesOf(ctx.storage, "new.txt")).toEqual(utf8("x\r\ny\r\n"));
  });

  test("a \\r inside a line, and a last line's own lone CR, stay", async () => {
    const ctx = await setUp({ "mid.txt": "x = 1\n", "cr.txt": "z\na\rb\r" });
    expectOk(await call(editTool, { path: "mid.txt", old_string: "1", new_string: "1\r2" }, ctx));
    expect(await bytesOf(ctx.storage, "mid.txt")).toEqual(utf8("x = 1\r2\n"));
    expectOk(await call(editTool, { path: "cr.txt", old_string: "a", new_string: "A" }, ctx));
    expect(await bytesOf(ctx.storage, "cr.txt")).toEqual(utf8("z\nA\rb\r"));
    // The file's own "\r", brought to the line's end by removing what followed it, is not new_string's.
    expectOk(await call(editTool, { path: "mid.txt", old_string: "2", new_string: "" }, ctx));
    expect(await bytesOf(ctx.storage, "mid.txt")).toEqual(utf8("x = 1\r\r\n"));
  });

  test("dropTrailingCr: only line ends, and not where kept", () => {
    expect(dropTrailingCr(["a\r", "b\rc", "d\r\r", "e\r"], (i) => i === 3)).toEqual({ lines: ["a", "b\rc", "d", "e\r"], changed: [0, 2] });
    expect(dropTrailingCr(["a", "b\rc"])).toBeUndefined();
  });
});

describe("F6: line endings are converted only when asked, and said", () => {
  test("write verbatim of CRLF content to an LF file writes CRLF", async () => {
    const ctx = await setUp({ "run.bat": "@echo off\necho hi\n" });
    const text = expectOk(await call(writeTool, { path: "run.bat", content: "@echo off\r\necho hi\r\n", verbatim: true }, ctx));
    expect(text).toContain("the file had LF line endings, now CRLF");
    expect(await bytesOf(ctx.storage, "run.bat")).toEqual(utf8("@echo off\r\necho hi\r\n"));
  });

  test("verbatim keeps the file's byte-order mark", async () => {
    const ctx = await setUp({ "bom.txt": "\uFEFFa\nb\n" });
    expectOk(await call(writeTool, { path: "bom.txt", content: "a\r\nb\r\n", verbatim: true }, ctx));
    expect(await bytesOf(ctx.storage, "bom.txt")).toEqual(utf8("\uFEFFa\r\nb\r\n"));
  });

  test("plain write of the same text with CRLF: says only the line endings differ, and how to convert", async () => {
    const ctx = await setUp({ "run.bat": "@echo off\necho hi\n" });
    const before = await ctx.storage.read("run.bat");
    const text = expectOk(await call(writeTool, { path: "run.bat", content: "@echo off\r\necho hi\r\n" }, ctx));
    expect(text).toContain("with LF line endings where content has CRLF");
    expect(text).toContain('"verbatim": true');
    await expectUntouched(ctx.storage, "run.bat", before);
  });

  test("plain write with a change: the dropped CRLF is said", async () => {
    const ctx = await setUp({ "run.bat": "@echo off\necho hi\n" });
    const text = expectOk(await call(writeTool, { path: "run.bat", content: "@echo off\r\necho bye\r\n" }, ctx));
    expect(text).toContain("kept the file's LF line endings, not content's CRLF ones");
    expect(await bytesOf(ctx.storage, "run.bat")).toEqual(utf8("@echo off\necho bye\n"));
  });

  test('edit "\\r\\n" -> "\\n": EDIT_NO_CHANGE says why, and its write converts the file', async () => {
    const ctx = await setUp({ "x.sh": "#!/bin/sh\r\necho hi\r\n" });
    const text = expectFail(await call(editTool, { path: "x.sh", old_string: "\r\n", new_string: "\n", replace_all: true }, ctx), "EDIT_NO_CHANGE");
    expect(text).toContain("differ only in line endings");
    expect(await bytesOf(ctx.storage, "x.sh")).toEqual(utf8("#!/bin/sh\r\necho hi\r\n"));
    expectOk(await call(writeTool, offered(text, "write"), ctx));
    expect(await bytesOf(ctx.storage, "x.sh")).toEqual(utf8("#!/bin/sh\necho hi\n"));
  });
});

describe("F10: half a surrogate pair is refused, nothing written", () => {
  test("edit, batch_edit and write", async () => {
    const ctx = await setUp({ "u.txt": "shalom\n" });
    const before = await ctx.storage.read("u.txt");
    const edit = expectFail(await call(editTool, { path: "u.txt", old_string: "shalom", new_string: "x\ud800y" }, ctx), "INVALID_ARGUMENT");
    expect(edit).toContain('lone surrogate "\\ud800" at line 1, column 2');
    const batch = expectFail(
      await call(batchEditTool, { path: "u.txt", operations: [{ operation: "replace", start: id(1, "shalom"), content: "a\n\udc00" }] }, ctx),
      "INVALID_ARGUMENT",
    );
    expect(batch).toContain('lone surrogate "\\udc00" at line 2, column 1');
    expectFail(await call(writeTool, { path: "u.txt", content: "\ud83d\n" }, ctx), "INVALID_ARGUMENT");
    await expectUntouched(ctx.storage, "u.txt", before);
    expectFail(await call(writeTool, { path: "new.txt", content: "\ud83d" }, ctx), "INVALID_ARGUMENT");
    expect(await ctx.storage.stat("new.txt")).toBeNull();
    // The U+FFFD call offered writes exactly that.
    expectOk(await call(editTool, offered(edit, "edit"), ctx));
    expect(await readText(ctx.storage, "u.txt")).toBe("x\uFFFDy\n");
  });

  test("findLoneSurrogate: a whole pair is fine", () => {
    expect(findLoneSurrogate("a\ud83d\ude00b")).toBeUndefined();
    expect(findLoneSurrogate("ab\n\ude00")).toEqual({ line: 2, column: 1, code: 0xde00 });
  });
});

describe("batch_edit with verbatim, and content that differs only in line endings", () => {
  test("verbatim still refuses half a surrogate pair (it cannot be stored), nothing written", async () => {
    const ctx = await setUp({ "v.txt": "one\ntwo\n" });
    const before = await ctx.storage.read("v.txt");
    const text = expectFail(
      await call(batchEditTool, { path: "v.txt", verbatim: true, operations: [{ operation: "replace", start: id(2, "two"), content: "t\ud800o" }] }, ctx),
      "INVALID_ARGUMENT",
    );
    expect(text).toContain('lone surrogate "\\ud800"');
    await expectUntouched(ctx.storage, "v.txt", before);
  });

  test("content with CRLF over the same lines of an LF file: no change, and the reply says how to convert line endings", async () => {
    const ctx = await setUp({ "l.txt": "one\ntwo\n" });
    const text = expectFail(
      await call(
        batchEditTool,
        { path: "l.txt", operations: [{ operation: "replace", start: id(1, "one"), end: id(2, "two"), content: "one\r\ntwo\r\n" }] },
        ctx,
      ),
      "EDIT_NO_CHANGE",
    );
    expect(text).toContain('"verbatim": true');
    expect(await readText(ctx.storage, "l.txt")).toBe("one\ntwo\n");
  });
});
