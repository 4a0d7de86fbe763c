/** The line ids a session holds (pure): recording, moving with its own edits, bounds, and the check. */
import { describe, expect, test } from "bun:test";
import {
  checkHeld,
  HELD_NEIGHBOURS,
  heldAfterEdit,
  heldAt,
  heldFits,
  hold,
  holdSpans,
  isHeldIds,
  MAX_HELD_LINES,
  removedAtTarget,
} from "../../src/policy/held-ids.ts";

const bytes = (...xs: number[]) => Uint8Array.from(xs);

describe("held ids: recording", () => {
  test("a view's lines are held by number; a later view of overlapping lines replaces them there", () => {
    let held = hold(undefined, 3, bytes(1, 2, 3));
    expect(held).toEqual([[3, "010203"]]);
    held = hold(held, 5, bytes(9, 9));
    expect(held).toEqual([[3, "01020909"]]); // lines 5-6 replaced and joined to the run before
    held = hold(held, 10, bytes(0xab));
    expect(held).toEqual([
      [3, "01020909"],
      [10, "ab"],
    ]);
    expect([heldAt(held, 2), heldAt(held, 3), heldAt(held, 6), heldAt(held, 7), heldAt(held, 10)]).toEqual([undefined, 1, 9, undefined, 0xab]);
    expect(isHeldIds(held)).toBe(true);
  });

  test("spans of a document are held with the document's hashes; spans past its end are clipped", () => {
    const hashes = bytes(10, 11, 12, 13, 14);
    expect(
      holdSpans(
        undefined,
        [
          [2, 3],
          [5, 9],
        ],
        hashes,
      ),
    ).toEqual([
      [2, "0b0c"],
      [5, "0e"],
    ]);
  });

  test(`at most ${MAX_HELD_LINES} lines are held: the ones farthest from the newest view are let go`, () => {
    const big = new Uint8Array(MAX_HELD_LINES).fill(7);
    let held = hold(undefined, 1, big);
    held = hold(held, MAX_HELD_LINES + 100, bytes(1, 2));
    const total = held.reduce((n, [, h]) => n + h.length / 2, 0);
    expect(total).toBe(MAX_HELD_LINES);
    expect(heldAt(held, 1)).toBeUndefined(); // the far end of the old view went first
    expect(heldAt(held, MAX_HELD_LINES)).toBe(7);
    expect(heldAt(held, MAX_HELD_LINES + 101)).toBe(2);
  });

  test("malformed records are told apart (a store drops them rather than check against them)", () => {
    expect(
      isHeldIds([
        [1, "0a"],
        [2, "0b"],
      ]),
    ).toBe(true);
    expect(
      isHeldIds([
        [2, "0a0b"],
        [3, "0c"],
      ]),
    ).toBe(false); // overlapping
    expect(isHeldIds([[1, "0A"]])).toBe(false);
    expect(isHeldIds([[0, "0a"]])).toBe(false);
    expect(isHeldIds([[1, "0"]])).toBe(false);
    expect(isHeldIds("01")).toBe(false);
  });
});

