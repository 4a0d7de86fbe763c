import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { batchEditTool } from "../../src/tools/batch-edit/run.ts";
import { editTool } from "../../src/tools/edit/run.ts";
import { writeTool } from "../../src/tools/write/run.ts";
import { asSession, makeContext, readText, seed } from "../helpers/tool-context.ts";
import { bytesOf, call, expectFail, expectFreshIds, expectOk, expectUntouched, markViewed, racingStorage, utf8 } from "../helpers/tool-mutation.ts";
import { row, view } from "../helpers/tool-view.ts";

const write = (ctx: Parameters<typeof call>[2], path: string, content: string) => call(writeTool, { path, content }, ctx);

describe("write: creating", () => {
  test("creates a new file (parents implied) without a view, byte for byte", async () => {
    const ctx = makeContext();
    const text = expectOk(await write(ctx, "src/deep/new.ts", "a\r\nb\n"));
    expect(text).toBe("Created `src/deep/new.ts` (2 lines, 5 bytes).");
    expect(await bytesOf(ctx.storage, "src/deep/new.ts")).toEqual(utf8("a\r\nb\n"));
  });

  test("records the created version: an immediate overwrite needs no view", async () => {
    const ctx = makeContext();
    expectOk(await write(ctx, "a.txt", "one\n"));
    expectOk(await write(ctx, "a.txt", "two\n"));
    expect(await readText(ctx.storage, "a.txt")).toBe("two\n");
  });

  test("a concurrent creator is never clobbered: one create wins, the other gets FS_ALREADY_EXISTS", async () => {
    const ctx = makeContext();
    const [a, b] = await Promise.all([write(asSession(ctx, "s1"), "race.txt", "from s1\n"), write(asSession(ctx, "s2"), "race.txt", "from s2\n")]);
    const winner = a.isError ? b : a;
    const loser = a.isError ? a : b;
    expectOk(winner);
    const text = expectFail(loser, "FS_ALREADY_EXISTS");
    expect(text).toContain("nothing was written and that file is intact");
    expect(text).toContain('view {"path": "race.txt"}');
    expect(await readText(ctx.storage, "race.txt")).toBe(a.isError ? "from s2\n" : "from s1\n");
  });

  test("seen missing, created by someone else since: FS_ALREADY_EXISTS and theirs intact", async () => {
    const ctx = makeContext();
    await markViewed(ctx, "late.txt"); // records absent
    const versions = await seed(ctx.storage, { "late.txt": "theirs\n" });
    const text = expectFail(await write(ctx, "late.txt", "mine\n"), "FS_ALREADY_EXISTS");
    expect(text).toContain("it did not exist when you last looked");
    await expectUntouched(ctx.storage, "late.txt", { bytes: utf8("theirs\n"), version: versions["late.txt"] });
  });
});

