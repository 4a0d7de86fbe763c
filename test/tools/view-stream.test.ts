/**
 * Streaming views: the line scanner against the whole-document loader on
 * random files cut into random chunks, and `view` over a streaming storage
 * against `view` over the same storage read whole (ids, rows, notes, cuts
 * and refusals identical), plus what only streaming can do: a ranged view of
 * a file over the size limit.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { jsHasher } from "../../src/hash/js.ts";
import { loadDocument, type TextDocument, validateText } from "../../src/text/document.ts";
import type { Storage } from "../../src/storage/types.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { type LineBatch, LineScanner } from "../../src/tools/view/line-scan.ts";
import { makeContext, seed } from "../helpers/tool-context.ts";
import { row, rows, view } from "../helpers/tool-view.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);

/** Text built from the pieces that break naive line handling. */
const trickyText = fc
  .array(
    fc.oneof(
      fc.constantFrom("\n", "\r\n", "\r", "\t", "\uFEFF", "é", "世界", "🚀", "abc", "x".repeat(40), "\n\n"),
      fc.string({ unit: "grapheme", maxLength: 8 }),
    ),
    // Full length: fast-check's default size stops at 10 pieces, a few chunks.
    { maxLength: 40, size: "max" },
  )
  .map((parts) => parts.join(""));

/** File bytes: tricky text, sometimes with a BOM, sometimes with a stray byte spliced in. */
const fileBytes = fc
  .tuple(trickyText, fc.boolean(), fc.option(fc.tuple(fc.nat(), fc.constantFrom(0x00, 0x80, 0xc3, 0xe9, 0xf0, 0xff, 0xfe)), { freq: 4 }))
  .map(([text, bom, stray]) => {
    const bytes = utf8(bom ? `\uFEFF${text}` : text);
    if (stray === null) return bytes;
    const at = bytes.length === 0 ? 0 : stray[0] % (bytes.length + 1);
    return Uint8Array.from([...bytes.subarray(0, at), stray[1], ...bytes.subarray(at)]);
  });

/** Cut `bytes` at the given sizes (cycled), the way a stream might deliver them. */
function chunks(bytes: Uint8Array, sizes: readonly number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0, k = 0; at < bytes.length; k++) {
    const size = sizes[k % sizes.length];
    out.push(bytes.slice(at, at + size));
    at += size;
  }
  return out;
}

/** Everything a scan saw: lines as [firstLine + i, hash, content bytes], and the outcome. */
function scan(bytes: Uint8Array, sizes: readonly number[], maxLineBytes = 1 << 20) {
  const lines: [number, number, string][] = [];
  const onLines = (b: LineBatch) => {
    for (let i = 0; i < b.hashes.length; i++) {
      lines.push([b.firstLine + i, b.hashes[i], Array.from(b.body.subarray(b.starts[i], b.ends[i])).join(",")]);
    }
  };
  const scanner = new LineScanner(jsHasher, onLines, { maxLineBytes });
  for (const c of chunks(bytes, sizes)) if (scanner.wantsMore) scanner.push(c);
  const outcome = scanner.end();
  return { lines, outcome, totals: scanner.totals() };
}

const sizesArb = fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 5 });

describe("LineScanner", () => {
  test("lines, ids, endings and verdicts equal the whole-file loader's, for any chunking", () => {
    fc.assert(
      fc.property(fileBytes, sizesArb, (bytes, sizes) => {
        const got = scan(bytes, sizes);
        const doc = loadDocument(bytes, jsHasher);
        if (!doc.ok) {
          expect(got.outcome).toEqual({ kind: "not-text", why: doc });
          return;
        }
        expect(got.outcome).toEqual({ kind: "text" });
        const want = Array.from(doc.hashes, (h, i): [number, number, string] => [
          i + 1,
          h,
          Array.from(doc.body.subarray(doc.starts[i], doc.ends[i])).join(","),
        ]);
        expect(got.lines).toEqual(want);
        const crlf = doc.eols.filter((e) => e === "\r\n").length;
        expect(got.totals).toMatchObject({
          lines: doc.hashes.length,
          crlf,
          lf: doc.eols.filter((e) => e === "\n").length,
          unterminatedLast: doc.eols.at(-1) === "",
          bom: doc.bom,
        });
      }),
      { numRuns: 2000 },
    );
  });

  test("a NUL late in the first 8 KiB still makes an earlier invalid sequence a binary file", () => {
    const bytes = new Uint8Array(9000).fill(0x61);
    bytes[10] = 0xff;
    bytes[8000] = 0;
    const whole = validateText(bytes);
    if (whole.ok) throw new Error("expected a refusal");
    expect(whole.reason).toBe("binary");
    expect(scan(bytes, [100]).outcome).toEqual({ kind: "not-text", why: whole });
  });

  test("stops at a line longer than the limit, naming it", () => {
    const got = scan(utf8(`short\n${"x".repeat(50)}\nafter\n`), [7], 20);
    expect(got.outcome).toEqual({ kind: "line-too-long", line: 2 });
  });
});

