/**
 * The no-match diagnostics are bounded by the size of what they read, never
 * by the product of the file and old_string: a failed edit with a 1 MB line
 * of "a" and an old_string of "a" x 2000 + "e" had cost 2e9 comparisons
 * (15 s, every other request blocked). Work is asserted on counters, and
 * the results on references that are the old, quadratic algorithms.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { alignHead, type CharDifference, charDifferences, findWhitespaceOnly } from "../../src/text/near-match.ts";
import { closestWindows, SCORE_BUDGET } from "../../src/text/similarity.ts";
import { compileText, containsText, indexOfText, type SearchWork } from "../../src/text/text-find.ts";
import { findOccurrences } from "../../src/text/line-edits.ts";

/** The column where `head` shares the longest prefix with `line`, trying every column (the old bestAlignment). */
function naiveAlign(line: string, head: string): number {
  let best = 0;
  let bestLength = -1;
  for (let o = 0; o <= line.length; o++) {
    let k = 0;
    while (k < head.length && o + k < line.length && line[o + k] === head[k]) k++;
    if (k > bestLength) {
      best = o;
      bestLength = k;
      if (k === head.length) break;
    }
  }
  return best;
}

/**
 * charDifferences read plainly, one code point at a time with strings made
 * for each: at a difference, the reading (swap, a character only the file
 * has, one only old_string has) after which the two agree longest, read
 * ahead up to 16 characters within old_string's line.
 */
function naiveDifferences(lines: readonly string[], start: number, needle: string, column?: number, limit = 5): CharDifference[] {
  const charAt = (text: string, i: number) => String.fromCodePoint(text.codePointAt(i)!);
  const agree = (fileText: string, col: number, i: number) => {
    const rest = needle.slice(i).split("\n")[0];
    const endsLine = i + rest.length < needle.length;
    for (let k = 0; k < 16; k++) {
      if (k === rest.length) return endsLine ? (col + k >= fileText.length ? 17 : k) : 17;
      if (col + k >= fileText.length || rest[k] !== fileText[col + k]) return k;
    }
    return 16;
  };
  let line = start;
  let col = column ?? naiveAlign(lines[start] ?? "", needle.split("\n", 1)[0]);
  let nLine = 1;
  let nCol = 0;
  const found: CharDifference[] = [];
  for (let i = 0; i < needle.length; ) {
    const fileText = lines[line];
    const fileCh = fileText === undefined ? undefined : col < fileText.length ? charAt(fileText, col) : line + 1 < lines.length ? "\n" : undefined;
    const needleCh = charAt(needle, i);
    if (fileCh !== needleCh) {
      let kind: CharDifference["kind"] = "swap";
      if (fileCh !== undefined && fileCh !== "\n" && needleCh !== "\n") {
        const swap = agree(fileText!, col + fileCh.length, i + needleCh.length);
        const extra = agree(fileText!, col + fileCh.length, i);
        const missing = agree(fileText!, col, i + needleCh.length);
        if (!(swap >= extra && swap >= missing)) kind = extra >= missing ? "extra" : "missing";
      }
      const d = { needleLine: nLine, needleColumn: nCol + 1, fileLine: line, fileColumn: col + 1, kind };
      found.push(
        kind === "extra" ? { ...d, fileChar: fileCh } : kind === "missing" ? { ...d, needleChar: needleCh } : { ...d, needleChar: needleCh, fileChar: fileCh },
      );
      const aligned = fileCh !== undefined && fileCh !== "\n" && needleCh !== "\n";
      if (found.length > limit || !aligned) return found.slice(0, 1);
      if (kind !== "missing") col += fileCh.length;
      if (kind !== "extra") {
        i += needleCh.length;
        nCol += needleCh.length;
      }
      continue;
    }
    i += needleCh.length;
    if (needleCh === "\n") {
      line++;
      col = 0;
      nLine++;
      nCol = 0;
    } else {
      col += needleCh.length;
      nCol += needleCh.length;
    }
  }
  return found;
}