describe("write: overwriting under the observation policy", () => {
  test("an existing file never viewed: FS_NOT_OBSERVED with the exact view call, nothing written", async () => {
    const ctx = makeContext();
    const versions = await seed(ctx.storage, { "a.ts": "old\n" });
    const text = expectFail(await write(ctx, "a.ts", "new\n"), "FS_NOT_OBSERVED");
    expect(text).toBe(
      '`a.ts` already exists and has not been viewed in this session; write replaces the whole file, so it must be based on content you have seen — read the file, then retry: view {"path": "a.ts"}',
    );
    await expectUntouched(ctx.storage, "a.ts", { bytes: utf8("old\n"), version: versions["a.ts"] });
  });

  test("after a view: updated, with a diff whose ids are the new file's", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "a.ts": "one\ntwo\nthree\nfour\n" });
    await markViewed(ctx, "a.ts");
    const text = expectOk(await write(ctx, "a.ts", "one\nTWO\nthree\nfour\nfive\n"));
    expect(text.split("\n")[0]).toBe("Updated `a.ts`: 4 -> 5 lines.");
    expect(text).toContain("- 2:");
    expect(text).toContain("+ 2:");
    expectFreshIds(text, "one\nTWO\nthree\nfour\nfive\n");
  });

  test("changed by another session since the view: FS_STALE_VERSION, their content kept", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "a.ts": "v1\n" });
    await markViewed(ctx, "a.ts");
    const versions = await seed(ctx.storage, { "a.ts": "v2 by someone else\n" });
    const text = expectFail(await write(ctx, "a.ts", "mine\n"), "FS_STALE_VERSION");
    expect(text).toContain('— re-read the file, then retry: view {"path": "a.ts"}');
    await expectUntouched(ctx.storage, "a.ts", { bytes: utf8("v2 by someone else\n"), version: versions["a.ts"] });
  });

  test("a race lost between read and write is FS_STALE_VERSION too (the CAS, not the pre-check, decides)", async () => {
    const memory = createMemoryStorage();
    await seed(memory, { "a.ts": "v1\n" });
    const ctx = makeContext({
      storage: racingStorage(memory, async (path, n) => {
        if (n === 1) await memory.write(path, utf8("sneaked in\n"));
      }),
    });
    await markViewed(ctx, "a.ts");
    expectFail(await write(ctx, "a.ts", "mine\n"), "FS_STALE_VERSION");
    expect(await readText(ctx.storage, "a.ts")).toBe("sneaked in\n");
  });

  test("viewed, then deleted: refused once (FS_STALE_VERSION), absence recorded, the retry creates", async () => {
    const memory = createMemoryStorage();
    const ctx = makeContext({ storage: memory });
    await seed(memory, { "gone.txt": "x\n" });
    await markViewed(ctx, "gone.txt");
    await memory.delete("gone.txt");
    const text = expectFail(await write(ctx, "gone.txt", "back\n"), "FS_STALE_VERSION");
    expect(text).toContain("was deleted after you viewed it");
    expect(text).toContain("writing again will create it");
    expect(await ctx.storage.stat("gone.txt")).toBeNull();
    expect(await ctx.observations.get("test-session", "gone.txt")).toEqual({ kind: "absent" });
    expect(expectOk(await write(ctx, "gone.txt", "back\n"))).toStartWith("Created `gone.txt`");
    expect(await readText(ctx.storage, "gone.txt")).toBe("back\n");
  });

  test("identical content: says so and writes nothing", async () => {
    const ctx = makeContext();
    const versions = await seed(ctx.storage, { "a.ts": "same\r\n" });
    await markViewed(ctx, "a.ts");
    // LF content for a CRLF file: with the file's style applied, the bytes are the same.
    expect(expectOk(await write(ctx, "a.ts", "same\n"))).toBe("`a.ts` already has exactly this content; nothing was written.");
    await expectUntouched(ctx.storage, "a.ts", { bytes: utf8("same\r\n"), version: versions["a.ts"] });
  });

  test("a directory is FS_IS_DIRECTORY; a path outside the workspace FS_INVALID_PATH", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "dir/a.txt": "x" });
    expectFail(await write(ctx, "dir", "y"), "FS_IS_DIRECTORY");
    expectFail(await write(ctx, "../etc/passwd", "y"), "FS_INVALID_PATH");
  });

  test("an old file that is not text is replaced (viewed version), without a diff", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "blob.bin": new Uint8Array([0, 1, 2, 0xff]) });
    await markViewed(ctx, "blob.bin");
    expect(expectOk(await write(ctx, "blob.bin", "text now\n"))).toContain("its old content was not UTF-8 text");
    expect(await readText(ctx.storage, "blob.bin")).toBe("text now\n");
  });

  test("the diff of a big rewrite is bounded and says what to view", async () => {
    const ctx = makeContext();
    const old = `${Array.from({ length: 1000 }, (_, i) => `line ${i}`).join("\n")}\n`;
    await seed(ctx.storage, { "big.txt": old });
    await markViewed(ctx, "big.txt");
    const text = expectOk(await write(ctx, "big.txt", old.replaceAll("line", "row")));
    expect(text.split("\n").length).toBeLessThan(210);
    expect(text).toMatch(/more diff lines not shown; view lines \d+-1000/);
  });
});

