import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { lineHash } from "../../src/hash/fnv.ts";
import { formatId, parseLineId, parseLineRef, resolveLineRef } from "../../src/text/ids.ts";

const SHAPE =
  'a line id is "N:hh": the 1-based line number, a colon, and the 2 hex chars of the line\'s hash, e.g. "12:a3". View the file to get the current ids';
const REF_SHAPE = 'use a 1-based line number (negative counts from the end: -1 is the last line) or a line id like "12:a3"';

function message(input: unknown): string {
  const r = parseLineId(input);
  if (r.ok) throw new Error(`expected ${JSON.stringify(input)} to be refused`);
  return r.message;
}

describe("formatId", () => {
  test("line number, colon, 2 lowercase hex digits", () => {
    expect(formatId(12, 0xa3)).toBe("12:a3");
    expect(formatId(1, 0x05)).toBe("1:05");
    expect(formatId(3, lineHash("fn main() {"))).toBe("3:92");
  });
});

describe("parseLineId accepts", () => {
  test("a plain id", () => {
    expect(parseLineId("12:a3")).toEqual({ ok: true, line: 12, hash: 0xa3 });
    expect(parseLineId("1:00")).toEqual({ ok: true, line: 1, hash: 0 });
  });

  test("unambiguous variants: whitespace, uppercase hex, leading zeros, a copied view line", () => {
    const id = { ok: true, line: 12, hash: 0xa3 } as const;
    expect(parseLineId(" 12:a3\n")).toEqual(id);
    expect(parseLineId("12:A3")).toEqual(id);
    expect(parseLineId("12 : a3")).toEqual(id);
    expect(parseLineId("012:a3")).toEqual(id);
    expect(parseLineId("12:a3|const x = 1; // 9:ff")).toEqual(id);
  });

  test("every formatted id parses back to its parts", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: 0, max: 255 }), (n, h) => {
        expect(parseLineId(formatId(n, h))).toEqual({ ok: true, line: n, hash: h });
      }),
      { numRuns: 500 },
    );
  });
});

describe("parseLineId refuses with a message that names the fix", () => {
  test("a hash part that is not 2 hex chars", () => {
    expect(message("12:a")).toBe(
      'the hash part must be 2 hex chars (e.g. "12:a3"), but "12:a" has "a" after the colon. View the file to get the current id of line 12',
    );
    expect(message("12:abc")).toBe(
      'the hash part must be 2 hex chars (e.g. "12:a3"), but "12:abc" has "abc" after the colon. View the file to get the current id of line 12',
    );
    expect(message("7:zz")).toBe(
      'the hash part must be 2 hex chars (e.g. "7:a3"), but "7:zz" has "zz" after the colon. View the file to get the current id of line 7',
    );
    expect(message("12:")).toBe(
      'the hash part must be 2 hex chars (e.g. "12:a3"), but "12:" has nothing after the colon. View the file to get the current id of line 12',
    );
  });

  test("line 0 and negative lines: lines are 1-indexed", () => {
    expect(message("0:ab")).toBe('lines are 1-indexed: "0:ab" does not exist, the first line is 1');
    expect(message("-3:ab")).toBe('lines are 1-indexed: "-3:ab" does not exist, the first line is 1');
    expect(message("0")).toBe(`lines are 1-indexed: line 0 does not exist, the first line is 1; ${SHAPE}`);
    expect(message(0)).toBe(`lines are 1-indexed: line 0 does not exist, the first line is 1; ${SHAPE}`);
  });

  test("a bare line number: an id needs its hash, view the file to get it", () => {
    const hint = 'is a line number without its hash: a line id is "N:hh", e.g. "12:a3". View the file to get the current id of line 12';
    expect(message("12")).toBe(`"12" ${hint}`);
    expect(message(" 12 ")).toBe(`"12" ${hint}`);
    expect(message(12)).toBe(`12 ${hint}`);
    expect(message("12|some content")).toBe(`"12" ${hint}`);
  });

  test("non-strings and garbage: says what an id looks like", () => {
    expect(message(null)).toBe(`expected a line id string but got null; ${SHAPE}`);
    expect(message(undefined)).toBe(`expected a line id string but got undefined; ${SHAPE}`);
    expect(message({ line: 12 })).toBe(`expected a line id string but got an object; ${SHAPE}`);
    expect(message(["12:a3"])).toBe(`expected a line id string but got an array; ${SHAPE}`);
    expect(message(true)).toBe(`expected a line id string but got a boolean; ${SHAPE}`);
    expect(message(1.5)).toBe(`1.5 is not a line id; ${SHAPE}`);
    expect(message("")).toBe(`got an empty string; ${SHAPE}`);
    expect(message("   ")).toBe(`got an empty string; ${SHAPE}`);
    expect(message("hello")).toBe(`"hello" is not a line id; ${SHAPE}`);
    expect(message(":ab")).toBe(`":ab" has no line number before the colon; ${SHAPE}`);
    expect(message("L12:ab")).toBe(`"L12:ab" does not start with a line number; ${SHAPE}`);
    expect(message("+3:ab")).toBe(`"+3:ab" does not start with a line number; ${SHAPE}`);
    expect(message("99999999999999999999:ab")).toBe(`"99999999999999999999:ab" has a line number too large to be a line of any file; ${SHAPE}`);
  });

  test("a long pasted input is echoed only in part", () => {
    const blob = "x".repeat(10_000);
    expect(message(blob)).toBe(`"${"x".repeat(60)}…" is not a line id; ${SHAPE}`);
  });

  test("never throws, whatever it is given", () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.string(), fc.stringMatching(/^-?\d{0,3}:[0-9a-zA-Z]{0,3}$/)), (x) => {
        const r = parseLineId(x);
        if (r.ok) {
          expect(r.line).toBeGreaterThanOrEqual(1);
          expect(r.hash).toBeLessThan(256);
        } else expect(r.message.length).toBeGreaterThan(0);
      }),
      { numRuns: 500 },
    );
  });
});

