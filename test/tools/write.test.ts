import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { writeTool } from "../../src/tools/write/run.ts";
import { asSession, makeContext, readText, seed } from "../helpers/tool-context.ts";
import { bytesOf, call, expectFail, expectFreshIds, expectOk, expectUntouched, markViewed, racingStorage, utf8 } from "../helpers/tool-mutation.ts";

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
    expect(expectOk(await write(ctx, "f", "a\nc\n"))).toContain("Line endings: kept the file's CRLF line endings.");
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
