/** Matching a large file in its bytes (src/tools/view/byte-match.ts) finds exactly what decoding it whole finds. */
import { expect, test } from "bun:test";
import fc from "fast-check";
import { matchInBytes } from "../../src/tools/view/byte-match.ts";
import { createSearcher, indexLines, lineAt, normalizeEndings } from "../../src/tools/view/matcher.ts";

const enc = new TextEncoder();

/** The decoded way: what a search of the whole text gives. */
function viaText(bytes: Uint8Array, bom: boolean, needle: string) {
  const text = normalizeEndings(new TextDecoder("utf-8", { ignoreBOM: true }).decode(bom ? bytes.subarray(3) : bytes));
  const made = createSearcher({ content: needle, regex: false, caseSensitive: true });
  if (!made.ok) throw new Error(made.message);
  const index = indexLines(text);
  const matches = made.searcher.mayMatch(text) ? made.searcher.matchLines(text, index) : [];
  return { count: index.count, matches, at: (i: number) => lineAt(text, index, i), needle: made.searcher.bytesNeedle! };
}

test("the same lines, matches and line contents as decoding the whole text", () => {
  const piece = fc.constantFrom("ab", "needle", "need", "le", "\n", "\r\n", "\r", "\r\r\n", "é", "\u{1F600}", " ", "x".repeat(40));
  fc.assert(
    fc.property(
      // Full length (fast-check's default size stops at 10 pieces): many lines, far-apart matches.
      fc.array(piece, { maxLength: 60, size: "max" }),
      fc.boolean(),
      fc.integer({ min: 0, max: 3 }),
      fc.integer({ min: 1, max: 4 }),
      (parts, bom, context, keep) => {
        const body = enc.encode(parts.join(""));
        const bytes = bom ? new Uint8Array([0xef, 0xbb, 0xbf, ...body]) : body;
        const want = viaText(bytes, bom, "needle");
        const got = matchInBytes(bytes, bom ? 3 : 0, want.needle, context, keep);
        expect(got.count).toBe(want.count);
        expect(got.matches).toEqual(want.matches);
        const shown = new Set<number>();
        for (const m of want.matches.slice(0, keep)) for (let i = Math.max(0, m - context); i <= Math.min(want.count - 1, m + context); i++) shown.add(i);
        expect([...got.kept.keys()].sort((a, b) => a - b)).toEqual([...shown].sort((a, b) => a - b));
        for (const i of shown) expect(got.kept.get(i)).toBe(want.at(i));
      },
    ),
    { numRuns: 3000 },
  );
});

test("a needle of several characters with non-ASCII in it, at the very start and end", () => {
  const needle = "é\u{1F600}x";
  const bytes = enc.encode(`${needle}\nnone\r\nmid ${needle} mid\r\n\n${needle}`);
  const want = viaText(bytes, false, needle);
  const got = matchInBytes(bytes, 0, want.needle, 1, 10);
  expect(got.matches).toEqual([0, 2, 4]);
  expect(got.matches).toEqual(want.matches);
  expect(got.count).toBe(5);
  expect(got.kept.get(2)).toBe(`mid ${needle} mid`);
  expect(got.kept.get(3)).toBe("");
});