describe("write: line endings, BOM and final newline", () => {
  async function overwrite(before: string | Uint8Array, content: string): Promise<Uint8Array> {
    const ctx = makeContext();
    await seed(ctx.storage, { f: before });
    await markViewed(ctx, "f");
    expectOk(await write(ctx, "f", content));
    return bytesOf(ctx.storage, "f");
  }

  test("a CRLF file stays CRLF when the model sends LF", async () => {
    expect(await overwrite("a\r\nb\r\n", "a\nB\nc\n")).toEqual(utf8("a\r\nB\r\nc\r\n"));
  });

  test("a mixed file keeps each unchanged line's own ending; new lines take the dominant one", async () => {
    // dominant CRLF (2 of 3); line 2 is LF and unchanged, so it stays LF.
    expect(await overwrite("a\r\nb\nc\r\n", "a\nb\nX\nc\n")).toEqual(utf8("a\r\nb\nX\r\nc\r\n"));
  });

  test("an LF file stays LF even if the content has CRLF", async () => {
    expect(await overwrite("a\nb\n", "a\r\nc\r\n")).toEqual(utf8("a\nc\n"));
  });

  test("a BOM is kept, and a content starting with U+FEFF does not get a second one", async () => {
    const bom = [0xef, 0xbb, 0xbf];
    expect(await overwrite(new Uint8Array([...bom, ...utf8("a\n")]), "b\n")).toEqual(new Uint8Array([...bom, ...utf8("b\n")]));
    expect(await overwrite(new Uint8Array([...bom, ...utf8("a\n")]), "\ufeffb\n")).toEqual(new Uint8Array([...bom, ...utf8("b\n")]));
  });

  test("the final newline follows the content", async () => {
    expect(await overwrite("a\nb", "a\nc")).toEqual(utf8("a\nc"));
    expect(await overwrite("a\nb", "a\nc\n")).toEqual(utf8("a\nc\n"));
    expect(await overwrite("a\r\nb\r\n", "a\nc")).toEqual(utf8("a\r\nc"));
    expect(await overwrite("a\r\nb", "a\nb\nc\n")).toEqual(utf8("a\r\nb\r\nc\r\n"));
  });

  test("a file with no terminated line gives no style: the content's bytes are written", async () => {
    expect(await overwrite("single", "x\r\ny\n")).toEqual(utf8("x\r\ny\n"));
    expect(await overwrite("", "x\r\n")).toEqual(utf8("x\r\n"));
  });

  test("the result names the kept style", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { f: "a\r\nb\r\n" });
    await markViewed(ctx, "f");
    expect(expectOk(await write(ctx, "f", "a\nc\n"))).toContain(
      'Line endings: kept the file\'s CRLF line endings (to convert the file to LF, send the same write with "verbatim": true).',
    );
  });
});

describe("write: style properties", () => {
  const line = fc.constantFrom("a", "b", "c", "", "  d", "}");
  const eol = fc.constantFrom("\n", "\r\n");
  // Full length: fast-check's default size stops at 10 lines.
  const file = fc.array(fc.tuple(line, eol), { minLength: 1, maxLength: 30, size: "max" }).chain((pairs) =>
    fc.boolean().map((finalNewline) => {
      const text = pairs.map(([l, e]) => l + e).join("");
      return finalNewline ? text : text.replace(/\r?\n$/, "");
    }),
  );

  test("the written file reads back as exactly the content's lines, ending as the content ends", async () => {
    await fc.assert(
      fc.asyncProperty(file, fc.array(line, { maxLength: 30, size: "max" }), fc.boolean(), async (old, lines, finalNewline) => {
        const content = lines.join("\n") + (finalNewline && lines.length > 0 ? "\n" : "");
        const ctx = makeContext();
        await seed(ctx.storage, { f: old });
        await markViewed(ctx, "f");
        const result = await write(ctx, "f", content);
        expect(result.isError).toBe(false);
        const written = await readText(ctx.storage, "f");
        expect(written.split(/\r?\n/)).toEqual(content.split("\n"));
      }),
      { numRuns: 200 },
    );
  });

  test("writing a file's own text back in LF leaves every byte as it was (mixed endings included)", async () => {
    await fc.assert(
      fc.asyncProperty(file, async (old) => {
        const ctx = makeContext();
        await seed(ctx.storage, { f: old });
        await markViewed(ctx, "f");
        const result = await write(ctx, "f", old.replaceAll("\r\n", "\n"));
        expect(result.isError).toBe(false);
        expect(await readText(ctx.storage, "f")).toBe(old);
      }),
      { numRuns: 200 },
    );
  });
});

