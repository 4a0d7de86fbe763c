/**
 * EDIT_NO_MATCH diagnostics: whitespace-only places first (never a similar
 * window elsewhere as "the closest"), a header that agrees, and the first
 * differing character named by column and code point. Nothing is written by
 * the refusal; following what it says lands the intended bytes.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { editTool } from "../../src/tools/edit/run.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { findWhitespaceOnly, firstCharDifference } from "../../src/text/near-match.ts";
import { makeContext, readText, seed } from "../helpers/tool-context.ts";
import { bytesOf, call, expectFail, expectOk, expectUntouched, idOf, markViewed } from "../helpers/tool-mutation.ts";
import { firstCall, suggestedCalls } from "../helpers/suggested-calls.ts";

const edit = (ctx: ToolContext, path: string, old_string: string, new_string: string) => call(editTool, { path, old_string, new_string }, ctx);

async function viewed(files: Record<string, string>) {
  const ctx = makeContext();
  const versions = await seed(ctx.storage, files);
  for (const path of Object.keys(files)) await markViewed(ctx, path);
  const snapshot = async (path: string) => ({ bytes: await bytesOf(ctx.storage, path), version: versions[path] });
  return { ctx, snapshot };
}

// Two functions that read alike; the model means the one in `save`, with its spacing wrong.
const SOURCE = [
  "export function load(id) {",
  "  const row = db.get(id, { fresh: true });",
  "  return row;",
  "}",
  "",
  "export function save(row) {",
  "  const ok = db.put(row.id, row, { fresh: true });",
  "  return ok;",
  "}",
  "",
].join("\n");

describe("pure diagnostics", () => {
  test("findWhitespaceOnly finds a partial-line match whose spacing differs, with the file's exact text", () => {
    const lines = SOURCE.split("\n");
    expect(findWhitespaceOnly(lines, "db.put(row.id,row,{ fresh:true })")).toEqual([
      { start: 6, end: 7, column: 13, text: "db.put(row.id, row, { fresh: true })" },
    ]);
    expect(findWhitespaceOnly(lines, "   ")).toEqual([]);
  });

  test("findWhitespaceOnly: every place it returns is the needle with only whitespace changed, at the place's own text (property)", () => {
    const line = fc.stringMatching(/^[ab \t(),]{0,12}$/);
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 8 }), fc.nat(), fc.nat(), fc.boolean(), (lines, x, y, squeeze) => {
        const joined = lines.join("\n");
        const a = x % (joined.length + 1);
        const b = a + (y % (joined.length - a + 1));
        const span = joined.slice(a, b);
        const needle = squeeze ? span.replace(/\s+/g, "") : span.replace(/ /g, "  ");
        const strip = (s: string) => s.replace(/\s+/g, "");
        for (const place of findWhitespaceOnly(lines, needle, 10)) {
          expect(strip(place.text)).toBe(strip(needle));
          expect(lines.slice(place.start, place.end).join("\n").slice(place.column).startsWith(place.text)).toBe(true);
        }
        if (strip(needle) !== "") expect(findWhitespaceOnly(lines, needle, 10).length).toBeGreaterThan(0);
      }),
      { numRuns: 500 },
    );
  });

  test("firstCharDifference aligns a mid-line start and names both sides", () => {
    const lines = ['  console.log("hi");'];
    expect(firstCharDifference(lines, 0, "log(\u201chi\u201d)")).toMatchObject({
      needleLine: 1,
      needleColumn: 5,
      fileLine: 0,
      fileColumn: 15,
      needleChar: "\u201c",
      fileChar: '"',
    });
  });
});

describe("edit: no-match text", () => {
  test("a whitespace-only place ranks first over a more similar-looking window elsewhere; the header agrees; the corrected call lands", async () => {
    const { ctx, snapshot } = await viewed({ "db.js": SOURCE });
    const before = await snapshot("db.js");
    const old = "db.put(row.id,row, { fresh: true })";
    const text = expectFail(await edit(ctx, "db.js", old, "db.put(row.id, row, { fresh: false })"), "EDIT_NO_MATCH");
    const lines = text.split("\n");
    expect(lines[0]).toBe(
      "old_string is not in `db.js` as written, but it is there when whitespace is ignored (at line 7); only whole lines are matched ignoring whitespace, so nothing was changed.",
    );
    expect(lines[2]).toStartWith(
      `1. line ${idOf(SOURCE, 7)} — only whitespace differs; first difference: the file (line ${idOf(SOURCE, 7)}, column 28) has " " (U+0020 space), which old_string lacks (before its line 1, column 15)`,
    );
    expect(text).not.toContain("not ignoring whitespace");
    expect(text).toContain(`Current text of the closest place (line 7), with ids:\n${idOf(SOURCE, 7)}|`);
    await expectUntouched(ctx.storage, "db.js", before);

    const retry = firstCall(text, "edit");
    expect(retry).toEqual({ path: "db.js", old_string: "db.put(row.id, row, { fresh: true })", new_string: "db.put(row.id, row, { fresh: false })" });
    expectOk(await call(editTool, retry, ctx));
    expect(await readText(ctx.storage, "db.js")).toBe(SOURCE.replace("row, { fresh: true }", "row, { fresh: false }"));
  });

  test("smart quotes: the first different character is named U+201C vs U+0022, and nothing is written", async () => {
    const file = 'const greeting = "hello";\nconsole.log(greeting);\n';
    const { ctx, snapshot } = await viewed({ "g.js": file });
    const before = await snapshot("g.js");
    const text = expectFail(await edit(ctx, "g.js", "const greeting = \u201chello\u201d;", 'const greeting = "hi";'), "EDIT_NO_MATCH");
    expect(text).toContain(
      `first different character: old_string line 1, column 18 has "\u201c" (U+201C left double quotation mark) where the file (line ${idOf(file, 1)}, column 18) has "\\"" (U+0022 quotation mark)`,
    );
    expect(text).toContain(
      'the only other differences, each one character for one: line 1, column 24 has "\u201d" (U+201D right double quotation mark) for "\\"" (U+0022 quotation mark)',
    );
    await expectUntouched(ctx.storage, "g.js", before);
  });

  test("smart quotes in both strings: the call with them made plain, ready to send, lands", async () => {
    const file = 'const greeting = "hello";\nconsole.log(greeting);\n';
    const { ctx } = await viewed({ "g.js": file });
    const text = expectFail(await edit(ctx, "g.js", "greeting = \u201chello\u201d;", "greeting = \u201chi\u201d;"), "EDIT_NO_MATCH");
    expect(text).toContain("it differs there only by typographic punctuation");
    const retry = firstCall(text, "edit");
    expect(retry).toEqual({ path: "g.js", old_string: 'greeting = "hello";', new_string: 'greeting = "hi";' });
    expectOk(await call(editTool, retry, ctx));
    expect(await readText(ctx.storage, "g.js")).toBe('const greeting = "hi";\nconsole.log(greeting);\n');
  });

  test("NBSP, tab for spaces and NFD are named by code point", async () => {
    const file = "\tif (x) {\n\t\treturn café;\n\t}\n";
    const { ctx } = await viewed({ "t.js": file });
    const nbsp = expectFail(await edit(ctx, "t.js", "return caf\u00e9;\u00a0// x", "y"), "EDIT_NO_MATCH");
    expect(nbsp).toContain('has "\u00a0" (U+00A0 no-break space)');
    const nfd = expectFail(await edit(ctx, "t.js", "return cafe\u0301;", "return tea;"), "EDIT_NO_MATCH");
    expect(nfd).toContain('has "e" (U+0065) where the file');
    expect(nfd).toContain('has "\u00e9" (U+00E9)');
    const tabs = expectFail(await edit(ctx, "t.js", "if (x) {\n    return café;\n  }x", "y"), "EDIT_NO_MATCH");
    expect(tabs).toContain("(U+0020 space)");
    expect(tabs).toContain("(U+0009 tab)");
  });
});

describe("edit: pasted prefixes and mistyped paths", () => {
  test("old_string pasted with N:hh| prefixes: refused with the clean call, which lands", async () => {
    const { ctx, snapshot } = await viewed({ "db.js": SOURCE });
    const before = await snapshot("db.js");
    const old = `${idOf(SOURCE, 7)}|  const ok = db.put(row.id, row, { fresh: true });\n${idOf(SOURCE, 8)}|  return ok;`;
    const text = expectFail(
      await edit(ctx, "db.js", old, `${idOf(SOURCE, 7)}|  const ok = db.put(row.id, row);\n${idOf(SOURCE, 8)}|  return ok;`),
      "EDIT_NO_MATCH",
    );
    expect(text).toContain('old_string carries the "N:hh|" prefixes that view prints before each line');
    expect(text).toContain("(new_string's prefixes are removed too)");
    await expectUntouched(ctx.storage, "db.js", before);
    expectOk(await call(editTool, firstCall(text, "edit"), ctx));
    expect(await readText(ctx.storage, "db.js")).toBe(SOURCE.replace("row, { fresh: true });\n  return ok;", "row);\n  return ok;"));
  });

  test("old_string pasted with prefixes and new_string prefixed on some lines only: the offered call's new_string is clean, and lands as is", async () => {
    const { ctx, snapshot } = await viewed({ "db.js": SOURCE });
    const before = await snapshot("db.js");
    const old = `${idOf(SOURCE, 7)}|  const ok = db.put(row.id, row, { fresh: true });\n${idOf(SOURCE, 8)}|  return ok;`;
    // The model pasted the two lines it read and typed a new one between them.
    const sent = `${idOf(SOURCE, 7)}|  const ok = db.put(row.id, row);\n  log(ok);\n${idOf(SOURCE, 8)}|  return ok;`;
    const text = expectFail(await edit(ctx, "db.js", old, sent), "EDIT_NO_MATCH");
    expect(text).toContain("(new_string's prefixes are removed too)");
    await expectUntouched(ctx.storage, "db.js", before);
    const offered = firstCall(text, "edit");
    expect(offered.new_string).toBe("  const ok = db.put(row.id, row);\n  log(ok);\n  return ok;");
    expect(String(offered.new_string)).not.toMatch(/\d+:[0-9a-f]{2}\|/);
    const landed = expectOk(await call(editTool, offered, ctx));
    expect(landed).not.toContain("prefixes were removed"); // nothing left to strip on the way in
    expect(await readText(ctx.storage, "db.js")).toBe(SOURCE.replace("row, { fresh: true });\n  return ok;", "row);\n  log(ok);\n  return ok;"));
  });

  test("old_string pasted with prefixes and new_string with a prefix naming another line: cleaned in the offered call, said so, and it lands", async () => {
    const { ctx, snapshot } = await viewed({ "db.js": SOURCE });
    const before = await snapshot("db.js");
    const old = `${idOf(SOURCE, 8)}|  return ok;`;
    const text = expectFail(await edit(ctx, "db.js", old, `${idOf(SOURCE, 2)}|  return ok && row;`), "EDIT_NO_MATCH");
    expect(text).toContain(
      'it is cleaned in this call too; if that text really belongs in the file, send this call with your own new_string and "verbatim": true',
    );
    await expectUntouched(ctx.storage, "db.js", before);
    const offered = firstCall(text, "edit");
    expect(offered).toEqual({ path: "db.js", old_string: "  return ok;", new_string: "  return ok && row;" });
    expectOk(await call(editTool, offered, ctx));
    expect(await readText(ctx.storage, "db.js")).toBe(SOURCE.replace("  return ok;", "  return ok && row;"));
  });

  test("old_string pasted with prefixes and new_string a pasted diff mixed with other lines: no call is offered as ready, old_string is", async () => {
    const { ctx, snapshot } = await viewed({ "db.js": SOURCE });
    const before = await snapshot("db.js");
    const old = `${idOf(SOURCE, 8)}|  return ok;`;
    const sent = `- ${idOf(SOURCE, 8)}|  return ok;\n+ 8:00|  return ok && row;\n  log(ok);`;
    const text = expectFail(await edit(ctx, "db.js", old, sent), "EDIT_NO_MATCH");
    await expectUntouched(ctx.storage, "db.js", before);
    expect(text).toContain("No call is offered ready: send old_string without the prefixes");
    expect(text).toContain('"old_string": "  return ok;"');
    expect(suggestedCalls(text)).toEqual([]);
  });

  test("a mistyped path names the similar file first, and that call lands", async () => {
    const { ctx } = await viewed({ "src/routes.ts": "const a = 1;\n" });
    const text = expectFail(await edit(ctx, "src/rotes.ts", "const a = 1;", "const a = 2;"), "FS_NOT_FOUND");
    expect(text).toStartWith(
      "`src/rotes.ts` does not exist; nothing was changed. Similar name in the same directory: `src/routes.ts`. If you meant it, send:\n" +
        'edit {"path":"src/routes.ts","old_string":"const a = 1;","new_string":"const a = 2;","replace_all":false}',
    );
    expect(await ctx.storage.stat("src/rotes.ts")).toBeNull();
    expectOk(await edit(ctx, "src/routes.ts", "const a = 1;", "const a = 2;"));
    expect(await readText(ctx.storage, "src/routes.ts")).toBe("const a = 2;\n");
  });
});