/** The same storage with `readStream` hidden, so `view` reads files whole. */
function wholeReads(storage: Storage): Storage {
  const { readStream: _hidden, ...rest } = storage;
  return rest as Storage;
}

const boundArb = fc.oneof(
  fc.constant(undefined),
  fc.integer({ min: -12, max: 14 }).filter((n) => n !== 0),
  fc.constantFrom("3", "-2", "2:00", "1:c5", " 4 "),
);

describe("view over a stream equals view over whole reads", () => {
  test("rows, ids, notes, cuts and refusals, for any file, range, limits and chunking", async () => {
    await fc.assert(
      fc.asyncProperty(
        fileBytes,
        fc.integer({ min: 1, max: 9 }),
        boundArb,
        boundArb,
        fc.record({
          maxViewLines: fc.integer({ min: 1, max: 8 }),
          maxOutputBytes: fc.integer({ min: 1, max: 400 }),
          maxLineChars: fc.integer({ min: 0, max: 30 }),
        }),
        async (bytes, chunk, start, end, limits) => {
          const storage = createMemoryStorage({ streamChunkBytes: chunk });
          await storage.write("f.txt", bytes);
          const streamed = makeContext({ storage, limits });
          const whole = makeContext({ storage: wholeReads(storage), limits });
          const args = { path: "f.txt", ...(start === undefined ? {} : { start }), ...(end === undefined ? {} : { end }) };
          const a = await view(streamed, args);
          const b = await view(whole, args);
          expect(a.text).toBe(b.text);
          expect(a.result.code).toBe(b.result.code);
          const seen = async (ctx: typeof whole) => ctx.observations.get(ctx.caller.session, "f.txt");
          expect(await seen(streamed)).toEqual(await seen(whole));
        },
      ),
      { numRuns: 1500 },
    );
  });
});

const LINES = Array.from({ length: 40 }, (_, i) => `line ${i + 1} ${"é".repeat(i % 3)}`);
const TEXT = `${LINES.join("\n")}\n`;

describe("view of a file over the size limit", () => {
  const limits = { maxFileBytes: 64 };

  test("a range streams: the last lines, and lines from the start, with the total", async () => {
    const ctx = makeContext({ storage: createMemoryStorage({ streamChunkBytes: 16 }), limits });
    await seed(ctx.storage, { "big.txt": TEXT });
    expect((await view(ctx, { path: "big.txt", start: -3 })).text).toBe(["[big.txt: lines 38-40 of 40]", ...rows(38, LINES.slice(37))].join("\n"));
    expect((await view(ctx, { path: "big.txt", start: 2, end: 3 })).text).toBe(["[big.txt: lines 2-3 of 40]", ...rows(2, LINES.slice(1, 3))].join("\n"));
  });

  test("the whole file is FS_TOO_LARGE, naming a ranged view and a search", async () => {
    const ctx = makeContext({ limits });
    await seed(ctx.storage, { "big.txt": TEXT });
    const out = await view(ctx, { path: "big.txt" });
    expect(out.result.code).toBe("FS_TOO_LARGE");
    expect(out.text).toContain('view {"path": "big.txt", "start": -100}');
    expect(out.text).toContain('"content": "<text to find>"');
  });

  test("a single line longer than the limit is FS_TOO_LARGE naming the line", async () => {
    const ctx = makeContext({ limits });
    await seed(ctx.storage, { "long.txt": `a\n${"x".repeat(100)}\nb\n` });
    const out = await view(ctx, { path: "long.txt", start: -1 });
    expect(out.result.code).toBe("FS_TOO_LARGE");
    expect(out.text).toStartWith("Line 2 of `long.txt` is longer than the 64 B file size limit");
  });

  test("the view records the version of the bytes it streamed (and the one line it showed)", async () => {
    const ctx = makeContext({ limits });
    const versions = await seed(ctx.storage, { "big.txt": TEXT });
    await view(ctx, { path: "big.txt", start: -1 });
    expect(await ctx.observations.get(ctx.caller.session, "big.txt")).toEqual({
      kind: "present",
      version: versions["big.txt"],
      seen: [[40, 40]],
      held: [[40, expect.stringMatching(/^[0-9a-f]{2}$/), versions["big.txt"]]],
    });
  });
});