/** The call a message offers on its line starting with `tool `: the JSON after it, parsed. */
function offered(text: string, tool: string): Record<string, unknown> {
  const line = text.split("\n").find((l) => l.startsWith(`${tool} {`));
  if (!line) throw new Error(`no ${tool} call offered in:\n${text}`);
  return JSON.parse(line.slice(tool.length + 1)) as Record<string, unknown>;
}

/** A file seeded and viewed with the real view tool; its view text, and its bytes and version to compare after a refusal. */
async function viewedFile(path: string, content: string | Uint8Array, limits?: Parameters<typeof makeContext>[0]) {
  const ctx = makeContext(limits);
  await seed(ctx.storage, { [path]: content });
  const shown = await view(ctx, { path });
  expectOk(shown.result);
  return { ctx, view: shown.text, before: await ctx.storage.read(path) };
}

describe("write: a pasted view header and footers (bug: written into the file)", () => {
  test("ids current: the header goes with the prefixes, the note says so, and the file holds only the lines", async () => {
    const { ctx, view: shown } = await viewedFile("p.ts", "const a = 1;\nconst b = 2;\n");
    expect(shown.split("\n")[0]).toBe("[p.ts: 2 lines]");
    const text = expectOk(await write(ctx, "p.ts", `${shown.replace("|const b = 2;", "|const b = 4;")}\n`));
    expect(text).toContain('1 line around them ("[p.ts: 2 lines]") is what view prints around its lines');
    expect(text).toContain("the prefixes were removed");
    expect(await readText(ctx.storage, "p.ts")).toBe("const a = 1;\nconst b = 4;\n");
  });

  test("ids not current: refused, nothing written; the cleaned call has no header and lands as meant", async () => {
    const { ctx, before } = await viewedFile("p.ts", "const a = 1;\nconst b = 2;\n");
    const content = `[p.ts: 2 lines]\n${row(1, "const a = 1;")}\n${row(2, "const b = 3;")}\n`.replace("|const b = 3;", "|const b = 4;");
    const text = expectFail(await write(ctx, "p.ts", content), "INVALID_ARGUMENT");
    await expectUntouched(ctx.storage, "p.ts", before);
    const again = offered(text, "write");
    expect(again).toEqual({ path: "p.ts", content: "const a = 1;\nconst b = 4;\n" });
    expectOk(await call(writeTool, again, ctx));
    expect(await readText(ctx.storage, "p.ts")).toBe("const a = 1;\nconst b = 4;\n");
  });

  test("a header-shaped line in a file that is not a paste is written as sent", async () => {
    const ctx = makeContext();
    expectOk(await write(ctx, "notes.txt", "[p.ts: 2 lines]\nplain text\n"));
    expect(await readText(ctx.storage, "notes.txt")).toBe("[p.ts: 2 lines]\nplain text\n");
  });

  test("a header among lines of the model's own and a row: refused with no call offered, nothing written", async () => {
    const { ctx, before } = await viewedFile("p.ts", "const a = 1;\nconst b = 2;\n");
    const content = `[p.ts: 2 lines]\n${row(1, "const a = 1;")}\nconst c = 5;\n`;
    const text = expectFail(await write(ctx, "p.ts", content), "INVALID_ARGUMENT");
    expect(text).toContain("no cleaned call is offered");
    expect(text).toContain('"[p.ts: 2 lines]") sits among lines that are not rows');
    expect(text.split("\n").some((l) => l.startsWith("write {"))).toBe(false);
    await expectUntouched(ctx.storage, "p.ts", before);
  });

  test("a cut view pasted whole: refused; the offered batch_edit replaces only the lines shown", async () => {
    const source = `${Array.from({ length: 7 }, (_, i) => `line ${i + 1}`).join("\n")}\n`;
    const { ctx, view: shown, before } = await viewedFile("s.ts", source, { limits: { maxViewLines: 4 } });
    expectOk((await view(ctx, { path: "s.ts", start: 5 })).result);
    expect(shown).toContain("[cut at line 4 by the 4-line limit");
    const text = expectFail(await write(ctx, "s.ts", `${shown.replace("|line 2", "|LINE 2")}\n`), "INVALID_ARGUMENT");
    expect(text).toContain("the pasted view shows only part of the file (lines 1-4 of 7)");
    await expectUntouched(ctx.storage, "s.ts", before);
    expect(offered(text, "write")).toEqual({ path: "s.ts", content: "line 1\nLINE 2\nline 3\nline 4\n" });
    expectOk(await call(batchEditTool, offered(text, "batch_edit"), ctx));
    expect(await readText(ctx.storage, "s.ts")).toBe(source.replace("line 2", "LINE 2"));
  });

  test("a cut view pasted whole: the offered write, when meant, leaves exactly the lines shown", async () => {
    const source = `${Array.from({ length: 7 }, (_, i) => `line ${i + 1}`).join("\n")}\n`;
    const { ctx, view: shown } = await viewedFile("s.ts", source, { limits: { maxViewLines: 4 } });
    expectOk((await view(ctx, { path: "s.ts", start: 5 })).result);
    const text = expectFail(await write(ctx, "s.ts", `${shown}\n`), "INVALID_ARGUMENT");
    expectOk(await call(writeTool, offered(text, "write"), ctx));
    expect(await readText(ctx.storage, "s.ts")).toBe("line 1\nline 2\nline 3\nline 4\n");
  });

  test("two ranged views pasted one after the other cover the file: stripped, every view line left out", async () => {
    const source = `${Array.from({ length: 7 }, (_, i) => `line ${i + 1}`).join("\n")}\n`;
    const { ctx, view: first } = await viewedFile("s.ts", source, { limits: { maxViewLines: 4 } });
    const second = (await view(ctx, { path: "s.ts", start: 5 })).text;
    expect(second.split("\n")[0]).toBe("[s.ts: lines 5-7 of 7]");
    expectOk(await write(ctx, "s.ts", `${first}\n${second.replace("|line 6", "|LINE 6")}\n`));
    expect(await readText(ctx.storage, "s.ts")).toBe(source.replace("line 6", "LINE 6"));
  });

  test("a new file from an unclear paste: refused with no call, and no edit to suggest", async () => {
    const ctx = makeContext();
    const text = expectFail(await write(ctx, "new.ts", `- ${row(2, "const b = 2;")}\n`), "INVALID_ARGUMENT");
    expect(text).toContain("no cleaned call is offered");
    expect(text).not.toContain("batch_edit");
    expect(await ctx.storage.stat("new.ts")).toBeNull();
  });

  test("a line view showed shortened is written whole, as the file has it (never the shortened text)", async () => {
    const long = `${"x".repeat(30)}END`;
    const { ctx, view: shown } = await viewedFile("s.ts", `a\n${long}\nb\n`, { limits: { maxLineChars: 10 } });
    expect(shown).toContain("… [line truncated: 33 chars total]");
    const text = expectOk(await write(ctx, "s.ts", `${shown.replace("|b", "|B")}\n`));
    expect(text).toContain("line 2, shown shortened");
    expect(await readText(ctx.storage, "s.ts")).toBe(`a\n${long}\nB\n`);
  });

  test("a shortened line whose visible part was edited: refused with no call, nothing written", async () => {
    const long = `${"x".repeat(30)}END`;
    const { ctx, view: shown, before } = await viewedFile("s.ts", `a\n${long}\nb\n`, { limits: { maxLineChars: 10 } });
    const text = expectFail(await write(ctx, "s.ts", `${shown.replace("|xxxx", "|yxxx")}\n`), "INVALID_ARGUMENT");
    expect(text).toContain("line 2 was shown shortened");
    expect(text).toContain("no cleaned call is offered");
    expect(text.split("\n").some((l) => l.startsWith("write {"))).toBe(false);
    await expectUntouched(ctx.storage, "s.ts", before);
  });
});