/** Small alphabets, so that prefixes, borders and near misses are common. */
const text = (chars: string[], maxLength: number) => fc.array(fc.constantFrom(...chars), { maxLength }).map((a) => a.join(""));
const AB = ["a", "b"];
const MIXED = ["a", "b", " ", "\t", "“", '"', "😀", "\ud83d"];

describe("indexOfText: linear substring search", () => {
  test("agrees with the native indexOf, from any start", () => {
    fc.assert(
      fc.property(text(AB, 40), text(AB, 6), fc.nat(45), (hay, needle, from) => {
        expect(indexOfText(hay, compileText(needle), from)).toBe(needle === "" ? (from <= hay.length ? from : -1) : hay.indexOf(needle, from));
        expect(containsText(hay, compileText(needle))).toBe(hay.includes(needle));
      }),
      { numRuns: 3000 },
    );
  });

  test("a needle that matches far at every position before failing costs at most twice the text", () => {
    const hay = "a".repeat(100_000);
    const work: SearchWork = { steps: 0 };
    expect(indexOfText(hay, compileText(`${"a".repeat(2000)}b${"a".repeat(2000)}`), 0, work)).toBe(-1);
    // Trying the needle at each position would be ~2e8 comparisons.
    expect(work.steps).toBeLessThanOrEqual(2 * hay.length);
  });
});

describe("alignHead: the column old_string's first line starts at", () => {
  test("agrees with trying every column", () => {
    fc.assert(
      fc.property(text(AB, 30), text(AB, 8), (line, head) => {
        expect(alignHead(line, head)).toBe(naiveAlign(line, head));
      }),
      { numRuns: 3000 },
    );
  });

  test("the attack at small scale: a long line of 'a' and a head of 'a' x M + 'e' costs line + head, not their product", () => {
    const line = "a".repeat(50_000);
    const head = `${"a".repeat(1000)}e`;
    const work: SearchWork = { steps: 0 };
    expect(alignHead(line, head, work)).toBe(0);
    // Trying every column: 5e7 comparisons.
    expect(work.steps).toBeLessThanOrEqual(2 * (line.length + head.length) + 2);
  });

  test("a head longer than the line costs only the line", () => {
    const work: SearchWork = { steps: 0 };
    expect(alignHead("ab".repeat(10), "ab".repeat(100_000), work)).toBe(0);
    expect(work.steps).toBeLessThanOrEqual(4 * 20 + 2);
  });
});

describe("charDifferences: agrees with a plain reading", () => {
  test("agrees with the code-point-at-a-time reading, surrogate pairs and lone surrogates included", () => {
    fc.assert(
      fc.property(
        fc.array(text(MIXED, 12), { minLength: 1, maxLength: 4 }),
        fc.nat(3),
        fc.array(text(MIXED, 12), { minLength: 1, maxLength: 3 }),
        (lines, at, needleLines) => {
          const start = at % lines.length;
          const needle = needleLines.join("\n");
          expect(charDifferences(lines, start, needle)).toEqual(naiveDifferences(lines, start, needle));
          expect(charDifferences(lines, start, needle, 0, 1)).toEqual(naiveDifferences(lines, start, needle, 0, 1));
        },
      ),
      { numRuns: 3000 },
    );
  });

  test("the typographic case: smart quotes named one for one", () => {
    const d = charDifferences(['  say("hi");'], 0, "say(“hi”);");
    expect(d.map((x) => [x.needleColumn, x.needleChar, x.fileChar])).toEqual([
      [5, "“", '"'],
      [8, "”", '"'],
    ]);
    expect(d[0].fileColumn).toBe(7);
  });
});

