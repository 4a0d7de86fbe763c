import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { formatHash, lineHash } from "../../src/hash/fnv.ts";
import { jsHasher } from "../../src/hash/js.ts";
import { loadDocument, type TextDocument } from "../../src/text/document.ts";
import { renderLine, renderLines, utf8Length } from "../../src/text/render.ts";

/** A document whose lines are `lines`, each ended by "\n" (or by `eol`). */
function docOf(lines: string[], eol = "\n"): TextDocument {
  const doc = loadDocument(new TextEncoder().encode(lines.map((l) => l + eol).join("")), jsHasher);
  if (!doc.ok) throw new Error(doc.detail);
  return doc;
}

describe("renderLine", () => {
  test("N:hh|content, content verbatim", () => {
    expect(renderLine(1, lineHash("fn main() {"), "fn main() {", 2000)).toBe("1:92|fn main() {");
    expect(renderLine(12, 0x05, "", 2000)).toBe("12:05|");
    expect(renderLine(3, 0xff, "\ta|b", 2000)).toBe("3:ff|\ta|b");
  });

  test("a long line is cut with a visible marker giving its full length", () => {
    expect(renderLine(7, 0xab, "x".repeat(123456), 10)).toBe("7:ab|xxxxxxxxxx… [line truncated: 123456 chars total]");
    expect(renderLine(7, 0xab, "x".repeat(10), 10)).toBe("7:ab|xxxxxxxxxx");
    expect(renderLine(7, 0xab, "abc", Number.POSITIVE_INFINITY)).toBe("7:ab|abc");
  });

  test("never cuts a surrogate pair in half", () => {
    expect(renderLine(1, 0, "ab🚀cd", 3)).toBe("1:00|ab… [line truncated: 6 chars total]");
    expect(renderLine(1, 0, "ab🚀cd", 4)).toBe("1:00|ab🚀… [line truncated: 6 chars total]");
  });
});

