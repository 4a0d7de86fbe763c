/** Where a session's own edits moved the lines it viewed: composition, what was shown, bounds. Pure. */
import { describe, expect, test } from "bun:test";
import { afterOwnEdit, isOwnEdits, MAX_KEPT_RUNS, shownByChanges, shownNow, UNTRACKED, viewedLineNow, withShown } from "../../src/policy/own-edits.ts";
import { observeLines } from "../../src/policy/seen.ts";
import type { OwnEdits } from "../../src/policy/types.ts";

const insert = (after: number, count: number) => ({ oldStart: after + 1, oldCount: 0, newStart: after + 1, newCount: count });
const replace = (start: number, oldCount: number, newCount: number, shiftBefore = 0) => ({
  oldStart: start,
  oldCount,
  newStart: start + shiftBefore,
  newCount,
});
const mapAll = (own: OwnEdits, n: number) => Array.from({ length: n }, (_, i) => viewedLineNow(own, i + 1) ?? null);

describe("afterOwnEdit", () => {
  test("an insert moves the lines after it and keeps those before", () => {
    const own = afterOwnEdit(undefined, [insert(2, 3)], [])!;
    expect(mapAll(own, 5)).toEqual([1, 2, 6, 7, 8]);
  });

  test("a replaced line has no new place; the lines after it move by the size change", () => {
    const own = afterOwnEdit(undefined, [replace(3, 1, 2)], [])!;
    expect(mapAll(own, 5)).toEqual([1, 2, null, 5, 6]);
  });

  test("two edits compose: the second's changes are numbered in the first one's result", () => {
    const first = afterOwnEdit(undefined, [insert(0, 2)], [])!; // viewed 1..n -> 3..n+2
    const second = afterOwnEdit(first, [{ oldStart: 5, oldCount: 1, newStart: 5, newCount: 0 }], [])!; // deletes the viewed line 3
    expect(mapAll(second, 6)).toEqual([3, 4, null, 5, 6, 7]);
  });

  test("edits that move no viewed line leave no record, even composed back to where they started", () => {
    expect(afterOwnEdit(undefined, [replace(4, 1, 1)], [[2, 6]])).toBeUndefined();
    const moved = afterOwnEdit(undefined, [insert(0, 1)], [])!;
    expect(afterOwnEdit(moved, [{ oldStart: 1, oldCount: 1, newStart: 1, newCount: 0 }], [])).toBeUndefined();
  });

  test("shown lines follow later edits, and a changed one is no longer shown", () => {
    const first = afterOwnEdit(undefined, [insert(0, 2)], shownByChanges([insert(0, 2)]))!;
    expect(first.shown).toEqual([[1, 4]]);
    const second = afterOwnEdit(first, [insert(0, 1)], [])!;
    expect(second.shown).toEqual([[2, 5]]);
    expect(shownNow(second, 1)).toBe(false);
    expect(shownNow(second, 5)).toBe(true);
  });

  test("past its bounds, or after an edit whose changes are unknown, the moves are untracked until a whole view, never restarted", () => {
    let own: OwnEdits | undefined;
    for (let k = 0; k < MAX_KEPT_RUNS + 2; k++) own = afterOwnEdit(own, [{ oldStart: 10 + 3 * k, oldCount: 1, newStart: 10 + 3 * k, newCount: 2 }], []);
    expect(own).toEqual(UNTRACKED);
    // A later edit does not start a record as if the session had just viewed this version: still untracked,
    // but the lines its result showed are current (an untracked record doubts every other line, see batch_edit).
    expect(afterOwnEdit(own, [insert(0, 1)], [[1, 3]])).toEqual({ kept: [], shown: [[1, 3]] });
    expect(mapAll(UNTRACKED, 3)).toEqual([null, null, null]);
    expect(withShown(UNTRACKED, [[1, 2]])).toEqual({ kept: [], shown: [[1, 2]] });
    expect(afterOwnEdit(undefined, undefined, [])).toEqual(UNTRACKED);
    expect(observeLines({ kind: "present", version: "v", own: UNTRACKED }, "v", 1, 9, 9)).toEqual({ kind: "present", version: "v" });
  });
});

describe("the record in observations", () => {
  const own: OwnEdits = {
    kept: [
      [1, 2, 1],
      [3, 9007199254740991, 6],
    ],
    shown: [[1, 5]],
  };

  test("a ranged view of the same version adds its lines to what was shown; a whole view forgets the record", () => {
    const ranged = observeLines({ kind: "present", version: "v", own }, "v", 20, 30, 100);
    expect(ranged).toEqual({
      kind: "present",
      version: "v",
      own: {
        ...own,
        shown: [
          [1, 5],
          [20, 30],
        ],
      },
    });
    expect(observeLines({ kind: "present", version: "v", own }, "v", 1, 100, 100)).toEqual({ kind: "present", version: "v" });
    // A part of another writer's version: the moves stay, loose (a doubt about older ids, never a correction),
    // and only the lines of that view count as shown.
    expect(observeLines({ kind: "present", version: "v", own }, "w", 20, 30, 100)).toEqual({
      kind: "present",
      version: "w",
      seen: [[20, 30]],
      own: { kept: own.kept, shown: [[20, 30]], loose: true },
    });
    expect(observeLines({ kind: "present", version: "v", own }, "w", 1, 100, 100)).toEqual({ kind: "present", version: "w" });
    // A partly seen version keeps its moves until every line of it was seen.
    const partly = observeLines({ kind: "present", version: "v", seen: [], own }, "v", 20, 30, 100);
    expect(partly).toEqual({
      kind: "present",
      version: "v",
      seen: [[20, 30]],
      own: {
        ...own,
        shown: [
          [1, 5],
          [20, 30],
        ],
      },
    });
    expect(observeLines(partly, "v", 1, 100, 100)).toEqual({ kind: "present", version: "v" });
  });

  test("withShown and isOwnEdits keep the shape stores rely on", () => {
    expect(withShown(own, [[7, 8]]).shown).toEqual([
      [1, 5],
      [7, 8],
    ]);
    expect(isOwnEdits(own)).toBe(true);
    expect(isOwnEdits({ kept: [[1, 2]], shown: [] })).toBe(false);
    expect(isOwnEdits({ kept: [[0, 2, 1]], shown: [] })).toBe(false);
    expect(isOwnEdits({ kept: [], shown: "x" })).toBe(false);
  });
});
