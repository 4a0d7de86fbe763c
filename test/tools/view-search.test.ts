import { describe, expect, test } from "bun:test";
import { MAX_SHOWN_MATCHES, PER_FILE_MATCHES } from "../../src/tools/view/search.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import type { ReadOptions } from "../../src/storage/types.ts";
import { makeContext, seed } from "../helpers/tool-context.ts";
import { id, row, view } from "../helpers/tool-view.ts";

const APP = ["import x from 'y';", "const a = 1;", "const foo = 2;", "", "export function main() {", "  return foo + a;", "}"];
const UTIL = ["export const foo = 'FOO';", "export const bar = 1;"];

async function project() {
  const ctx = makeContext();
  const versions = await seed(ctx.storage, {
    "src/app.ts": `${APP.join("\n")}\n`,
    "src/lib/util.ts": `${UTIL.join("\r\n")}\r\n`,
    "src/logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]),
    "src/.env": "foo=1\n",
    "README.md": "# Title\nfoo here\nno newline",
    ".gitignore": "dist/\n",
    "dist/out.js": "foo()\n",
  });
  return { ctx, versions };
}

/** Matching rows of a search output (with or without the context marker). */
function idRows(text: string): string[] {
  return text.split("\n").filter((l) => /^(?:> | {2})?\d+:[0-9a-f]{2}\|/.test(l));
}

describe("view search: output format", () => {
  test("a directory search groups rows under each file's path and counts what it searched and skipped", async () => {
    const { ctx } = await project();
    const out = await view(ctx, { path: ".", content: "foo" });
    expect(out.result.isError).toBe(false);
    expect(out.text).toBe(
      [
        '[search "foo" (literal, case-sensitive) in ./: 4 matching lines in 3 files; 3 files searched]',
        '[not searched: 2 hidden (add "hidden": true), 1 gitignored (add "gitignore": false)]',
        "[skipped: 1 binary or non-UTF-8 file]",
        "README.md (1 matching line)",
        row(2, "foo here"),
        "",
        "src/app.ts (2 matching lines)",
        row(3, APP[2]),
        "--",
        row(6, APP[5]),
        "",
        "src/lib/util.ts (1 matching line)",
        row(1, UTIL[0]),
      ].join("\n"),
    );
  });

  test("context rows are marked apart from matches; windows that touch merge, others are separated by --", async () => {
    const ctx = makeContext();
    const lines = ["a", "hit 1", "b", "c", "hit 2", "d", "e", "f", "g", "hit 3", "h"];
    await seed(ctx.storage, { "f.txt": `${lines.join("\n")}\n` });
    const out = await view(ctx, { path: "f.txt", content: "hit", context: 1 });
    expect(out.text).toBe(
      [
        '[search "hit" (literal, case-sensitive) in f.txt (11 lines): 3 matching lines; > marks matching lines]',
        "f.txt (3 matching lines)",
        `  ${row(1, "a")}`,
        `> ${row(2, "hit 1")}`,
        `  ${row(3, "b")}`,
        `  ${row(4, "c")}`,
        `> ${row(5, "hit 2")}`,
        `  ${row(6, "d")}`,
        "--",
        `  ${row(9, "g")}`,
        `> ${row(10, "hit 3")}`,
        `  ${row(11, "h")}`,
      ].join("\n"),
    );
  });

  test("a match inside another match's context is shown once, marked as a match", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "f.txt": "x\nhit\nhit\ny\n" });
    const out = await view(ctx, { path: "f.txt", content: "hit", context: 2 });
    expect(idRows(out.text)).toEqual([`  ${row(1, "x")}`, `> ${row(2, "hit")}`, `> ${row(3, "hit")}`, `  ${row(4, "y")}`]);
  });

  test("no match says so in words, with what was searched and what to try", async () => {
    const { ctx } = await project();
    expect((await view(ctx, { path: "src", content: "zzz" })).text).toBe(
      [
        '[search "zzz" (literal, case-sensitive) in src/: no match in 2 files searched]',
        '[not searched: 1 hidden (add "hidden": true)]',
        "[skipped: 1 binary or non-UTF-8 file]",
        '[nothing matched. Try "case_sensitive": false, or a shorter "content"]',
      ].join("\n"),
    );
    expect((await view(ctx, { path: "src/app.ts", content: "foo.*main" })).text).toBe(
      [
        '[search "foo.*main" (literal, case-sensitive) in src/app.ts (7 lines): no match]',
        '[nothing matched. Try "case_sensitive": false, or "regex": true if content is a pattern, or a shorter "content"]',
      ].join("\n"),
    );
  });
});

