import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { compileNeedle } from "../../src/text/bytes-find.ts";
import { detectEolStyle } from "../../src/text/eol.ts";
import {
  countLines,
  countNewlines,
  eolStyleOfBytes,
  indexOfBytes,
  indexOfBytesJs,
  lineEndAfter,
  lineHolding,
  lineStart,
  lineStartBefore,
} from "../../src/text/line-scan.ts";
import { splitLines } from "../../src/text/lines.ts";

const encoder = new TextEncoder();
// Full length: fast-check's default size stops at 10 pieces.
const text = fc.array(fc.constantFrom("a", "\n", "\r", "\r\n", "é", "世", "\n\n", "xyz"), { maxLength: 60, size: "max" }).map((p) => p.join(""));
/** Bytes at every alignment: the word loops start on a 4-byte boundary of the buffer. */
const shifted = (t: string, shift: number) => {
  const b = encoder.encode(t);
  const buf = new Uint8Array(b.length + shift);
  buf.set(b, shift);
  return buf.subarray(shift);
};

describe("line scanning on bytes agrees with splitLines", () => {
  test("counts, line starts and ends (property)", () => {
    fc.assert(
      fc.property(text, fc.nat({ max: 3 }), (t, shift) => {
        const bytes = shifted(t, shift);
        const split = splitLines(t);
        expect(countLines(bytes)).toBe(split.lines.length);
        expect(countNewlines(bytes)).toBe(bytes.filter((b) => b === 0x0a).length);
        let at = 0;
        for (let i = 0; i < split.lines.length; i++) {
          expect(lineStart(bytes, i)).toBe(at);
          const next = at + encoder.encode(split.lines[i] + split.eols[i]).length;
          if (next > at) {
            expect(lineStartBefore(bytes, next - 1)).toBe(at);
            expect(lineEndAfter(bytes, at)).toBe(next);
          }
          at = next;
        }
        expect(lineStart(bytes, split.lines.length)).toBe(bytes.length);
        expect(lineStart(bytes, split.lines.length + 1)).toBe(-1);
        for (let from = 0; from <= bytes.length; from += 3) {
          expect(countNewlines(bytes, from, bytes.length)).toBe(bytes.subarray(from).filter((b) => b === 0x0a).length);
        }
      }),
      { numRuns: 800 },
    );
  });

  test("the line-ending style is detectEolStyle's (property)", () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(eolStyleOfBytes(encoder.encode(t))).toEqual(detectEolStyle(splitLines(t).eols));
      }),
      { numRuns: 800 },
    );
  });

  test("indexOfBytes (native and JS) finds what indexOf on the string finds (property)", () => {
    const ascii = (maxLength: number) => fc.array(fc.constantFrom("a", "b", " ", "\n", "="), { maxLength, size: "max" }).map((p) => p.join(""));
    fc.assert(
      fc.property(ascii(40), fc.oneof(ascii(3), ascii(12)), fc.nat({ max: 40 }), (hay, needle, from) => {
        const start = Math.min(from, hay.length);
        const expected = needle === "" ? start : hay.indexOf(needle, start);
        expect(indexOfBytes(encoder.encode(hay), compileNeedle(encoder.encode(needle)), start)).toBe(expected);
        expect(indexOfBytesJs(encoder.encode(hay), compileNeedle(encoder.encode(needle)), start)).toBe(expected);
      }),
      { numRuns: 1500 },
    );
  });
});

describe("lineHolding", () => {
  test("is the last line starting at or before the offset, from any earlier line (property)", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat({ max: 500 }), { minLength: 1, maxLength: 60, size: "max" }), fc.nat({ max: 520 }), fc.nat(), (raw, at, pick) => {
        const starts = Uint32Array.from([0, ...raw.filter((n) => n > 0)].sort((a, b) => a - b));
        let expected = 0;
        while (expected + 1 < starts.length && starts[expected + 1]! <= at) expected++;
        const from = pick % (expected + 1);
        expect(lineHolding(starts, starts.length, at, from)).toBe(expected);
      }),
      { numRuns: 1000 },
    );
  });
});
