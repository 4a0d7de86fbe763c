/** Substring search on bytes (the pre-check that lets a search skip decoding a file). */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { compileNeedle, containsBytes, indexOfBytes, type SearchWork, twoWay } from "../../src/text/bytes-find.ts";

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

/** The first occurrence by brute force: the reference. */
function naiveIndexOf(hay: Uint8Array, needle: Uint8Array, from: number): number {
  if (needle.length === 0) return from <= hay.length ? from : -1;
  outer: for (let s = Math.max(0, from); s + needle.length <= hay.length; s++) {
    for (let i = 0; i < needle.length; i++) if (hay[s + i] !== needle[i]) continue outer;
    return s;
  }
  return -1;
}

const work = (): SearchWork => ({ compared: 0, switched: 0 });
/** Bytes over a small alphabet, long enough to hold long runs and repeats. */
const repetitive = (letters: string[], maxLength: number) =>
  fc.array(fc.constantFrom(...letters), { maxLength, size: "max" }).map((parts) => utf8(parts.join("")));

describe("indexOfBytes", () => {
  test("agrees with a brute-force search on repetitive alphabets, from any start (property)", () => {
    fc.assert(
      fc.property(repetitive(["a", "b"], 80), repetitive(["a", "b"], 10), fc.nat(90), (hay, needle, from) => {
        const expected = naiveIndexOf(hay, needle, from);
        expect(indexOfBytes(hay, compileNeedle(needle), from)).toBe(expected);
        if (needle.length > 0) expect(twoWay(hay, compileNeedle(needle), from)).toBe(expected);
      }),
      { numRuns: 5000 },
    );
  });

  test("the two-way search alone agrees with brute force on three letters, periodic needles included (property)", () => {
    const periodic = fc.tuple(repetitive(["a", "b", "c"], 4), fc.integer({ min: 1, max: 6 }), repetitive(["a", "b", "c"], 2)).map(([unit, times, tail]) => {
      const out = new Uint8Array(unit.length * times + tail.length);
      for (let t = 0; t < times; t++) out.set(unit, t * unit.length);
      out.set(tail, unit.length * times);
      return out;
    });
    fc.assert(
      fc.property(repetitive(["a", "b", "c"], 60), fc.oneof(periodic, repetitive(["a", "b", "c"], 12)), fc.nat(20), (hay, needle, from) => {
        fc.pre(needle.length > 0);
        expect(twoWay(hay, compileNeedle(needle), from)).toBe(naiveIndexOf(hay, needle, from));
      }),
      { numRuns: 5000 },
    );
  });

  test("long near-matches leave the anchor path, with the same answers, and every search stays linear (property)", () => {
    const total = work();
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "b"), minLength: 1, maxLength: 6 }),
        fc.integer({ min: 50, max: 400 }),
        fc.integer({ min: 20, max: 300 }),
        fc.nat(),
        fc.constantFrom("a", "b", "c", ""),
        (block, repeats, length, at, last) => {
          const text = block.repeat(repeats);
          const hay = utf8(text);
          const start = at % Math.max(1, text.length - length);
          const needle = utf8(text.slice(start, start + length - 1) + last);
          const w = work();
          const found = indexOfBytes(hay, compileNeedle(needle), 0, w);
          expect(found).toBe(naiveIndexOf(hay, needle, 0));
          expect(w.compared).toBeLessThanOrEqual(6 * hay.length + 3 * needle.length + 64);
          total.compared += w.compared;
          total.switched += w.switched;
        },
      ),
      { numRuns: 500 },
    );
    expect(total.switched).toBeGreaterThan(0);
  });

  test("the attack that froze the server: a 10,001-byte needle in a megabyte of one letter compares each byte about once", () => {
    const hay = utf8(`${"a".repeat(1_000_000)}\n`);
    const w = work();
    expect(indexOfBytes(hay, compileNeedle(utf8(`${"a".repeat(10_000)}e`)), 0, w)).toBe(-1);
    // The old search compared 10,000 bytes at each of 990,000 places: 10^10.
    expect(w.compared).toBeLessThan(3 * hay.length);
    expect(w.switched).toBe(1);
    const v = work();
    expect(indexOfBytes(hay, compileNeedle(utf8(`${"a".repeat(10_000)}\n`)), 0, v)).toBe(990_000);
    expect(v.compared).toBeLessThan(3 * hay.length);
  });

  test("counting every occurrence, each search from where the last one ended, is linear too", () => {
    for (const [text, needleText] of [
      ["ab".repeat(200_000), `${"ab".repeat(500)}a`],
      ["a".repeat(400_000), "a".repeat(999)],
      [`${"a".repeat(1999)}b`.repeat(200), `${"a".repeat(1000)}b`],
    ] as const) {
      const hay = utf8(text);
      const needle = compileNeedle(utf8(needleText));
      const w = work();
      let count = 0;
      for (let at = indexOfBytes(hay, needle, 0, w); at !== -1; at = indexOfBytes(hay, needle, at + needleText.length, w)) count++;
      let expected = 0;
      for (let at = text.indexOf(needleText); at !== -1; at = text.indexOf(needleText, at + needleText.length)) expected++;
      expect(count).toBe(expected);
      expect(w.compared).toBeLessThan(8 * hay.length);
    }
  });

  test("typical text stays on the anchor path, comparing little more than a byte per candidate", () => {
    const text = utf8(
      "export function createServer(options) {\n  const server = new Server(options);\n  return server.listen(options.port);\n}\n".repeat(2000),
    );
    for (const needle of ["createServer", "options.port", "return server", "not in the text"]) {
      const w = work();
      indexOfBytes(text, compileNeedle(utf8(needle)), 0, w);
      expect(w.switched).toBe(0);
      expect(w.compared).toBeLessThan(text.length);
    }
  });

  test("starts past the end or before the start are answered as the string search answers them", () => {
    const hay = utf8("abcabc");
    expect(indexOfBytes(hay, compileNeedle(utf8("abc")), 4)).toBe(-1);
    expect(indexOfBytes(hay, compileNeedle(utf8("abc")), 99)).toBe(-1);
    expect(indexOfBytes(hay, compileNeedle(utf8("abc")), -5)).toBe(0);
    expect(indexOfBytes(hay, compileNeedle(new Uint8Array()), 6)).toBe(6);
    expect(indexOfBytes(hay, compileNeedle(new Uint8Array()), 7)).toBe(-1);
  });
});
