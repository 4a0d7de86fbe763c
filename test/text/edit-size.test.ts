/** The bound on a string edit's result size, checked before the result is built. */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { SearchWork } from "../../src/text/bytes-find.ts";
import { countPlaces, editGrowth, MAX_COUNTED, withLfEndings } from "../../src/text/edit-size.ts";
import { findOccurrences } from "../../src/text/line-edits.ts";
import { splitLines } from "../../src/text/lines.ts";
import { findMatch } from "../../src/text/match.ts";

const bytes = (s: string) => new TextEncoder().encode(s);
const MiB = 1024 * 1024;
const work = (): SearchWork => ({ compared: 0, switched: 0 });

describe("editGrowth", () => {
  const body = bytes("@\n".repeat(100));

  test("replace_all of 100 places with a long new_string is over the limit, with exactly the places and bytes it would make", () => {
    expect(editGrowth(body, "@", "Z".repeat(1_000_000), true, 32 * MiB)).toEqual({ places: 100, exact: true, bytes: 200 + 100 * 999_999 });
  });

  test("the same edit of one place, a shrinking edit, and a small total pass", () => {
    expect(editGrowth(body, "@", "Z".repeat(1_000_000), false, 32 * MiB)).toBeUndefined();
    expect(editGrowth(body, "@\n@", "x", true, 10)).toBeUndefined();
    expect(editGrowth(body, "@", "ZZ", true, 1024)).toBeUndefined();
    expect(editGrowth(body, "", "Z".repeat(1000), true, 10)).toBeUndefined();
    // Already past the limit, and the edit shrinks it: not this check's to refuse.
    expect(editGrowth(body, "@", "", false, 10)).toBeUndefined();
  });

  test("one place over the limit is over even without replace_all", () => {
    expect(editGrowth(bytes("abc"), "b", "x".repeat(50), false, 20)).toEqual({ places: 1, exact: true, bytes: 52 });
  });

  test("a multi-line old_string counts where the whole of it occurs, not where its longest line does", () => {
    // 60,001 lines: "  x = 1;" 30,000 times, old_string once. The longest-line bound said 27,734 places and 32 MiB.
    const lines: string[] = [];
    for (let i = 0; i < 60_000; i++) lines.push(i % 2 === 0 ? "}" : "  x = 1;");
    lines.push("//e");
    const file = bytes(lines.join("\n"));
    const newString = "y".repeat(1200);
    expect(editGrowth(file, "  x = 1;\n//e", newString, true, 32 * MiB)).toBeUndefined();
    expect(editGrowth(file, "  x = 1;\n//e", newString, true, file.length + 100)).toEqual({ places: 1, exact: true, bytes: file.length + 1200 - 12 });
    expect(editGrowth(file, "}\n  x = 1;", newString, true, 32 * MiB)).toEqual({ places: 30_000, exact: true, bytes: file.length + 30_000 * (1200 - 10) });
  });

  test("counting stops once the result is past the limit and a million places are counted: the count is then at least that", () => {
    const file = bytes("a".repeat(MAX_COUNTED + 500_000));
    expect(editGrowth(file, "a", "bb", true, file.length)).toEqual({ places: MAX_COUNTED, exact: false, bytes: file.length + MAX_COUNTED });
    // Fewer places than that are all counted, however far past the limit the first of them went.
    const few = bytes("a".repeat(900_000));
    expect(editGrowth(few, "a", "bb", true, few.length)).toEqual({ places: 900_000, exact: true, bytes: 1_800_000 });
    // More are counted when the limit needs more to be passed.
    expect(editGrowth(file, "a", "bb", true, file.length + MAX_COUNTED + 10)).toEqual({
      places: MAX_COUNTED + 11,
      exact: false,
      bytes: file.length + MAX_COUNTED + 11,
    });
  });

  test("a CRLF file counts old_string across its \\r\\n terminators, as sent with \\n or \\r\\n, and a new line break as two bytes", () => {
    const crlf = bytes("fn(a);\r\nfn(b);\r\n".repeat(50));
    const expected = { places: 50, exact: true, bytes: crlf.length + 50 * (100 - 13) };
    expect(editGrowth(crlf, "fn(a);\nfn(b);", "y".repeat(100), true, 2000)).toEqual(expected);
    expect(editGrowth(crlf, "fn(a);\r\nfn(b);", "y".repeat(100), true, 2000)).toEqual(expected);
    // Each place adds one line break, a "\r\n" in this file.
    expect(editGrowth(crlf, "fn(a);", "fn(a);\nx", true, 0)).toEqual({ places: 50, exact: true, bytes: crlf.length + 50 * 3 });
    // Lines that end either way: a match spanning both kinds is one place.
    const mixed = bytes("p\r\nq\nr\r\n".repeat(40));
    expect(editGrowth(mixed, "p\nq\nr", "z".repeat(20), true, 0)).toMatchObject({ places: 40, exact: true });
  });

  test("old_string's literal escapes count only where old_string as sent occurs nowhere, as the ladder reads them", () => {
    const code = bytes("fn(a);\nfn(b);\n".repeat(50));
    expect(editGrowth(code, "fn(a);\\nfn(b);", "y".repeat(100), true, 2000)).toEqual({ places: 50, exact: true, bytes: code.length + 50 * 87 });
    expect(editGrowth(code, "fn(a);\nfn(b);", "y".repeat(100), true, 1_000_000)).toBeUndefined();
    // The text as sent occurs once: the exact rung replaces that one place, not the 50 the escapes would find.
    const both = bytes(`${"fn(a);\nfn(b);\n".repeat(50)}s = "fn(a);\\nfn(b);";\n`);
    expect(editGrowth(both, "fn(a);\\nfn(b);", "y".repeat(100), true, 0)).toEqual({ places: 1, exact: true, bytes: both.length + 100 - 14 });
  });

  test("an unterminated last line matches as if a line break followed it, as the ladder reads it", () => {
    expect(editGrowth(bytes("x\ny"), "y\n", "z".repeat(40), true, 10)).toEqual({ places: 1, exact: true, bytes: 3 + 38 });
    expect(editGrowth(bytes("y\ny"), "y\n", "z".repeat(40), true, 10)).toMatchObject({ places: 2, exact: true });
    expect(editGrowth(bytes("y\ny\n"), "y\n\n", "z".repeat(40), true, 10)).toMatchObject({ places: 1 });
  });

  test("the count is the ladder's, on any file: exact rung, else escape rung, else one place (property)", () => {
    const file = fc.array(fc.constantFrom("a", "b", "\n", "\r\n", "\r", "\\n", "\t"), { maxLength: 40, size: "max" }).map((p) => p.join(""));
    const old = fc.array(fc.constantFrom("a", "b", "\n", "\r", "\\n", "\t", "\r\n"), { minLength: 1, maxLength: 6 }).map((p) => p.join(""));
    fc.assert(
      fc.property(file, old, (text, oldString) => {
        const body = bytes(text);
        const lines = splitLines(text).lines;
        const found = findMatch(lines, oldString, { replaceAll: true });
        const places = found.kind === "found" && found.strategy !== "fuzzy" ? found.ranges.length : 1;
        // Anything that grows the file passes a limit of its size: every place is reported.
        const growth = editGrowth(body, oldString, `${oldString}Z`, true, body.length);
        expect(growth).toMatchObject({ places, exact: true });
      }),
      { numRuns: 4000 },
    );
  });

  test("counting is linear in the file: a megabyte line of one letter against old_string of 1000 to 2000 of them", () => {
    const file = bytes("a".repeat(1_000_000));
    for (const old of [`${"a".repeat(1000)}e`, "a".repeat(1000), "a".repeat(1999), `${"a".repeat(1999)}e`]) {
      const w = work();
      const r = editGrowth(file, old, "c".repeat(80_000), true, 32 * MiB, w);
      const exact = old.endsWith("e") ? undefined : Math.floor(1_000_000 / old.length);
      expect(r?.places).toBe(exact);
      expect(w.compared).toBeLessThan(3 * file.length);
    }
  });
});