describe("parseLineRef", () => {
  test("integers, as numbers or strings; negative counts from the end", () => {
    expect(parseLineRef(5)).toEqual({ ok: true, line: 5 });
    expect(parseLineRef(-1)).toEqual({ ok: true, line: -1 });
    expect(parseLineRef("12")).toEqual({ ok: true, line: 12 });
    expect(parseLineRef(" -20 ")).toEqual({ ok: true, line: -20 });
  });

  test("an id: its number positions, its hash is passed on", () => {
    expect(parseLineRef("12:ab")).toEqual({ ok: true, line: 12, hash: 0xab });
    expect(parseLineRef("12:ab|text")).toEqual({ ok: true, line: 12, hash: 0xab });
  });

  test("refusals", () => {
    const zero = "lines are 1-indexed: line 0 does not exist, the first line is 1 (and the last is -1)";
    expect(parseLineRef(0)).toEqual({ ok: false, message: zero });
    expect(parseLineRef("0")).toEqual({ ok: false, message: zero });
    expect(parseLineRef("0:ab")).toEqual({
      ok: false,
      message: 'lines are 1-indexed: "0:ab" does not exist, the first line is 1',
    });
    expect(parseLineRef(1.5)).toEqual({ ok: false, message: `1.5 is not a line number; ${REF_SHAPE}` });
    expect(parseLineRef("abc")).toEqual({ ok: false, message: `"abc" is not a line number or line id; ${REF_SHAPE}` });
    expect(parseLineRef("12:x")).toEqual({
      ok: false,
      message: 'the hash part must be 2 hex chars (e.g. "12:a3"), but "12:x" has "x" after the colon. View the file to get the current id of line 12',
    });
  });
});

describe("resolveLineRef", () => {
  test("negative lines count from the end; nothing is clamped", () => {
    expect(resolveLineRef(-1, 10)).toBe(10);
    expect(resolveLineRef(-10, 10)).toBe(1);
    expect(resolveLineRef(-11, 10)).toBe(0);
    expect(resolveLineRef(3, 10)).toBe(3);
    expect(resolveLineRef(12, 10)).toBe(12);
  });
});