describe("view search: matching", () => {
  test("literal search takes regex characters literally", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "f.txt": "a.b\naxb\n(a+)\n" });
    expect(idRows((await view(ctx, { path: "f.txt", content: "a.b" })).text)).toEqual([row(1, "a.b")]);
    expect(idRows((await view(ctx, { path: "f.txt", content: "(a+)" })).text)).toEqual([row(3, "(a+)")]);
  });

  test("case_sensitive: false folds case", async () => {
    const { ctx } = await project();
    const out = await view(ctx, { path: "src/lib/util.ts", content: "BAR", case_sensitive: false });
    expect(out.text.split("\n")[0]).toBe('[search "BAR" (literal, case-insensitive) in src/lib/util.ts (2 lines): 1 matching line]');
    expect(idRows(out.text)).toEqual([row(2, UTIL[1])]);
  });

  test("regex: RE2 per line; ^ and $ anchor each line, also before a CRLF ending", async () => {
    const { ctx } = await project();
    const out = await view(ctx, { path: "src", content: "^export const \\w+ = \\d;$", regex: true });
    expect(out.text.split("\n")[0]).toBe(
      '[search "^export const \\\\w+ = \\\\d;$" (regex, case-sensitive) in src/: 1 matching line in 1 file; 2 files searched]',
    );
    expect(idRows(out.text)).toEqual([row(2, UTIL[1])]);
    const ci = await view(ctx, { path: "src/app.ts", content: "^CONST", regex: true, case_sensitive: false });
    expect(idRows(ci.text)).toEqual([row(2, APP[1]), row(3, APP[2])]);
  });

  test("a regex never matches across lines (grep semantics)", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "f.txt": "foo\nbar\n" });
    const out = await view(ctx, { path: "f.txt", content: "foo\\s+bar", regex: true });
    expect(out.text.split("\n")[0]).toBe('[search "foo\\\\s+bar" (regex, case-sensitive) in f.txt (2 lines): no match]');
  });

  test("a literal with a newline finds a block, whatever the file's line endings; every covered line matches", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "lf.txt": "a\nfoo\nbar\nb\n", "crlf.txt": "a\r\nfoo\r\nbar\r\nb\r\n" });
    for (const path of ["lf.txt", "crlf.txt"]) {
      const out = await view(ctx, { path, content: "foo\nbar" });
      expect(idRows(out.text)).toEqual([row(2, "foo"), row(3, "bar")]);
    }
    const crlfNeedle = await view(ctx, { path: "lf.txt", content: "oo\r\nba" });
    expect(idRows(crlfNeedle.text)).toEqual([row(2, "foo"), row(3, "bar")]);
  });

  test("the regex bomb (a+)+$ against a 100k-character line answers correctly (RE2 is linear)", async () => {
    const ctx = makeContext();
    const bomb = `${"a".repeat(100_000)}b`;
    const plain = "a".repeat(100_000);
    await seed(ctx.storage, { "bomb.txt": `${bomb}\n${plain}\nxaaa\nb\n` });
    const out = await view(ctx, { path: "bomb.txt", content: "(a+)+$", regex: true });
    expect(out.text).toBe(
      [
        '[search "(a+)+$" (regex, case-sensitive) in bomb.txt (4 lines): 2 matching lines]',
        "bomb.txt (2 matching lines)",
        `${id(2, plain)}|${"a".repeat(2000)}… [line truncated: 100000 chars total]`,
        row(3, "xaaa"),
      ].join("\n"),
    );
  });

  test("a long matching line is shown around its match, with its id over the whole line", async () => {
    const ctx = makeContext({ limits: { maxLineChars: 40 } });
    const line = `${"x".repeat(100)}NEEDLE${"y".repeat(100)}`;
    await seed(ctx.storage, { "min.js": `${line}\n` });
    const out = await view(ctx, { path: "min.js", content: "NEEDLE" });
    expect(idRows(out.text)).toEqual([`${id(1, line)}|…${"x".repeat(10)}NEEDLE${"y".repeat(24)}… [line shortened: characters 91-130 of 206 shown]`]);
  });

  test("an invalid regex is INVALID_ARGUMENT with RE2's reason and the literal way out", async () => {
    const { ctx } = await project();
    const out = await view(ctx, { path: ".", content: "foo(", regex: true });
    expect(out.result.code).toBe("INVALID_ARGUMENT");
    expect(out.text).toBe(
      "content is not a valid regular expression: error parsing regexp: missing closing ): `foo(`. " +
        'The syntax is RE2 (no lookaround or backreferences). Fix the pattern, or leave out "regex" to search for the text literally.',
    );
    const look = await view(ctx, { path: ".", content: "(?=x)", regex: true });
    expect(look.text).toStartWith("content is not a valid regular expression: error parsing regexp: invalid or unsupported Perl syntax: `(?=`.");
  });

  test("empty content is refused by the schema", async () => {
    const { ctx } = await project();
    const out = await view(ctx, { path: ".", content: "" });
    expect(out.result.code).toBe("INVALID_ARGUMENT");
    expect(out.text).toContain("content must not be empty");
  });
});