describe("held ids: the session's own edits move them", () => {
  test("lines below an insert move down; the new lines are held with the ids the result showed", () => {
    const held = hold(undefined, 1, bytes(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
    // Two lines inserted after line 5 (new lines 6-7), shown with their ids.
    const after = heldAfterEdit(held, [{ oldStart: 6, oldCount: 0, newStart: 6, newCount: 2, ids: ["6:aa", "7:bb"], complete: true }])!;
    expect([1, 2, 3, 4, 5].map((l) => heldAt(after, l))).toEqual([1, 2, 3, 4, 5]);
    expect([6, 7].map((l) => heldAt(after, l))).toEqual([0xaa, 0xbb]);
    expect([8, 9, 10, 11, 12].map((l) => heldAt(after, l))).toEqual([6, 7, 8, 9, 10]);
  });

  test("new lines whose ids the result did not list all are not held (unknown, not guessed)", () => {
    const held = hold(undefined, 1, bytes(1, 2, 3));
    const after = heldAfterEdit(held, [{ oldStart: 2, oldCount: 1, newStart: 2, newCount: 2, ids: ["2:aa"], complete: false }])!;
    expect([1, 2, 3, 4].map((l) => heldAt(after, l))).toEqual([1, undefined, undefined, 3]);
  });

  test("an edit whose changes are not known lets go of everything", () => {
    expect(heldAfterEdit(hold(undefined, 1, bytes(1, 2)), undefined)).toBeUndefined();
  });
});

describe("held ids: the check", () => {
  const file = (...xs: number[]) => bytes(...xs);

  test("lines as held: ok", () => {
    const held = hold(undefined, 1, bytes(1, 2, 3, 4, 5));
    expect(checkHeld(held, file(1, 2, 3, 4, 5), 5, 3, 3)).toEqual({ kind: "ok" });
  });

  test("a changed line inside a range is named", () => {
    const held = hold(undefined, 1, bytes(1, 2, 3, 4, 5));
    expect(checkHeld(held, file(1, 2, 9, 4, 5), 5, 2, 4)).toEqual({ kind: "changed", lines: [3] });
  });

  test("an insert above: the neighbours fit 3 lines down, so the target moved (an equal line took its number)", () => {
    // Held: a{ r1 } b{ r2 }; now z{ r0 } a{ r1 } b{ r2 }: line 3 is `}` (hash 3) both times.
    const held = hold(undefined, 1, bytes(10, 11, 3, 12, 13, 3));
    const now = file(20, 21, 3, 10, 11, 3, 12, 13, 3);
    expect(checkHeld(held, now, 9, 3, 3)).toEqual({ kind: "moved", shift: 3 });
  });

  test("repetitive code: neighbours that fit two offsets equally are told apart by held lines farther out", () => {
    // Getters of one shape (name, if, return, brace, blank), another inserted above: near lines fit both offsets.
    const getter = (name: number) => [name, 2, 3, 4, 5];
    const held = hold(undefined, 1, bytes(...getter(10), ...getter(11), ...getter(12)));
    const now = file(...getter(9), ...getter(10), ...getter(11), ...getter(12));
    // Line 8 (getter 11's return) held; in the file now it is getter 10's.
    expect(checkHeld(held, now, now.length, 8, 8)).toEqual({ kind: "moved", shift: 5 });
    // The same file as the session knows it (nothing else wrote it): taken at once.
    expect(checkHeld(held, bytes(...getter(10), ...getter(11), ...getter(12)), 15, 8, 8, { changedSinceView: false })).toEqual({ kind: "ok" });
  });

  test(`changes next to the target, in place, are accepted: no other offset fits the ${HELD_NEIGHBOURS} neighbours either side better`, () => {
    const held = hold(undefined, 1, bytes(10, 11, 12, 13, 14, 15, 16));
    expect(checkHeld(held, file(10, 99, 98, 13, 97, 96, 16), 7, 4, 4)).toEqual({ kind: "ok" });
  });

  test("only the target held (a search hit without context): after another writer's change, a hash other lines share is in doubt; a unique one is not", () => {
    const held = hold(undefined, 3, bytes(7));
    expect(checkHeld(held, file(1, 7, 7, 4), 4, 3, 3)).toEqual({ kind: "moved" });
    expect(checkHeld(held, file(1, 2, 7, 4), 4, 3, 3)).toEqual({ kind: "ok" });
    expect(checkHeld(held, file(1, 7, 7, 4), 4, 3, 3, { changedSinceView: false })).toEqual({ kind: "ok" });
    // Shown from the version there now: nothing can have moved it.
    expect(checkHeld(hold(undefined, 3, bytes(7), "v2"), file(1, 7, 7, 4), 4, 3, 3, { version: "v2" })).toEqual({ kind: "ok" });
  });

  test("a copy of the target removed right below it: a replace or delete is in doubt (the target may be the copy removed), an insert is not", () => {
    // Held: a b b c d; now a b c d (one b removed): line 2 still reads b.
    const held = hold(undefined, 1, bytes(1, 2, 2, 3, 4));
    expect(checkHeld(held, file(1, 2, 3, 4), 4, 2, 2, { removes: true })).toEqual({ kind: "removed", count: 1 });
    expect(checkHeld(held, file(1, 2, 3, 4), 4, 2, 2)).toEqual({ kind: "ok" });
    expect(checkHeld(held, file(1, 2, 3, 4), 4, 2, 2, { removes: true, changedSinceView: false })).toEqual({ kind: "ok" });
    // Shown from the version there now (the refusal's excerpt): taken as meant.
    const shown = hold(held, 1, bytes(1, 2, 3, 4), "v2");
    expect(checkHeld(shown, file(1, 2, 3, 4), 4, 2, 2, { removes: true, version: "v2" })).toEqual({ kind: "ok" });
    // A two-line block { } of three, one removed: the range over the first is in doubt.
    expect(removedAtTarget(hold(undefined, 1, bytes(1, 5, 6, 5, 6, 5, 6, 9)), file(1, 5, 6, 5, 6, 9), 6, 3)).toBe(2);
  });

  test("a removal that does not make the target read like the line below it is a change next to it, not a doubt", () => {
    // Held: a b c d e; now a b d e (c removed): b is still b.
    expect(removedAtTarget(hold(undefined, 1, bytes(1, 2, 3, 4, 5)), file(1, 2, 4, 5), 4, 2)).toBeUndefined();
    // A copy removed, but the lines below do not fit one line up (something else changed there): no claim.
    expect(removedAtTarget(hold(undefined, 1, bytes(1, 2, 2, 3, 4)), file(1, 2, 8, 9), 4, 2)).toBeUndefined();
    // One held line of evidence (nothing held past it) is not enough, unless it is the file's end.
    expect(removedAtTarget(hold(undefined, 1, bytes(1, 2, 2)), file(1, 2, 3, 7), 4, 2)).toBeUndefined();
    expect(removedAtTarget(hold(undefined, 1, bytes(1, 2, 2)), file(1, 2), 2, 2)).toBe(1);
  });

  test("where a stale line moved: the shift that makes its held neighbours fit scores highest; nothing held scores nothing", () => {
    // Held: i _ a{ r } _ b{ r }; now two lines on top: r (hash 4) at 6 and 10, line 8 the id's.
    const held = hold(undefined, 1, bytes(1, 2, 3, 4, 5, 2, 6, 4, 5));
    const now = file(8, 9, 1, 2, 3, 4, 5, 2, 6, 4, 5);
    expect(heldFits(held, now, 11, 8, [-2, 2]).scores).toEqual(
      new Map([
        [-2, 2],
        [2, 3],
      ]),
    );
    expect(heldFits(hold(undefined, 8, bytes(4)), now, 11, 8, [-2, 2]).scores).toEqual(
      new Map([
        [-2, 0],
        [2, 0],
      ]),
    );
  });

  test("lines not held are not checked (unknown is not evidence)", () => {
    expect(checkHeld(hold(undefined, 50, bytes(1)), file(1, 2, 3), 3, 2, 2)).toEqual({ kind: "ok" });
  });
});