describe("renderLines", () => {
  const doc = docOf(["alpha", "beta", "gamma"]);
  const all = { maxLineChars: 2000 };

  test("renders the inclusive 1-based range, one line per row, no trailing newline", () => {
    expect(renderLines(doc, 1, 3, all)).toEqual({
      text: "1:10|alpha\n2:0d|beta\n3:e7|gamma",
      from: 1,
      to: 3,
      truncatedLines: 0,
      complete: true,
      // The ids shown, which a view records as held by the session.
      hashes: Uint8Array.from([0x10, 0x0d, 0xe7]),
    });
    expect(renderLines(doc, 2, 2, all).text).toBe("2:0d|beta");
  });

  test("clamps the range to the document; past the end renders nothing", () => {
    expect(renderLines(doc, 0, 99, all)).toMatchObject({ from: 1, to: 3, complete: true });
    const none = new Uint8Array(0);
    expect(renderLines(doc, 4, 9, all)).toEqual({ text: "", from: 4, to: 3, truncatedLines: 0, complete: true, hashes: none });
    expect(renderLines(docOf([]), 1, 10, all)).toEqual({ text: "", from: 1, to: 0, truncatedLines: 0, complete: true, hashes: none });
  });

  test("counts the lines it truncated", () => {
    const long = docOf(["short", "y".repeat(50), "z".repeat(51)]);
    const r = renderLines(long, 1, 3, { maxLineChars: 50 });
    expect(r.truncatedLines).toBe(1);
    expect(r.text.split("\n")[2]).toBe(`3:${formatHash(lineHash("z".repeat(51)))}|${"z".repeat(50)}… [line truncated: 51 chars total]`);
  });

  test("a byte budget stops before the line that would exceed it and says so", () => {
    // "1:10|alpha" is 10 bytes, "\n2:0d|beta" 10 more, "\n3:e7|gamma" 11 more.
    expect(renderLines(doc, 1, 3, { maxLineChars: 2000, maxOutputBytes: 20 })).toEqual({
      text: "1:10|alpha\n2:0d|beta",
      from: 1,
      to: 2,
      truncatedLines: 0,
      complete: false,
      hashes: Uint8Array.from([0x10, 0x0d]),
    });
    expect(renderLines(doc, 1, 3, { maxLineChars: 2000, maxOutputBytes: 31 }).complete).toBe(true);
  });

  test("the budget counts UTF-8 bytes, not UTF-16 code units", () => {
    const wide = docOf(["世界", "世界"]); // "1:xx|" + 6 bytes = 11 bytes each
    expect(renderLines(wide, 1, 2, { maxLineChars: 2000, maxOutputBytes: 22 }).to).toBe(1);
    expect(renderLines(wide, 1, 2, { maxLineChars: 2000, maxOutputBytes: 23 }).to).toBe(2);
  });

  test("CRLF and lone \\r: the terminator is never shown, a lone \\r is content", () => {
    const doc = loadDocument(new TextEncoder().encode("a\r\nb\rc\n"), jsHasher) as TextDocument;
    expect(renderLines(doc, 1, 2, all).text).toBe(`1:${formatHash(lineHash("a"))}|a\n2:${formatHash(lineHash("b\rc"))}|b\rc`);
  });

  test("line numbers of any width", () => {
    const doc = docOf(Array.from({ length: 12_345 }, () => "x"));
    expect(renderLines(doc, 9_999, 10_000, all).text).toBe(`9999:${formatHash(lineHash("x"))}|x\n10000:${formatHash(lineHash("x"))}|x`);
  });

  test("the first line is always rendered so a view makes progress", () => {
    const r = renderLines(doc, 2, 3, { maxLineChars: 2000, maxOutputBytes: 1 });
    expect(r).toEqual({ text: "2:0d|beta", from: 2, to: 2, truncatedLines: 0, complete: false, hashes: Uint8Array.from([0x0d]) });
  });

  test("a truncated line cut off by the budget is not counted as shown", () => {
    const long = docOf(["a", "b".repeat(100)]);
    const r = renderLines(long, 1, 2, { maxLineChars: 10, maxOutputBytes: 8 });
    expect(r).toMatchObject({ to: 1, truncatedLines: 0, complete: false });
  });

  test("rendered output stays within the budget and lists consecutive lines", () => {
    // Line contents never hold "\n" (it ends a line).
    // Full length (fast-check's default size stops at 10): lines past maxLineChars, budgets reached late.
    const content = fc.oneof(fc.string({ unit: "grapheme", maxLength: 30, size: "max" }), fc.constantFrom("", "é世🚀")).map((s) => s.replaceAll("\n", ""));
    fc.assert(
      fc.property(fc.array(content, { minLength: 1, maxLength: 30, size: "max" }), fc.integer({ min: 1, max: 400 }), (lines, budget) => {
        const d = docOf(lines);
        const r = renderLines(d, 1, d.lines.length, { maxLineChars: 12, maxOutputBytes: budget });
        const rows = r.text.split("\n");
        expect(rows.length).toBe(r.to - r.from + 1);
        if (rows.length > 1) expect(new TextEncoder().encode(r.text).length).toBeLessThanOrEqual(budget);
        expect(r.complete).toBe(r.to === d.lines.length);
        rows.forEach((row, i) => {
          expect(row.startsWith(`${i + 1}:`)).toBe(true);
        });
        // The next line would not have fitted: the budget is used, not just respected.
        if (!r.complete) {
          const more = renderLines(d, 1, r.to + 1, { maxLineChars: 12 });
          expect(new TextEncoder().encode(more.text).length).toBeGreaterThan(budget);
        }
      }),
      { numRuns: 500 },
    );
  });
});