describe("view of the last N lines when N is over the line cap", () => {
  test("counts first, then shows the window from the line the count gives", async () => {
    const ctx = makeContext({ storage: createMemoryStorage({ streamChunkBytes: 5 }), limits: { maxViewLines: 4 } });
    await seed(ctx.storage, { "f.txt": TEXT });
    const out = await view(ctx, { path: "f.txt", start: -10 });
    expect(out.text).toBe(
      [
        "[f.txt: lines 31-34 of 40]",
        ...rows(31, LINES.slice(30, 34)),
        '[cut at line 34 by the 4-line limit; 6 more lines to show. Continue: view {"path": "f.txt", "start": 35}]',
      ].join("\n"),
    );
  });

  test("a file that keeps changing between the count and the rows is FS_IO_ERROR after a few tries", async () => {
    const storage = createMemoryStorage();
    let opens = 0;
    const growing: Storage = {
      ...storage,
      async readStream(path) {
        opens++;
        await storage.write(path, utf8(TEXT + "more\n".repeat(opens)));
        return storage.readStream!(path);
      },
    };
    const ctx = makeContext({ storage: growing, limits: { maxViewLines: 2 } });
    const out = await view(ctx, { path: "f.txt", start: -5 });
    expect(out.result.code).toBe("FS_IO_ERROR");
    expect(out.text).toContain("kept changing");
  });
});

describe("view keeps a long line addressable when streaming", () => {
  test("a cut line shows its whole length in the marker, like a whole read", async () => {
    const long = `${"é".repeat(300)}🚀${"z".repeat(50)}`;
    const storage = createMemoryStorage({ streamChunkBytes: 7 });
    await storage.write("l.txt", utf8(`a\n${long}\nb\n`));
    const ctx = makeContext({ storage, limits: { maxLineChars: 10 } });
    const out = await view(ctx, { path: "l.txt", start: -2 });
    expect(out.text.split("\n")[1]).toBe(`${row(2, long).slice(0, row(2, long).indexOf("|") + 11)}… [line truncated: ${long.length} chars total]`);
  });

  test("the document type is unchanged for callers that read lines", () => {
    const doc = loadDocument(utf8("a\r\nb"), jsHasher) as TextDocument;
    expect(doc.lines).toEqual(["a", "b"]);
    expect(doc.eols).toEqual(["\r\n", ""]);
  });
});

const needleArb = fc.oneof(
  fc.constantFrom("a", "ab", "é", "b\nc", "a\r\nb", "\nb", "x\n", "İ", "A"),
  fc.array(fc.constantFrom("a", "b", " ", "é"), { minLength: 1, maxLength: 3 }).map((c) => c.join("")),
);

