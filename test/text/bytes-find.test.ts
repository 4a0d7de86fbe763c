/** Substring search on bytes (the pre-check that lets a search skip decoding a file). */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { compileNeedle, containsBytes } from "../../src/text/bytes-find.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);

describe("containsBytes", () => {
  test("finds a needle anywhere, including at the very start and end, and not across a mismatch", () => {
    const needle = compileNeedle(utf8("createServer"));
    expect(containsBytes(utf8("createServer"), needle)).toBe(true);
    expect(containsBytes(utf8("x.createServer()"), needle)).toBe(true);
    expect(containsBytes(utf8("a createServe"), needle)).toBe(false);
    expect(containsBytes(utf8("reateServer createServeX"), needle)).toBe(false);
    expect(containsBytes(utf8(""), needle)).toBe(false);
    expect(containsBytes(utf8("abc"), compileNeedle(new Uint8Array()))).toBe(true);
  });

  test("multi-byte characters compare as their UTF-8 bytes", () => {
    expect(containsBytes(utf8("héllo 世界 🚀"), compileNeedle(utf8("世界")))).toBe(true);
    expect(containsBytes(utf8("héllo 世 界"), compileNeedle(utf8("世界")))).toBe(false);
  });

  test("agrees with a plain string search on random inputs", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "b", "S", " ", "é", "\n"), maxLength: 60, size: "max" }),
        fc.string({ unit: fc.constantFrom("a", "b", "S", "é"), minLength: 1, maxLength: 4 }),
        (hay, needle) => {
          expect(containsBytes(utf8(hay), compileNeedle(utf8(needle)))).toBe(hay.includes(needle));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