describe("write: a pasted result diff (bug: the cleaned call kept the removed lines)", () => {
  test("the tester's paste: refused; the cleaned call keeps context and + lines only, and lands as meant", async () => {
    const { ctx, before } = await viewedFile("p.ts", "const a = 1;\nconst b = 2;\n");
    const content = `  ${row(1, "const a = 1;")}\n- ${row(2, "const b = 2;")}\n+ ${row(2, "const b = 3;")}\n`;
    const text = expectFail(await write(ctx, "p.ts", content), "INVALID_ARGUMENT");
    expect(text).toContain('whose "- N:hh|" line is a line the change removed');
    await expectUntouched(ctx.storage, "p.ts", before);
    const again = offered(text, "write");
    expect(again).toEqual({ path: "p.ts", content: "const a = 1;\nconst b = 3;\n" });
    expectOk(await call(writeTool, again, ctx));
    expect(await readText(ctx.storage, "p.ts")).toBe("const a = 1;\nconst b = 3;\n");
  });

  test("an edit's real result diff pasted back with a change: never stripped (it has - lines); the cleaned call lands", async () => {
    const { ctx } = await viewedFile("p.ts", "const a = 1;\nconst b = 2;\nconst c = 3;\n");
    const edited = expectOk(await call(editTool, { path: "p.ts", old_string: "const b = 2;", new_string: "const b = 20;" }, ctx));
    const diff = edited.split("\n").slice(1).join("\n");
    expect(diff).toStartWith("@@ ");
    expect(diff).toContain("- 2:");
    const before = await ctx.storage.read("p.ts");
    const text = expectFail(await write(ctx, "p.ts", `${diff.replace("|const c = 3;", "|const c = 30;")}\n`), "INVALID_ARGUMENT");
    await expectUntouched(ctx.storage, "p.ts", before);
    expectOk(await call(writeTool, offered(text, "write"), ctx));
    expect(await readText(ctx.storage, "p.ts")).toBe("const a = 1;\nconst b = 20;\nconst c = 30;\n");
  });

  test("context and + rows only, every id current: stripped with the hunk header, as a view paste is", async () => {
    const { ctx } = await viewedFile("p.ts", "const a = 1;\nconst b = 3;\n");
    const content = `@@ -1,2 +1,2 @@\n  ${row(1, "const a = 1;")}\n+ ${row(2, "const b = 3;")}\n`.replace("|const b = 3;", "|const b = 5;");
    const text = expectOk(await write(ctx, "p.ts", content));
    expect(text).toContain("a result diff's hunk header");
    expect(await readText(ctx.storage, "p.ts")).toBe("const a = 1;\nconst b = 5;\n");
  });

  test("a diff mixed with lines of the model's own: refused with no call, nothing written", async () => {
    const { ctx, before } = await viewedFile("p.ts", "const a = 1;\nconst b = 2;\n");
    const content = `  ${row(1, "const a = 1;")}\n- ${row(2, "const b = 2;")}\nconst b = 9;\n`;
    const text = expectFail(await write(ctx, "p.ts", content), "INVALID_ARGUMENT");
    expect(text).toContain("no cleaned call is offered");
    await expectUntouched(ctx.storage, "p.ts", before);
  });
});

