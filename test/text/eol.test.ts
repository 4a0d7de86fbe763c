import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { detectEolStyle, dominantEol, endsWithNewline, spliceLines } from "../../src/text/eol.ts";
import { joinLines, splitLines } from "../../src/text/lines.ts";

/** Splice by text: split `text`, replace 0-based lines, join again. */
function edit(text: string, start: number, deleteCount: number, insert: string[]): string {
  const out = spliceLines(splitLines(text), start, deleteCount, insert);
  return joinLines(out.lines, out.eols);
}

describe("dominantEol", () => {
  test("CRLF only when more lines end with CRLF than with LF", () => {
    expect(dominantEol(["\r\n", "\r\n", "\n"])).toBe("\r\n");
    expect(dominantEol(["\r\n", "\r\n", ""])).toBe("\r\n");
    expect(dominantEol(["\n", "\n", "\r\n"])).toBe("\n");
  });

  test("ties and files without terminators get LF", () => {
    expect(dominantEol(["\r\n", "\n"])).toBe("\n");
    expect(dominantEol([])).toBe("\n");
    expect(dominantEol([""])).toBe("\n");
  });
});

describe("endsWithNewline / detectEolStyle", () => {
  test("reports whether the last line is terminated", () => {
    expect(endsWithNewline(splitLines("a\nb").eols)).toBe(false);
    expect(endsWithNewline(splitLines("a\nb\r\n").eols)).toBe(true);
    expect(endsWithNewline([])).toBe(false);
  });

  test("an empty file counts as ending with a newline so new lines get one", () => {
    expect(detectEolStyle([])).toEqual({ eol: "\n", finalNewline: true });
    expect(detectEolStyle(splitLines("a\r\nb").eols)).toEqual({ eol: "\r\n", finalNewline: false });
  });
});

describe("spliceLines", () => {
  test("editing a CRLF file keeps it CRLF", () => {
    expect(edit("a\r\nb\r\nc\r\n", 1, 1, ["B", "B2"])).toBe("a\r\nB\r\nB2\r\nc\r\n");
    expect(edit("a\r\nb\r\n", 2, 0, ["c"])).toBe("a\r\nb\r\nc\r\n");
  });

  test("untouched lines of a mixed file keep their own terminator; new lines take the dominant one", () => {
    // LF dominant (2 vs 1); the CRLF line 2 stays CRLF.
    expect(edit("a\nb\r\nc\n", 2, 1, ["C", "D"])).toBe("a\nb\r\nC\nD\n");
    // A replaced line reuses the terminator of the line it replaces.
    expect(edit("a\nb\r\nc\n", 1, 1, ["B"])).toBe("a\nB\r\nc\n");
    expect(edit("a\nb\r\nc\n", 1, 1, ["B", "B2"])).toBe("a\nB\r\nB2\nc\n");
  });

  test("a missing final newline stays missing", () => {
    expect(edit("a\nb", 1, 1, ["B"])).toBe("a\nB");
    expect(edit("a\nb", 1, 1, ["B", "C"])).toBe("a\nB\nC");
    expect(edit("a\nb", 2, 0, ["c"])).toBe("a\nb\nc");
    expect(edit("a\nb", 1, 1, [])).toBe("a");
    expect(edit("a\r\nb", 0, 2, ["x", "y", "z"])).toBe("x\r\ny\r\nz");
    expect(edit("a", 0, 0, ["z"])).toBe("z\na");
  });

  test("a present final newline stays present", () => {
    expect(edit("a\nb\n", 1, 1, [])).toBe("a\n");
    expect(edit("a\nb\n", 2, 0, ["c"])).toBe("a\nb\nc\n");
  });

  test("an empty file gets terminated lines; deleting everything leaves an empty file", () => {
    expect(edit("", 0, 0, ["a", "b"])).toBe("a\nb\n");
    expect(edit("a\r\nb", 0, 2, [])).toBe("");
  });

  test("start and deleteCount are clamped like Array.prototype.splice", () => {
    expect(edit("a\nb\n", 9, 3, ["c"])).toBe("a\nb\nc\n");
    expect(edit("a\nb\n", -1, 9, ["z"])).toBe("z\n");
  });

  test("an empty unterminated last line is dropped: it cannot exist on disk", () => {
    const out = spliceLines(splitLines("a\nb"), 1, 1, [""]);
    expect(out).toEqual({ lines: ["a"], eols: ["\n"] });
    expect(edit("a\nb", 1, 1, ["", ""])).toBe("a\n\n");
  });

  test("does not mutate its input", () => {
    const src = splitLines("a\nb");
    spliceLines(src, 1, 1, ["c", "d"]);
    expect(src).toEqual({ lines: ["a", "b"], eols: ["\n", ""] });
  });
});

const lineContent = fc.constantFrom("", "a", "bb", "\tx", "é世🚀", "q\rq");
const eol = fc.constantFrom("\n", "\r\n", "");
/** Files as splitLines sees them: any mix of contents and terminators. */
const doc = fc.array(fc.tuple(lineContent, eol), { maxLength: 12, size: "max" }).map((pairs) => splitLines(pairs.map(([l, e]) => l + e).join("")));

describe("spliceLines properties", () => {
  test("contents follow Array.splice; lines outside the range keep their terminator; final-newline state kept", () => {
    fc.assert(
      fc.property(doc, fc.nat(14), fc.nat(14), fc.array(lineContent, { maxLength: 5 }), (src, s, d, insert) => {
        const n = src.lines.length;
        const from = Math.min(s, n);
        const count = Math.min(d, n - from);
        const out = spliceLines(src, from, count, insert);

        const expected = src.lines.slice();
        expected.splice(from, count, ...insert);
        // ...except an empty unterminated last line, which cannot exist on disk.
        const dropped = !detectEolStyle(src.eols).finalNewline && expected.length > 0 && expected.at(-1) === "";
        if (dropped) expected.pop();
        expect(out.lines).toEqual(expected);
        expect(out.eols.length).toBe(out.lines.length);

        const m = out.lines.length;
        const style = detectEolStyle(src.eols);
        for (let i = 0; i < m - 1; i++) expect(out.eols[i]).not.toBe("");
        if (m > 0 && !dropped) expect(endsWithNewline(out.eols)).toBe(style.finalNewline);
        // Before the range (except the line just before it, which may have
        // been the unterminated last line) and after it (except the new last
        // line), terminators are untouched.
        for (let i = 0; i < from - 1; i++) expect(out.eols[i]).toBe(src.eols[i]);
        for (let i = from + count; i < n - 1; i++) expect(out.eols[i - count + insert.length]).toBe(src.eols[i]);
        // What is written is what is read back: the same lines and terminators.
        expect(splitLines(joinLines(out.lines, out.eols))).toEqual(out);
      }),
      { numRuns: 1000 },
    );
  });
});