describe("countPlaces and withLfEndings", () => {
  test("every \\r\\n reads as \\n; a lone \\r stays", () => {
    expect(new TextDecoder().decode(withLfEndings(bytes("a\r\nb\rc\r\r\n\r\n")))).toBe("a\nb\rc\r\n\n");
    expect(withLfEndings(bytes("")).length).toBe(0);
  });

  test("agrees with the ladder's own search on the file's lines (property)", () => {
    const file = fc.array(fc.constantFrom("a", "b", "\n", "\r\n", "\r", "ab"), { maxLength: 50, size: "max" }).map((p) => p.join(""));
    const needle = fc.array(fc.constantFrom("a", "b", "\n", "\r"), { minLength: 1, maxLength: 7 }).map((p) => p.join(""));
    fc.assert(
      fc.property(file, needle, (text, n) => {
        fc.pre(!n.includes("\r\n"));
        const { places, exact } = countPlaces(withLfEndings(bytes(text)), bytes(n), Number.POSITIVE_INFINITY);
        expect({ places, exact }).toEqual({ places: findOccurrences(splitLines(text).lines, n).length, exact: true });
      }),
      { numRuns: 5000 },
    );
  });

  test("stops at the most asked for, and says so", () => {
    expect(countPlaces(bytes("ababab"), bytes("ab"), 2)).toEqual({ places: 2, exact: false });
    expect(countPlaces(bytes("ababab"), bytes("ab"), 4)).toEqual({ places: 3, exact: true });
    expect(countPlaces(bytes("aaaa"), bytes("aa"), 9)).toEqual({ places: 2, exact: true });
  });
});