/** Text built from the pieces that break naive line handling. */
const trickyText = fc
  .array(
    fc.oneof(fc.constantFrom("\n", "\r\n", "\r", "\t", "\uFEFF", "é", "世界", "🚀", "abc", "x".repeat(40)), fc.string({ unit: "grapheme", maxLength: 8 })),
    { maxLength: 40, size: "max" },
  )
  .map((parts) => parts.join(""));

describe("renderLines properties", () => {
  test("equals renderLine of each line joined by newlines, for any file, range and line limit", () => {
    fc.assert(
      fc.property(
        trickyText,
        fc.boolean(),
        fc.integer({ min: -2, max: 30 }),
        fc.integer({ min: -2, max: 30 }),
        fc.integer({ min: 0, max: 45 }),
        (text, bom, from, to, maxLineChars) => {
          const bytes = new TextEncoder().encode(bom ? `\uFEFF${text}` : text);
          const doc = loadDocument(bytes, jsHasher) as TextDocument;
          const r = renderLines(doc, from, to, { maxLineChars });
          const first = Math.max(1, from);
          const shown = doc.lines.slice(first - 1, Math.max(first - 1, to));
          const expected = shown.map((l, k) => renderLine(first + k, doc.hashes[first - 1 + k], l, maxLineChars));
          expect(r.text).toBe(expected.join("\n"));
          expect(r.from).toBe(first);
          expect(r.to).toBe(first - 1 + shown.length);
          expect(r.truncatedLines).toBe(shown.filter((l) => l.length > maxLineChars).length);
          expect(r.complete).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe("renderLines on output larger than its reused 1 MiB buffer", () => {
  const lines = Array.from({ length: 60_000 }, (_, i) => (i % 7 === 0 ? `héllo 世界 🚀 ${i}` : `line ${i} `.repeat(4)));
  const doc = docOf(lines, "\r\n");
  const viaStrings = (from: number, to: number, max: number) =>
    doc.lines
      .slice(from - 1, to)
      .map((l, k) => renderLine(from + k, doc.hashes[from - 1 + k], l, max))
      .join("\n");

  test("renders the same text as line-by-line rendering", () => {
    const r = renderLines(doc, 1, lines.length, { maxLineChars: 2000 });
    expect(new TextEncoder().encode(r.text).length).toBeGreaterThan(2 * 1024 * 1024);
    expect(r.text).toBe(viaStrings(1, lines.length, 2000));
    expect(r).toMatchObject({ from: 1, to: 60_000, complete: true, truncatedLines: 0 });
  });

  test("a byte budget beyond the buffer is still exact", () => {
    const budget = 1.5 * 1024 * 1024;
    const r = renderLines(doc, 1, lines.length, { maxLineChars: 2000, maxOutputBytes: budget });
    const used = new TextEncoder().encode(r.text).length;
    expect(used).toBeLessThanOrEqual(budget);
    expect(used + new TextEncoder().encode(`\n${viaStrings(r.to + 1, r.to + 1, 2000)}`).length).toBeGreaterThan(budget);
    expect(r.text).toBe(viaStrings(1, r.to, 2000));
    expect(r.complete).toBe(false);
  });

  test("a single line larger than the buffer", () => {
    const huge = docOf(["a", "é".repeat(700_000), "b"]);
    expect(renderLines(huge, 1, 3, { maxLineChars: Number.POSITIVE_INFINITY }).text).toBe(
      huge.lines.map((l, i) => renderLine(i + 1, huge.hashes[i], l, Number.POSITIVE_INFINITY)).join("\n"),
    );
    expect(renderLines(huge, 2, 2, { maxLineChars: 5 }).text).toBe(`2:${formatHash(huge.hashes[1])}|ééééé… [line truncated: 700000 chars total]`);
  });
});

describe("utf8Length", () => {
  test("matches TextEncoder, lone surrogates included", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        expect(utf8Length(s)).toBe(new TextEncoder().encode(s).length);
      }),
      { numRuns: 1000 },
    );
    expect(utf8Length("\uD800x\uDC00")).toBe(7);
  });
});