describe("view search: scope", () => {
  test("a directory search honours pattern, hidden and gitignore like a listing", async () => {
    const { ctx } = await project();
    const onlyMd = await view(ctx, { path: ".", content: "foo", pattern: "*.md" });
    expect(onlyMd.text.split("\n")[0]).toBe('[search "foo" (literal, case-sensitive) in ./: 1 matching line in 1 file; 1 file searched]');
    const everything = await view(ctx, { path: ".", content: "foo", hidden: true, gitignore: false });
    expect(everything.text.split("\n")[0]).toBe('[search "foo" (literal, case-sensitive) in ./: 6 matching lines in 5 files; 6 files searched]');
    expect(everything.text).toContain("dist/out.js (1 matching line)");
    expect(everything.text).toContain("src/.env (1 matching line)");
  });

  test("a file search uses start/end to search part of the file", async () => {
    const { ctx } = await project();
    const out = await view(ctx, { path: "src/app.ts", content: "foo", start: 4 });
    expect(out.text).toBe(
      ['[search "foo" (literal, case-sensitive) in src/app.ts lines 4-7 of 7: 1 matching line]', "src/app.ts (1 matching line)", row(6, APP[5])].join("\n"),
    );
  });

  test("files too large to search are counted, and a single one is FS_TOO_LARGE", async () => {
    const ctx = makeContext({ limits: { maxFileBytes: 4 } });
    await seed(ctx.storage, { "d/big.txt": "foo foo foo foo foo\n", "d/small.txt": "foo\n" });
    const out = await view(ctx, { path: "d", content: "foo" });
    expect(out.text.split("\n").slice(0, 2)).toEqual([
      '[search "foo" (literal, case-sensitive) in d/: 1 matching line in 1 file; 1 file searched]',
      "[skipped: 1 file too large to search]",
    ]);
    const single = await view(ctx, { path: "d/big.txt", content: "foo" });
    expect(single.result.code).toBe("FS_TOO_LARGE");
  });

  test("searching a binary or non-UTF-8 file is FS_NOT_TEXT", async () => {
    const { ctx } = await project();
    const out = await view(ctx, { path: "src/logo.png", content: "PNG" });
    expect(out.result.code).toBe("FS_NOT_TEXT");
    expect(out.text).toStartWith("`src/logo.png` is a binary file (it contains NUL bytes): NUL byte at offset 4");
  });
});

