/**
 * Uniqueness counts overlapping occurrences: "row\nrow\n" in three "row"
 * lines, "aa" in "aaa", "==" in "===" each occur twice, and the first used
 * to be edited silently. Every rung of the ladder (exact, escaped, fuzzy)
 * is checked; replace_all keeps its left-to-right, non-overlapping reading
 * and says when occurrences overlapped. The search stays linear.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { applyStringEdit, editsAtMatches, findMatch, readyEdit } from "../../src/text/match.ts";
import { anyOverlap, findAllOccurrences, leftToRight } from "../../src/text/match-overlap.ts";
import { findOccurrences, type TextSpan } from "../../src/text/line-edits.ts";
import { allIndexesOfText, compileText, type SearchWork } from "../../src/text/text-find.ts";

/** Every overlapping occurrence in the lines' text (each line followed by "\n"), by native indexOf from match start + 1. */
function naiveAll(lines: readonly string[], needle: string): number[] {
  const text = lines.map((l) => `${l}\n`).join("");
  const out: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) out.push(at);
  return out;
}

/** A span's start as an offset in the lines' text. */
function offsetOf(lines: readonly string[], span: TextSpan): number {
  let offset = 0;
  for (let i = 0; i < span.start.line; i++) offset += lines[i].length + 1;
  return offset + span.start.col;
}

describe("edit: overlapping occurrences are ambiguous", () => {
  test("row\\nrow\\n in three row lines: two places, nothing applied", () => {
    const lines = ["row", "row", "row"];
    expect(applyStringEdit(lines, "row\nrow\n", "row\nrow\nNEW\n")).toMatchObject({ kind: "ambiguous", strategy: "exact", total: 2, nonOverlapping: 1 });
  });

  test('"aa" in "aaa" and "==" in "===": two places on one line, told apart by column', () => {
    expect(findMatch(["value = 'aaa'"], "aa")).toMatchObject({
      kind: "ambiguous",
      total: 2,
      matches: [
        { line: 1, column: 10 },
        { line: 1, column: 11 },
      ],
    });
    expect(applyStringEdit(["x = a === b"], "==", "!=")).toMatchObject({ kind: "ambiguous", total: 2 });
  });

  test('"aa" in "aaaa" counts the overlapping middle place too', () => {
    expect(findMatch(["aaaa"], "aa")).toMatchObject({ kind: "ambiguous", total: 3 });
  });

  test("the escaped rung counts overlapping places", () => {
    expect(applyStringEdit(["a", "a", "a"], "a\\na\\n", "b\\n")).toMatchObject({ kind: "ambiguous", strategy: "escaped", total: 2 });
  });

  test("the fuzzy rung counts overlapping windows", () => {
    expect(applyStringEdit(["a", "a", "a"], "a \na ", "b")).toMatchObject({ kind: "ambiguous", strategy: "fuzzy", total: 2 });
  });

  test("a unique match is still applied", () => {
    const r = applyStringEdit(["row", "row", "end"], "row\nend", "row\nEND");
    expect(r).toMatchObject({ kind: "ok", replacements: 1 });
    if (r.kind === "ok") expect(r.lines).toEqual(["row", "row", "END"]);
  });

  test("each overlapping place gets its own ready call, and each, sent as is, changes exactly that place", () => {
    const lines = ["row", "row", "row"];
    const edits = editsAtMatches(lines, "row\nrow\n", "row\nrow\nNEW\n", 5);
    expect(edits).toHaveLength(2);
    const results = edits.map((e) => {
      const ready = readyEdit(lines, e!)!;
      const r = applyStringEdit(lines, ready.oldString, ready.newString);
      return r.kind === "ok" ? r.lines : r.kind;
    });
    expect(results).toEqual([
      ["row", "row", "NEW", "row"],
      ["row", "row", "row", "NEW"],
    ]);
  });
});

describe("replace_all over overlapping occurrences", () => {
  test("replaces the non-overlapping ones left to right, and says the occurrences overlapped", () => {
    const r = applyStringEdit(["aaa"], "aa", "b", { replaceAll: true });
    expect(r).toMatchObject({ kind: "ok", replacements: 1, lines: ["ba"] });
    if (r.kind === "ok") expect(r.hint).toContain("old_string occurs 2 times counting overlapping occurrences");
  });

  test("without overlaps there is no such note", () => {
    const r = applyStringEdit(["ab ab"], "ab", "x", { replaceAll: true });
    expect(r).toMatchObject({ kind: "ok", replacements: 2, lines: ["x x"] });
    if (r.kind === "ok") expect(r.hint).toBeUndefined();
  });
});

describe("findAllOccurrences", () => {
  const text = (chars: string[], maxLength: number) => fc.array(fc.constantFrom(...chars), { maxLength }).map((a) => a.join(""));

  test("agrees with indexOf from each match start + 1, multi-line needles included; leftToRight agrees with the non-overlapping search", () => {
    fc.assert(
      fc.property(fc.array(text(["a", "b"], 6), { minLength: 1, maxLength: 8 }), text(["a", "b", "\n"], 7), (lines, needle) => {
        fc.pre(needle !== "");
        const all = findAllOccurrences(lines, needle);
        expect(all.map((s) => offsetOf(lines, s))).toEqual(naiveAll(lines, needle));
        expect(leftToRight(all)).toEqual(findOccurrences(lines, needle));
        expect(anyOverlap(all)).toBe(leftToRight(all).length !== all.length);
      }),
      { numRuns: 3000 },
    );
  });

  test("long needles (past the native-indexOf length) agree too", () => {
    const line = "ab".repeat(200);
    const needle = "ab".repeat(40);
    expect(findAllOccurrences([line], needle).map((s) => s.start.col)).toEqual(naiveAll([line], needle));
  });

  test("the limit stops the search", () => {
    expect(findAllOccurrences(["aaaaaa"], "a", 2)).toHaveLength(2);
  });

  test("allIndexesOfText never restarts: a long needle in a long run of one character costs at most twice the text", () => {
    const hay = "a".repeat(100_000);
    const work: SearchWork = { steps: 0 };
    const found = allIndexesOfText(hay, compileText("a".repeat(2000)), Number.POSITIVE_INFINITY, work);
    expect(found).toHaveLength(100_000 - 2000 + 1);
    // Searching again from each match start + 1 would read ~2000 characters per match: ~2e8.
    expect(work.steps).toBeLessThanOrEqual(2 * hay.length);
  });

  test("a multi-line needle of many repeated lines over a file of them: every start, found by a search over the lines", () => {
    const lines = Array.from({ length: 3000 }, () => "x");
    expect(findAllOccurrences(lines, `${"x\n".repeat(1000)}`)).toHaveLength(2001);
    expect(findAllOccurrences(lines, `${"x\n".repeat(1000)}y`)).toHaveLength(0);
  });
});
