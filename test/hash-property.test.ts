import { expect, test } from "bun:test";
import fc from "fast-check";
import { jsHasher } from "../src/hash/js.ts";
import { committedWasmHasher, oracle, plain } from "./hash-helpers.ts";

const wasm = await committedWasmHasher();
const encoder = new TextEncoder();

// Texts built from the pieces that break line splitters: empty lines, both
// line endings, lone "\r", tabs, multi-byte UTF-8, no final newline, and now
// and then a line longer than 64 KiB. Sizes straddle the 4 KiB threshold of
// the multi-lane WASM path.
const piece = fc.oneof(
  { weight: 30, arbitrary: fc.constantFrom("\n", "\r\n", "\r", "\t", "    ", "🚀", "世界", "é", "a", "}", "\n\n") },
  { weight: 30, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 10, arbitrary: fc.string({ maxLength: 120 }).map((s) => `${s}\n`) },
  { weight: 3, arbitrary: fc.integer({ min: 100, max: 3000 }).map((n) => "w".repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 65_537, max: 70_000 }).map((n) => "L".repeat(n) + "\r\n") },
);
const text = fc.array(piece, { maxLength: 300 }).map((pieces) => pieces.join(""));

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