describe("view search: bounds", () => {
  test("a single-file search shows at most MAX_SHOWN_MATCHES and its continuation shows exactly the rest", async () => {
    const ctx = makeContext();
    const total = MAX_SHOWN_MATCHES + 50;
    const lines = Array.from({ length: total * 2 }, (_, i) => (i % 2 === 0 ? `hit ${i / 2}` : `other ${i}`));
    await seed(ctx.storage, { "many.txt": `${lines.join("\n")}\n` });
    const first = await view(ctx, { path: "many.txt", content: "hit" });
    const firstRows = idRows(first.text);
    expect(firstRows).toHaveLength(MAX_SHOWN_MATCHES);
    const lastShown = 2 * MAX_SHOWN_MATCHES - 1;
    const call = `view {"path": "many.txt", "content": "hit", "start": ${lastShown + 2}}`;
    expect(first.text).toContain(`[50 more matching lines in this file: ${call}]`);
    expect(first.text.split("\n").at(-1)).toBe(
      `[showing ${MAX_SHOWN_MATCHES} of ${total} matching lines; 50 not shown. Narrow it: a more specific "content", or "start"/"end" to search part of the file]`,
    );
    const rest = await view(ctx, JSON.parse(call.slice("view ".length)));
    const restRows = idRows(rest.text);
    expect([...firstRows, ...restRows]).toEqual(lines.flatMap((l, i) => (i % 2 === 0 ? [row(i + 1, l)] : [])));
  });

  test("a directory search caps each file, then the total, and counts the rest per file", async () => {
    const ctx = makeContext();
    const files: Record<string, string> = {};
    const perFile = PER_FILE_MATCHES + 10;
    const fileCount = Math.ceil(MAX_SHOWN_MATCHES / PER_FILE_MATCHES) + 2;
    for (let f = 0; f < fileCount; f++) {
      files[`d/f${f}.txt`] = Array.from({ length: perFile }, (_, i) => `match ${f}.${i}\n`).join("");
    }
    await seed(ctx.storage, files);
    const out = await view(ctx, { path: "d", content: "match" });
    const totalMatches = perFile * fileCount;
    expect(out.text.split("\n")[0]).toBe(
      `[search "match" (literal, case-sensitive) in d/: ${totalMatches} matching lines in ${fileCount} files; ${fileCount} files searched]`,
    );
    expect(idRows(out.text)).toHaveLength(MAX_SHOWN_MATCHES);
    expect(out.text).toContain(`[10 more matching lines in this file: view {"path": "d/f0.txt", "content": "match", "start": ${PER_FILE_MATCHES + 1}}]`);
    const shownFiles = MAX_SHOWN_MATCHES / PER_FILE_MATCHES;
    expect(out.text.split("\n").at(-1)).toBe(
      `[showing ${MAX_SHOWN_MATCHES} of ${totalMatches} matching lines; ${totalMatches - MAX_SHOWN_MATCHES} not shown ` +
        `(${fileCount - shownFiles} more files not shown). Narrow it: a subdirectory as "path", a "pattern" such as "**/*.ts", or a more specific "content"]`,
    );
  });

  test("the output byte limit bounds a search too", async () => {
    const ctx = makeContext({ limits: { maxOutputBytes: 4096 } });
    const lines = Array.from({ length: 150 }, (_, i) => `needle ${"z".repeat(80)} ${i}`);
    await seed(ctx.storage, { "w.txt": `${lines.join("\n")}\n` });
    const out = await view(ctx, { path: "w.txt", content: "needle" });
    expect(new TextEncoder().encode(out.text).length).toBeLessThanOrEqual(4096);
    const shown = idRows(out.text);
    expect(shown).toEqual(lines.slice(0, shown.length).map((l, i) => row(i + 1, l)));
    expect(out.text).toContain(`[${150 - shown.length} more matching lines in this file:`);
  });
});

describe("view search: observations", () => {
  test("files whose lines were shown are recorded present at the searched version; others are not", async () => {
    const { ctx, versions } = await project();
    await view(ctx, { path: "src", content: "foo" });
    const get = (path: string) => ctx.observations.get(ctx.caller.session, path);
    // Only the lines shown count as seen: a search hit never licenses a whole-file write.
    expect(await get("src/app.ts")).toEqual({
      kind: "present",
      version: versions["src/app.ts"],
      seen: [
        [3, 3],
        [6, 6],
      ],
      // The ids the rows showed, which the session now holds.
      held: [
        [3, expect.stringMatching(/^[0-9a-f]{2}$/), versions["src/app.ts"]],
        [6, expect.stringMatching(/^[0-9a-f]{2}$/), versions["src/app.ts"]],
      ],
    });
    expect(await get("src/lib/util.ts")).toEqual({
      kind: "present",
      version: versions["src/lib/util.ts"],
      seen: [[1, 1]],
      held: [[1, expect.stringMatching(/^[0-9a-f]{2}$/), versions["src/lib/util.ts"]]],
    });
    expect(await get("README.md")).toBeUndefined();
    await view(ctx, { path: "README.md", content: "zzz" });
    expect(await get("README.md")).toBeUndefined();
  });

  test("searching a path with nothing there is FS_NOT_FOUND and records absent", async () => {
    const { ctx } = await project();
    const out = await view(ctx, { path: "src/nope.ts", content: "foo" });
    expect(out.result.code).toBe("FS_NOT_FOUND");
    expect(out.text).toBe('`src/nope.ts` does not exist (nothing is there; `write` can create it). See what exists: view {"path": "src"}');
    expect(await ctx.observations.get(ctx.caller.session, "src/nope.ts")).toEqual({ kind: "absent" });
  });
});