describe("write: the final newline and the BOM are said when they change (bug: reported as no change)", () => {
  test("removed: a note, the bytes as sent; keeping it as the note says changes nothing more", async () => {
    const { ctx } = await viewedFile("fn.txt", "a\nb\n");
    const result = await write(ctx, "fn.txt", "a\nb");
    const text = expectOk(result);
    expect(text).toBe(
      'Updated `fn.txt`: 2 -> 2 lines.\nNote: the file no longer ends with a newline (it had one before this write), because content does not end with "\\n"; to keep it, end content with "\\n".',
    );
    expect(await readText(ctx.storage, "fn.txt")).toBe("a\nb");
    // The line ids are unchanged, so no range changed; the new version says the bytes did.
    expect(result.facts?.changes).toEqual([]);
    expectOk(await write(ctx, "fn.txt", "a\nb\n"));
    expect(await readText(ctx.storage, "fn.txt")).toBe("a\nb\n");
  });

  test("added: a note", async () => {
    const { ctx } = await viewedFile("fn.txt", "a\nb");
    expect(expectOk(await write(ctx, "fn.txt", "a\nb\n"))).toContain("Note: the file now ends with a newline (it had none before this write)");
    expect(await readText(ctx.storage, "fn.txt")).toBe("a\nb\n");
  });

  test("with other changes too, and on a BOM + CRLF file", async () => {
    const { ctx } = await viewedFile("w.txt", new Uint8Array([0xef, 0xbb, 0xbf, ...utf8("a\r\nb\r\n")]));
    const text = expectOk(await write(ctx, "w.txt", "a\nc"));
    expect(text).toContain("Note: the file no longer ends with a newline");
    expect(text).toContain(
      'Line endings: kept the file\'s CRLF line endings (to convert the file to LF, send the same write with "verbatim": true); kept its byte-order mark.',
    );
    expect(await bytesOf(ctx.storage, "w.txt")).toEqual(new Uint8Array([0xef, 0xbb, 0xbf, ...utf8("a\r\nc")]));
    const { ctx: ctx2 } = await viewedFile("w.txt", new Uint8Array([0xef, 0xbb, 0xbf, ...utf8("a\r\nb\r\n")]));
    expect(expectOk(await write(ctx2, "w.txt", "a\nb"))).toContain("Note: the file no longer ends with a newline");
    expect(await bytesOf(ctx2.storage, "w.txt")).toEqual(new Uint8Array([0xef, 0xbb, 0xbf, ...utf8("a\r\nb")]));
  });

  test("a BOM added by content starting with U+FEFF: a note", async () => {
    const { ctx } = await viewedFile("b.txt", "a\n");
    expect(expectOk(await write(ctx, "b.txt", "\ufeffa\n"))).toContain(
      "Note: the file now starts with a UTF-8 byte-order mark (it had none before this write)",
    );
    expect(await bytesOf(ctx.storage, "b.txt")).toEqual(new Uint8Array([0xef, 0xbb, 0xbf, ...utf8("a\n")]));
  });

  test("no note when the state stays, or for an empty file", async () => {
    const { ctx } = await viewedFile("n.txt", "a\n");
    expect(expectOk(await write(ctx, "n.txt", "b\n"))).not.toContain("Note:");
    expect(expectOk(await write(ctx, "n.txt", ""))).not.toContain("Note:");
    expect(expectOk(await write(ctx, "n.txt", "c"))).not.toContain("Note:");
  });
});