describe("search of one file over a stream equals search over whole reads", () => {
  test("a range from the end counts the file first, then searches only the range", async () => {
    const lines = Array.from({ length: 50 }, (_, i) => `row ${i} ${i % 5 === 0 ? "hit" : ""}`);
    const storage = createMemoryStorage({ streamChunkBytes: 11 });
    await storage.write("f.txt", utf8(`${lines.join("\n")}\n`));
    const args = { path: "f.txt", content: "hit", start: -12, end: -3, context: 1 };
    const a = await view(makeContext({ storage }), args);
    const b = await view(makeContext({ storage: wholeReads(storage) }), args);
    expect(a.text).toBe(b.text);
    expect(a.text).toContain("f.txt lines 39-48 of 50");
  });

  test("matches, rows, context, ranges, caps and refusals, for any file, needle and chunking", async () => {
    const lineText = fc.array(fc.constantFrom("a", "b", "c", " ", "é", "A", "İ", "x", "\r"), { maxLength: 8 }).map((c) => c.join(""));
    const textArb = fc
      .tuple(fc.array(fc.tuple(lineText, fc.constantFrom("\n", "\r\n")), { maxLength: 40, size: "max" }), lineText, fc.boolean())
      .map(([lines, last, bom]) => utf8(`${bom ? "\uFEFF" : ""}${lines.map(([l, e]) => l + e).join("")}${last}`));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(textArb, fileBytes),
        fc.integer({ min: 1, max: 9 }),
        needleArb,
        fc.record({ regex: fc.boolean(), case_sensitive: fc.boolean(), context: fc.integer({ min: 0, max: 3 }) }),
        fc.integer({ min: 60, max: 2000 }),
        boundArb,
        boundArb,
        async (bytes, chunk, content, flags, maxOutputBytes, start, end) => {
          const storage = createMemoryStorage({ streamChunkBytes: chunk });
          await storage.write("f.txt", bytes);
          const limits = { maxOutputBytes, maxLineChars: 12 };
          const streamed = makeContext({ storage, limits });
          const whole = makeContext({ storage: wholeReads(storage), limits });
          const bounds = { ...(start === undefined ? {} : { start }), ...(end === undefined ? {} : { end }) };
          const args = { path: "f.txt", content, ...flags, ...bounds };
          const a = await view(streamed, args);
          const b = await view(whole, args);
          expect(a.text).toBe(b.text);
          expect(a.result.code).toBe(b.result.code);
          const seen = async (ctx: typeof whole) => ctx.observations.get(ctx.caller.session, "f.txt");
          expect(await seen(streamed)).toEqual(await seen(whole));
        },
      ),
      { numRuns: 1500 },
    );
  });

  test("past the shown cap, across many chunks: counts, context and the continuation", async () => {
    const lines = Array.from({ length: 900 }, (_, i) => (i % 3 === 0 ? `hit ${i}` : `miss ${i}`));
    const storage = createMemoryStorage({ streamChunkBytes: 37 });
    await storage.write("f.txt", utf8(`${lines.join("\n")}\n`));
    const limits = { maxOutputBytes: 1 << 20 };
    for (const context of [0, 1, 2, 4]) {
      const args = { path: "f.txt", content: "hit", context };
      const a = await view(makeContext({ storage, limits }), args);
      const b = await view(makeContext({ storage: wholeReads(storage), limits }), args);
      expect(a.text).toBe(b.text);
      expect(a.text).toContain("300 matching lines");
    }
  });
});

describe("files that are not text", () => {
  test("a view records the version of the bytes it judged (read to the end); a search records nothing and offers conversion", async () => {
    const storage = createMemoryStorage({ streamChunkBytes: 3 });
    const bytes = Uint8Array.from([0x61, 0x0a, 0x00, 0x62, ...utf8("x\n".repeat(50))]);
    const { version } = await storage.write("bin.dat", bytes);
    const ctx = makeContext({ storage });
    const viewed = await view(ctx, { path: "bin.dat" });
    expect(viewed.result.code).toBe("FS_NOT_TEXT");
    expect(viewed.text).toEndWith("replace it whole with write (this view counts as having seen it).");
    expect(await ctx.observations.get(ctx.caller.session, "bin.dat")).toEqual({ kind: "present", version });

    const other = makeContext({ storage, session: "other" });
    const searched = await view(other, { path: "bin.dat", content: "x" });
    expect(searched.result.code).toBe("FS_NOT_TEXT");
    expect(searched.text).toEndWith("convert it to UTF-8 first.");
    expect(await other.observations.get(other.caller.session, "bin.dat")).toBeUndefined();
  });
});
