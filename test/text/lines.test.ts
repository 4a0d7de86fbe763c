import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { joinLines, splitLines } from "../../src/text/lines.ts";

describe("splitLines", () => {
  test("a final newline does not open an extra empty line", () => {
    expect(splitLines("")).toEqual({ lines: [], eols: [] });
    expect(splitLines("a\n")).toEqual({ lines: ["a"], eols: ["\n"] });
    expect(splitLines("a")).toEqual({ lines: ["a"], eols: [""] });
    expect(splitLines("\n")).toEqual({ lines: [""], eols: ["\n"] });
    expect(splitLines("\n\n")).toEqual({ lines: ["", ""], eols: ["\n", "\n"] });
    expect(splitLines("a\n\nb")).toEqual({ lines: ["a", "", "b"], eols: ["\n", "\n", ""] });
  });

  test("a \\r before \\n is part of the terminator, each line keeps its own", () => {
    expect(splitLines("a\r\nb\nc\r\n")).toEqual({ lines: ["a", "b", "c"], eols: ["\r\n", "\n", "\r\n"] });
    expect(splitLines("\r\n")).toEqual({ lines: [""], eols: ["\r\n"] });
  });

  test("a lone \\r stays in the line content", () => {
    expect(splitLines("a\rb\n")).toEqual({ lines: ["a\rb"], eols: ["\n"] });
    expect(splitLines("a\r")).toEqual({ lines: ["a\r"], eols: [""] });
    expect(splitLines("\r")).toEqual({ lines: ["\r"], eols: [""] });
    expect(splitLines("a\r\r\n")).toEqual({ lines: ["a\r"], eols: ["\r\n"] });
    expect(splitLines("\r\r")).toEqual({ lines: ["\r\r"], eols: [""] });
  });

  test("non-ASCII content is kept as is", () => {
    expect(splitLines("héllo 世界 🚀\r\n\tx")).toEqual({ lines: ["héllo 世界 🚀", "\tx"], eols: ["\r\n", ""] });
  });

  test("splits a 10 MB text into the right number of lines", () => {
    const line = "x".repeat(49);
    const text = `${line}\r\n`.repeat(100_000) + `${line}\n`.repeat(100_000);
    const { lines, eols } = splitLines(text);
    expect(lines.length).toBe(200_000);
    expect(lines[0]).toBe(line);
    expect(eols[0]).toBe("\r\n");
    expect(eols[199_999]).toBe("\n");
    expect(joinLines(lines, eols)).toBe(text);
  });
});

const textWithEols = fc
  .array(fc.constantFrom("a", "b", " ", "\t", "\n", "\r\n", "\r", "é", "世", "🚀", ""), { maxLength: 40, size: "max" })
  .map((parts) => parts.join(""));

describe("splitLines / joinLines properties", () => {
  test("joinLines(splitLines(t)) reproduces t exactly", () => {
    fc.assert(
      fc.property(fc.oneof(textWithEols, fc.string({ unit: "binary" })), (t) => {
        const { lines, eols } = splitLines(t);
        expect(joinLines(lines, eols)).toBe(t);
      }),
      { numRuns: 1000 },
    );
  });

  test("one line per \\n plus an unterminated tail; no line holds a \\n; only the last may lack a terminator", () => {
    fc.assert(
      fc.property(textWithEols, (t) => {
        const { lines, eols } = splitLines(t);
        const newlines = t.split("\n").length - 1;
        const tail = t.length > 0 && !t.endsWith("\n") ? 1 : 0;
        expect(lines.length).toBe(newlines + tail);
        expect(eols.length).toBe(lines.length);
        for (let i = 0; i < lines.length; i++) {
          expect(lines[i].includes("\n")).toBe(false);
          if (i < lines.length - 1) expect(eols[i]).not.toBe("");
          // A \r right before a bare "\n" would have been part of the terminator.
          if (eols[i] === "\n") expect(lines[i].endsWith("\r")).toBe(false);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