describe("write after a partial view of a long file", () => {
  test("the views it asks for each fit in one view, and after them the write lands", async () => {
    const ctx = makeContext({ limits: { maxViewLines: 100 } });
    const before = `${Array.from({ length: 450 }, (_, i) => `line ${i + 1}`).join("\n")}\n`;
    await seed(ctx.storage, { "long.txt": before });
    await view(ctx, { path: "long.txt", start: 1, end: 10 });
    const text = expectFail(await write(ctx, "long.txt", "short\n"), "FS_NOT_OBSERVED");
    const asked = [...text.matchAll(/view (\{[^\n]*\})/g)].map((m) => JSON.parse(m[1]) as { start: number; end: number });
    expect(asked.map((a) => [a.start, a.end])).toEqual([
      [11, 110],
      [111, 210],
      [211, 310],
      [311, 410],
    ]);
    expect(text).toContain("and 1 more views of up to 100 lines (a view prints at most 100), from line 411 on");
    for (const a of asked) await view(ctx, { path: "long.txt", ...a });
    await view(ctx, { path: "long.txt", start: 411, end: 450 });
    expectOk(await write(ctx, "long.txt", "short\n"));
    expect(await readText(ctx.storage, "long.txt")).toBe("short\n");
  });
});

describe("write with a pasted result diff", () => {
  test("a diff that shows a window of the file is not offered as the whole file: refused with no cleaned write, nothing written", async () => {
    const text = `${Array.from({ length: 30 }, (_, i) => `const v${i + 1} = ${i + 1};`).join("\n")}\n`;
    const ctx = makeContext();
    await seed(ctx.storage, { "v.ts": text });
    await view(ctx, { path: "v.ts" });
    const diff = expectOk(await call(editTool, { path: "v.ts", old_string: "const v10 = 10;", new_string: "const v10 = 100;" }, ctx));
    const before = { bytes: await bytesOf(ctx.storage, "v.ts"), version: (await ctx.storage.stat("v.ts"))!.version! };
    const pasted = `${diff.split("\n").slice(1).join("\n")}\n`;
    expect(pasted).toContain("@@ ");
    const refusal = expectFail(await write(ctx, "v.ts", pasted), "INVALID_ARGUMENT");
    expect(refusal).not.toContain("Send the cleaned call");
    await expectUntouched(ctx.storage, "v.ts", before);
  });
});