describe("view search: context windows", () => {
  test("a match inside a window extends it by its own context", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "f.txt": "hit\nhit\nafter\nlater\n" });
    const out = await view(ctx, { path: "f.txt", content: "hit", context: 1 });
    expect(idRows(out.text)).toEqual([`> ${row(1, "hit")}`, `> ${row(2, "hit")}`, `  ${row(3, "after")}`]);
  });

  test("a file where every line matches still stops at the cap, with the continuation after the last shown row", async () => {
    const ctx = makeContext();
    const lines = Array.from({ length: MAX_SHOWN_MATCHES + 20 }, (_, i) => `hit ${i}`);
    await seed(ctx.storage, { "all.txt": `${lines.join("\n")}\n` });
    const out = await view(ctx, { path: "all.txt", content: "hit", context: 2 });
    const shown = idRows(out.text);
    expect(shown.length).toBeGreaterThanOrEqual(MAX_SHOWN_MATCHES);
    expect(shown.length).toBeLessThanOrEqual(MAX_SHOWN_MATCHES + 2);
    const rest = lines.length - shown.length;
    expect(out.text).toContain(
      `[${rest} more matching lines in this file: view {"path": "all.txt", "content": "hit", "context": 2, "start": ${shown.length + 1}}]`,
    );
  });
});

describe("view search: directories it does not enter", () => {
  test("node_modules is named as not searched, with how to search it", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "node_modules/pkg/index.js": "foo\n", "src/a.ts": "foo\n" });
    const out = await view(ctx, { path: ".", content: "foo" });
    expect(out.text.split("\n").slice(0, 2)).toEqual([
      '[search "foo" (literal, case-sensitive) in ./: 1 matching line in 1 file; 1 file searched]',
      '[not searched: node_modules/ (search it by naming it as "path", or add "gitignore": false)]',
    ]);
    const inside = await view(ctx, { path: "node_modules", content: "foo" });
    expect(inside.text.split("\n")[0]).toBe('[search "foo" (literal, case-sensitive) in node_modules/: 1 matching line in 1 file; 1 file searched]');
    // gitignore: false asks for everything, as ripgrep's --no-ignore: nested dependency folders included.
    const everything = await view(ctx, { path: ".", content: "foo", gitignore: false });
    expect(everything.text.split("\n")[0]).toBe('[search "foo" (literal, case-sensitive) in ./: 2 matching lines in 2 files; 2 files searched]');
  });
});

describe("view search: binaries and the read budget", () => {
  test("a large binary is judged from its first chunk and never read whole; a search still finds the text files", async () => {
    const inner = createMemoryStorage({ streamChunkBytes: 64 * 1024 });
    const big = new Uint8Array(8 * 1024 * 1024);
    big.set(new TextEncoder().encode("createServer"), 4096); // a NUL-padded binary with the text inside
    await inner.write("bin/tool", big);
    await inner.write("src/a.ts", new TextEncoder().encode("createServer()\n"));
    let delivered = 0;
    const counting = {
      ...inner,
      async readStream(path: string) {
        const opened = await inner.readStream!(path);
        const counted = opened.stream.pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, out) {
              delivered += chunk.length;
              out.enqueue(chunk);
            },
          }),
        );
        return { ...opened, stream: counted };
      },
      read: (path: string, options?: ReadOptions) => (path === "bin/tool" ? Promise.reject(new Error("read whole")) : inner.read(path, options)),
    };
    const ctx = makeContext({ storage: counting });
    const out = await view(ctx, { path: ".", content: "createServer" });
    expect(out.text.split("\n").slice(0, 2)).toEqual([
      '[search "createServer" (literal, case-sensitive) in ./: 1 matching line in 1 file; 1 file searched]',
      "[skipped: 1 binary or non-UTF-8 file]",
    ]);
    expect(delivered).toBeLessThanOrEqual(2 * 64 * 1024);
  });

  test("files that cannot match are searched without being decoded; invalid UTF-8 in a matching file is still refused", async () => {
    const ctx = makeContext();
    const bad = new Uint8Array([...new TextEncoder().encode("createServer here\n"), 0xff, 0x0a]);
    await ctx.storage.write("bad.txt", bad);
    await seed(ctx.storage, { "a.ts": "nothing\n", "b.ts": "createServer()\n" });
    const out = await view(ctx, { path: ".", content: "createServer" });
    expect(out.text.split("\n").slice(0, 2)).toEqual([
      '[search "createServer" (literal, case-sensitive) in ./: 1 matching line in 1 file; 2 files searched]',
      "[skipped: 1 binary or non-UTF-8 file]",
    ]);
    expect(out.text).not.toContain("bad.txt");
  });
});
