import { expect, test } from "bun:test";
import fc from "fast-check";
import { jsHasher } from "../../src/hash/js.ts";
import { committedWasmHasher, oracle, plain } from "../helpers/hash.ts";

const wasm = await committedWasmHasher();
const encoder = new TextEncoder();

// Texts built from the pieces that break line splitters: empty lines, both
// line endings, lone "\r", tabs, multi-byte UTF-8, no final newline, and now
// and then a line longer than 64 KiB. Sizes straddle the 4 KiB threshold of
// the multi-lane WASM path.
const piece = fc.oneof(
  { weight: 30, arbitrary: fc.constantFrom("\n", "\r\n", "\r", "\t", "    ", "🚀", "世界", "é", "a", "}", "\n\n") },
  { weight: 30, arbitrary: fc.string({ maxLength: 40, size: "max" }) },
  { weight: 10, arbitrary: fc.string({ maxLength: 120, size: "max" }).map((s) => `${s}\n`) },
  { weight: 3, arbitrary: fc.integer({ min: 100, max: 3000 }).map((n) => "w".repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 65_537, max: 70_000 }).map((n) => `${"L".repeat(n)}\r\n`) },
);
// A sixth of the texts at full length: fast-check's default size stops at 10 pieces, mostly under the 4 KiB threshold.
const text = fc
  .oneof({ weight: 5, arbitrary: fc.array(piece, { maxLength: 300 }) }, { weight: 1, arbitrary: fc.array(piece, { maxLength: 300, size: "max" }) })
  .map((pieces) => pieces.join(""));

test("JS and WASM agree with each other and with the line rules on random text", () => {
  fc.assert(
    fc.property(text, (t) => {
      const bytes = encoder.encode(t);
      const fromWasm = plain(wasm.hashLines(bytes));
      expect(fromWasm).toEqual(plain(jsHasher.hashLines(bytes)));
      expect(fromWasm).toEqual(oracle(bytes));
    }),
    { numRuns: 2000 },
  );
}, 120_000);

// Texts of 8-60 KB made of short lines, so that all 16 lanes of the module
// run for more than one 512-step block: "\r\n" pairs and runs of empty lines
// then fall on block and lane boundaries.
const shortPiece = fc.oneof(
  { weight: 20, arbitrary: fc.constantFrom("\n", "\r\n", "\r", "\n\n\n\n\n\n", "é", "🚀", "ab", "    ") },
  { weight: 10, arbitrary: fc.string({ maxLength: 60 }) },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 6000 }).map((n) => "w".repeat(n)) },
);
const longText = fc.array(shortPiece, { minLength: 1500, maxLength: 4000 }).map((pieces) => pieces.join(""));

test("WASM agrees with the line rules on texts long enough for several blocks of every lane", () => {
  fc.assert(
    fc.property(longText, (t) => {
      const bytes = encoder.encode(t);
      expect(plain(wasm.hashLines(bytes))).toEqual(oracle(bytes));
    }),
    { numRuns: 150 },
  );
}, 120_000);
