/**
 * `lineHashBy`: the id hash of one line by a hasher (WASM for long lines)
 * is `lineHash`'s, for any line a search shows: short or megabytes long,
 * ending in "\r", with lone surrogates.
 */
import { expect, test } from "bun:test";
import fc from "fast-check";
import { jsHasher, lineHash, loadWasmHasher } from "../../src/hash/mod.ts";
import { HASHER_FROM_CHARS, lineHashBy } from "../../src/hash/one-line.ts";
import { readWasmBytes } from "../../src/hash/wasm-file.ts";

const wasm = await loadWasmHasher(await readWasmBytes(), { jsBelow: 0 });

test("equals lineHash on both sides of the length where the hasher takes over (property)", () => {
  const piece = fc.constantFrom("a", "é", "世", "🚀", "\r", "\t", " ", "\uD800", "x".repeat(97), "\r\r");
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 40, size: "max" }), fc.integer({ min: 0, max: 3 * HASHER_FROM_CHARS }), fc.boolean(), (pieces, pad, crEnd) => {
      const line = `${"y".repeat(pad)}${pieces.join("")}${crEnd ? "\r" : ""}`;
      expect(lineHashBy(wasm, line)).toBe(lineHash(line));
      expect(lineHashBy(jsHasher, line)).toBe(lineHash(line));
    }),
    { numRuns: 500 },
  );
});

test("a minified bundle's line of 3 MB, and the empty line", () => {
  const line = "function f(){return createServer(a,b)};".repeat(80_000);
  expect(lineHashBy(wasm, line)).toBe(lineHash(line));
  expect(lineHashBy(wasm, "")).toBe(lineHash(""));
});