describe("findWhitespaceOnly: bounded search", () => {
  /** The old search: the engine's indexOf, which retries the needle at every position. */
  function naivePlaces(lines: readonly string[], needle: string): [number, number, number][] {
    const want = needle.replace(/\s+/g, "");
    if (want === "") return [];
    const flat = lines.map((l) => l.replace(/\s+/g, "")).join("");
    const found: number[] = [];
    for (let at = flat.indexOf(want); at !== -1 && found.length < 3; at = flat.indexOf(want, at + want.length)) found.push(at);
    return found.map((at) => [at, at + want.length, want.length]);
  }

  test("finds the same places as the native search", () => {
    fc.assert(
      fc.property(fc.array(text(["a", "b", " "], 8), { minLength: 1, maxLength: 5 }), text(["a", "b", " ", "\n"], 6), (lines, needle) => {
        const places = findWhitespaceOnly(lines, needle);
        expect(places.length).toBe(naivePlaces(lines, needle).length);
        for (const p of places) expect(p.text.replace(/\s+/g, "")).toBe(needle.replace(/\s+/g, ""));
      }),
      { numRuns: 2000 },
    );
  });

  test("the attack at small scale: a needle that matches far everywhere costs about twice the file", () => {
    const lines = ["a ".repeat(25_000)];
    const work: SearchWork = { steps: 0 };
    expect(findWhitespaceOnly(lines, `${"a".repeat(500)} b ${"a".repeat(500)}`, 3, work)).toEqual([]);
    expect(work.steps).toBeLessThanOrEqual(2 * 25_000);
  });

  test("an ordinary place is still found, with its column and exact text", () => {
    expect(findWhitespaceOnly(["x = 1;", "  foo( a,b );"], "foo(a, b)")).toEqual([{ start: 1, end: 2, column: 2, text: "foo( a,b )" }]);
  });
});

describe("closestWindows: a budget on exact scoring", () => {
  /** A long line of its own: ~2000 characters, distinct from every other row. */
  const row = (i: number) => Array.from({ length: 250 }, (_, k) => `r${i}w${k % 40}`).join(" ");

  test("long lines past the budget: only as many windows as it pays for are scored, and the near miss is still found", () => {
    const lines = Array.from({ length: 400 }, (_, i) => row(i));
    const needle = [lines[200].replace("w", "W"), lines[201]];
    const budget = 200_000;
    const work = { steps: 0 };
    const c = closestWindows(lines, needle, { budget, work });
    expect(c[0]).toMatchObject({ start: 200, end: 202 });
    // One window costs ~ 4 line profiles of ~1300 bigrams; exhaustive scoring here would be ~2e6.
    expect(work.steps).toBeLessThanOrEqual(budget);
    const all = { steps: 0 };
    closestWindows(lines, needle, { budget: Number.POSITIVE_INFINITY, work: all });
    expect(all.steps).toBeGreaterThan(8 * budget);
  });

  test("within the default budget the results are those of scoring every window", () => {
    const lines = Array.from({ length: 300 }, (_, i) => `let v${i} = f(${i % 5});`);
    const needle = ["let v120 = f(0)", "let v121 = g(1);"];
    const work = { steps: 0 };
    const bounded = closestWindows(lines, needle, { work });
    expect(bounded).toEqual(closestWindows(lines, needle, { budget: Number.POSITIVE_INFINITY }));
    expect(bounded[0].start).toBe(120);
    expect(work.steps).toBeLessThanOrEqual(SCORE_BUDGET);
  });

  test("even a single window past the budget is scored (a hint rather than none), once", () => {
    const lines = [row(1), row(2)];
    const work = { steps: 0 };
    const c = closestWindows(lines, [row(1)], { budget: 10, work });
    expect(c[0]).toMatchObject({ start: 0, percent: 100 });
    expect(work.steps).toBeLessThanOrEqual(2 * (row(1).length + 1));
  });
});

describe("findOccurrences: a long repetitive needle in a long line", () => {
  test("finds the same places as indexOf would, for long needles on repetitive lines", () => {
    const line = `${"a".repeat(3000)}b${"a".repeat(3000)}b${"a".repeat(200)}`;
    const needle = `${"a".repeat(100)}b${"a".repeat(100)}`;
    const spans = findOccurrences([line, "x", line], needle);
    const expected: number[] = [];
    for (let at = line.indexOf(needle); at !== -1; at = line.indexOf(needle, at + needle.length)) expected.push(at);
    expect(spans.filter((s) => s.start.line === 0).map((s) => s.start.col)).toEqual(expected);
    expect(spans.filter((s) => s.start.line === 2).map((s) => s.start.col)).toEqual(expected);
    expect(spans.every((s) => s.end.col - s.start.col === needle.length)).toBe(true);
  });
});
