import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { formatHash, lineHash } from "../../src/hash/fnv.ts";
import { changedRuns, type DiffHunk, diffFromEdits, diffLines, renderDiff } from "../../src/text/diff.ts";
import { applyLineEdits, type LineEdit } from "../../src/text/line-edits.ts";
import { applyStringEdit } from "../../src/text/match.ts";

const id = (n: number, text: string) => `${n}:${formatHash(lineHash(text))}`;

/**
 * Rebuild the new file from the old one and the hunks (a patch). An elided
 * change carries only ranges, so its new lines are taken from `newLines`.
 */
function patch(oldLines: readonly string[], hunks: readonly DiffHunk[], newLines?: readonly string[]): string[] {
  const out: string[] = [];
  let next = 0; // next old line (0-based) not yet copied
  for (const hunk of hunks) {
    for (const line of hunk.lines) {
      if (line.kind === "elided") {
        if (newLines === undefined) throw new Error("cannot patch an elided change");
        while (next < line.oldLine - 1) out.push(oldLines[next++]);
        expect(out.length).toBe(line.newLine - 1);
        out.push(...newLines.slice(line.newLine - 1, line.newLine - 1 + line.added));
        next += line.removed;
        continue;
      }
      if (line.kind === "added") {
        out.push(line.text);
        continue;
      }
      while (next < line.oldLine - 1) out.push(oldLines[next++]);
      expect(oldLines[next]).toBe(line.text);
      if (line.kind === "context") out.push(oldLines[next]);
      next++;
    }
  }
  while (next < oldLines.length) out.push(oldLines[next++]);
  return out;
}

function lcsLength(a: readonly string[], b: readonly string[]): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    let diag = 0;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j];
      row[j] = a[i - 1] === b[j - 1] ? diag + 1 : Math.max(row[j], row[j - 1]);
      diag = up;
    }
  }
  return row[b.length];
}

/**
 * A file and a version of it with a few edits at random (often far apart)
 * places: most lines equal, so a diff has separate hunks and unchanged runs.
 */
function similarPair(line: fc.Arbitrary<string>, maxLength: number): fc.Arbitrary<[string[], string[]]> {
  const edit = fc.tuple(fc.nat(), fc.nat(4), fc.array(line, { maxLength: 3 }));
  return fc.tuple(fc.array(line, { maxLength, size: "max" }), fc.array(edit, { maxLength: 6 })).map(([a, edits]) => {
    const b = a.slice();
    for (const [at, len, lines] of edits) b.splice(at % (b.length + 1), len, ...lines);
    return [a, b];
  });
}

const changed = (hunks: readonly DiffHunk[]) => hunks.flatMap((h) => h.lines).filter((l) => l.kind === "removed" || l.kind === "added").length;

describe("diffLines", () => {
  const before = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];

  test("one changed line: a hunk with 2 lines of context each side", () => {
    const after = before.map((l) => (l === "e" ? "E" : l));
    const hunks = diffLines(before, after);
    expect(hunks).toEqual([
      {
        oldStart: 3,
        oldCount: 5,
        newStart: 3,
        newCount: 5,
        lines: [
          { kind: "context", text: "c", oldLine: 3, newLine: 3 },
          { kind: "context", text: "d", oldLine: 4, newLine: 4 },
          { kind: "removed", text: "e", oldLine: 5 },
          { kind: "added", text: "E", newLine: 5 },
          { kind: "context", text: "f", oldLine: 6, newLine: 6 },
          { kind: "context", text: "g", oldLine: 7, newLine: 7 },
        ],
      },
    ]);
  });

  test("rendering: context and added lines carry NEW ids, removed lines their OLD ids", () => {
    const after = ["a", "b", "inserted 1", "inserted 2", "c", "e", "f"];
    const text = renderDiff(diffLines(before.slice(0, 6), after));
    expect(text).toBe(
      [
        "@@ -1,6 +1,7 @@",
        `  ${id(1, "a")}|a`,
        `  ${id(2, "b")}|b`,
        `+ ${id(3, "inserted 1")}|inserted 1`,
        `+ ${id(4, "inserted 2")}|inserted 2`,
        `  ${id(5, "c")}|c`,
        `- ${id(4, "d")}|d`,
        `  ${id(6, "e")}|e`,
        `  ${id(7, "f")}|f`,
      ].join("\n"),
    );
  });

  test("every rendered id is the line number and hash of the line in the file it names", () => {
    fc.assert(
      fc.property(
        // Full length (fast-check's default size stops at 10 lines), so changes fall in separate hunks too.
        fc.array(fc.constantFrom("x", "y", "z", "", "  w"), { maxLength: 30, size: "max" }),
        fc.array(fc.constantFrom("x", "y", "q", "", "  w"), { maxLength: 30, size: "max" }),
        (a, b) => {
          for (const row of renderDiff(diffLines(a, b), { maxLines: 1000 }).split("\n")) {
            if (row === "" || row.startsWith("@@")) continue;
            const m = /^([ +-]) (\d+):([0-9a-f]{2})\|(.*)$/s.exec(row);
            expect(m).not.toBeNull();
            const [, sign, n, hh, text] = m!;
            const file: readonly string[] = sign === "-" ? a : b;
            expect(file[Number(n) - 1]).toBe(text);
            expect(hh).toBe(formatHash(lineHash(text)));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  test("changes farther apart than 2 x context lines make separate hunks; closer ones share one", () => {
    const far = before.map((l) => (l === "b" || l === "i" ? l.toUpperCase() : l));
    expect(diffLines(before, far).map((h) => [h.oldStart, h.oldCount])).toEqual([
      [1, 4],
      [7, 4],
    ]);
    const near = before.map((l) => (l === "b" || l === "g" ? l.toUpperCase() : l));
    expect(diffLines(before, near).length).toBe(1);
    expect(diffLines(before, near, { context: 1 }).length).toBe(2);
  });

  test("context 0 shows only the changed lines", () => {
    const hunks = diffLines(["a", "b", "c"], ["a", "B", "c"], { context: 0 });
    expect(hunks).toEqual([
      {
        oldStart: 2,
        oldCount: 1,
        newStart: 2,
        newCount: 1,
        lines: [
          { kind: "removed", text: "b", oldLine: 2 },
          { kind: "added", text: "B", newLine: 2 },
        ],
      },
    ]);
  });

  test("headers of empty sides follow the unified convention (start is the line before)", () => {
    expect(renderDiff(diffLines([], ["new"]))).toBe(`@@ -0,0 +1,1 @@\n+ ${id(1, "new")}|new`);
    expect(renderDiff(diffLines(["old"], []))).toBe(`@@ -1,1 +0,0 @@\n- ${id(1, "old")}|old`);
    expect(renderDiff(diffLines(["a", "b", "c", "d"], ["a", "b", "c"]))).toBe(`@@ -2,3 +2,2 @@\n  ${id(2, "b")}|b\n  ${id(3, "c")}|c\n- ${id(4, "d")}|d`);
  });

  test("identical files have no hunks and render as empty text", () => {
    expect(diffLines(before, before.slice())).toEqual([]);
    expect(renderDiff([])).toBe("");
  });

  test("the diff is minimal and patching the old file with it gives the new one", () => {
    const line = fc.constantFrom("a", "b", "c", "d", "");
    fc.assert(
      fc.property(
        fc.oneof(fc.tuple(fc.array(line, { maxLength: 30, size: "max" }), fc.array(line, { maxLength: 30, size: "max" })), similarPair(line, 30)),
        ([a, b]) => {
          const hunks = diffLines(a, b);
          expect(patch(a, hunks)).toEqual(b);
          expect(changed(hunks)).toBe(a.length + b.length - 2 * lcsLength(a, b));
        },
      ),
      { numRuns: 500 },
    );
  });

  test("a big region with scattered changes is split at unique lines instead of elided", () => {
    const a = Array.from({ length: 3000 }, (_, i) => `line ${i}`);
    const b = a.map((l, i) => (i % 50 === 25 ? `${l} changed` : l));
    const hunks = diffLines(a, b, { maxCost: 50_000 });
    expect(hunks.flatMap((h) => h.lines).some((l) => l.kind === "elided")).toBe(false);
    expect(patch(a, hunks)).toEqual(b);
    expect(changed(hunks)).toBe(120);
  });

  test("whatever the budget, the hunks (elided parts included) describe the new file exactly", () => {
    // Repeated lines, and lines unique on both sides (anchors to split a region at).
    const line = fc.oneof(
      fc.nat(30).map((n) => `L${n}`),
      fc.nat(10_000).map((n) => `U${n}`),
    );
    const pair = fc.oneof(fc.tuple(fc.array(line, { maxLength: 60, size: "max" }), fc.array(line, { maxLength: 60, size: "max" })), similarPair(line, 60));
    fc.assert(
      fc.property(pair, fc.nat(400), ([a, b], maxCost) => {
        const hunks = diffLines(a, b, { maxCost });
        expect(patch(a, hunks, b)).toEqual(b);
        for (const h of hunks) {
          const sizes = h.lines.map((l) =>
            l.kind === "elided" ? [l.removed, l.added] : l.kind === "context" ? [1, 1] : l.kind === "removed" ? [1, 0] : [0, 1],
          );
          expect(sizes.reduce((n, [o]) => n + o, 0)).toBe(h.oldCount);
          expect(sizes.reduce((n, [, w]) => n + w, 0)).toBe(h.newCount);
        }
      }),
      { numRuns: 500 },
    );
  });

  test("a change too large for the budget is reported as one elided block, not guessed", () => {
    const a = Array.from({ length: 300 }, (_, i) => `old ${i}`);
    const b = Array.from({ length: 200 }, (_, i) => `new ${i}`);
    const hunks = diffLines(["top", ...a, "bottom"], ["top", ...b, "bottom"], { maxCost: 1000 });
    expect(hunks).toHaveLength(1);
    expect(hunks[0].lines).toEqual([
      { kind: "context", text: "top", oldLine: 1, newLine: 1 },
      { kind: "elided", oldLine: 2, removed: 300, newLine: 2, added: 200 },
      { kind: "context", text: "bottom", oldLine: 302, newLine: 202 },
    ]);
    expect(renderDiff(hunks).split("\n")[2]).toBe(
      "~ too large to diff: 300 old lines (2-301) replaced by 200 new lines (2-201); view the new lines to see them and their ids",
    );
  });
});

describe("renderDiff bounds", () => {
  const a = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`);
  const b = a.map((l, i) => (i % 10 === 5 ? `${l} changed` : l));

  test("output is capped at maxLines with a note naming how much was left out and what to view", () => {
    const hunks = diffLines(a, b);
    const total = hunks.reduce((n, h) => n + h.lines.length, 0);
    const rows = renderDiff(hunks, { maxLines: 10 }).split("\n");
    expect(rows).toHaveLength(11);
    const shown = rows.slice(0, 10).filter((r) => !r.startsWith("@@")).length;
    expect(rows[10]).toMatch(new RegExp(`^… ${total - shown} more diff lines not shown; view lines \\d+-98 to see`));
    const from = Number(/view lines (\d+)-/.exec(rows[10])![1]);
    // The note starts right after the last new-file line shown.
    const lastShown = rows
      .slice(0, 10)
      .filter((r) => /^[ +] /.test(r))
      .pop()!;
    expect(from).toBe(Number(/^[ +] (\d+):/.exec(lastShown)![1]) + 1);
  });

  test("the note's wording can be supplied by the caller", () => {
    const text = renderDiff(diffLines(a, b), {
      maxLines: 3,
      omittedNote: (o) => `[${o.lines} more; view(path, ${o.fromLine}, ${o.toLine})]`,
    });
    expect(text.split("\n").pop()).toMatch(/^\[\d+ more; view\(path, \d+, 98\)\]$/);
  });

  test("only removals left out: the note says so instead of naming an empty range", () => {
    const hunks = diffLines(["a", "b", "c", "d", "e"], []);
    const last = renderDiff(hunks, { maxLines: 3 }).split("\n").pop();
    expect(last).toBe("… 3 more diff lines not shown (removed lines only)");
  });

  test("long lines are cut with a marker but keep the id of the whole line", () => {
    const long = "x".repeat(50);
    const text = renderDiff(diffLines([], [long]), { maxLineChars: 10 });
    expect(text.split("\n")[1]).toBe(`+ ${id(1, long)}|${"x".repeat(10)}… [line truncated: 50 chars total]`);
  });

  test("a surrogate pair is never split by the cut", () => {
    const text = renderDiff(diffLines([], ["ab🚀cd"]), { maxLineChars: 3 });
    expect(text.split("\n")[1]).toBe(`+ ${id(1, "ab🚀cd")}|ab… [line truncated: 6 chars total]`);
  });

  test("a surrogate pair is never split, by the cut or by the window around a change in a long line (property)", () => {
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    const char = fc.constantFrom("a", "b", "🚀", "é");
    // Lines long enough to be cut (fast-check's default size stops at 10 characters).
    const line = fc.array(char, { maxLength: 60, size: "max" });
    fc.assert(
      fc.property(line, fc.nat(), fc.array(char, { maxLength: 3 }), fc.integer({ min: 1, max: 40 }), (chars, at, inserted, maxLineChars) => {
        // The changed line differs from the old one at one character: the window shows around it.
        const p = at % (chars.length + 1);
        const before = chars.join("");
        const after = [...chars.slice(0, p), ...inserted, ...chars.slice(p + 1)].join("");
        const text = renderDiff(diffLines(["top", before, "end"], ["top", after, "end"]), { maxLineChars });
        expect(text).not.toMatch(lone);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("diffFromEdits", () => {
  const file = Array.from({ length: 40 }, (_, i) => `row ${i + 1}`);

  test("agrees with diffLines on what changed for the edits of a string replacement", () => {
    const r = applyStringEdit(file, "row 1", "ROW 1", { replaceAll: true }); // rows 1, 10-19
    if (r.kind !== "ok") throw new Error(r.kind);
    const fromEdits = diffFromEdits(file, r.lines, r.edits);
    const general = diffLines(file, r.lines);
    expect(patch(file, fromEdits)).toEqual(r.lines);
    expect(changed(fromEdits)).toBe(changed(general));
    expect(fromEdits.map((h) => [h.oldStart, h.oldCount, h.newStart, h.newCount])).toEqual(
      general.map((h) => [h.oldStart, h.oldCount, h.newStart, h.newCount]),
    );
    // One edit per line: each removed line is followed by its replacement.
    const rows = renderDiff(fromEdits).split("\n");
    const at = rows.indexOf(`- ${id(10, "row 10")}|row 10`);
    expect(rows.slice(at, at + 4)).toEqual([
      `- ${id(10, "row 10")}|row 10`,
      `+ ${id(10, "ROW 10")}|ROW 10`,
      `- ${id(11, "row 11")}|row 11`,
      `+ ${id(11, "ROW 11")}|ROW 11`,
    ]);
  });

  test("a fuzzy edit that re-indents only some lines shows only those lines as changed", () => {
    const code = ["fn a() {", "    one();", "    two();", "}"];
    const r = applyStringEdit(code, "one();\ntwo();", "one();\nthree();");
    if (r.kind !== "ok") throw new Error(r.kind);
    expect(r.strategy).toBe("fuzzy");
    expect(renderDiff(diffFromEdits(code, r.lines, r.edits))).toBe(
      [
        "@@ -1,4 +1,4 @@",
        `  ${id(1, "fn a() {")}|fn a() {`,
        `  ${id(2, "    one();")}|    one();`,
        `- ${id(3, "    two();")}|    two();`,
        `+ ${id(3, "    three();")}|    three();`,
        `  ${id(4, "}")}|}`,
      ].join("\n"),
    );
  });

  test("patching with edits-based hunks reproduces the new file (random edits)", () => {
    const edit = fc
      .tuple(fc.nat(40), fc.nat(4), fc.array(fc.constantFrom("row 3", "new", "row 9", ""), { maxLength: 4 }))
      .map(([start, len, lines]) => ({ start, end: Math.min(40, start + len), lines }));
    fc.assert(
      fc.property(fc.array(edit, { maxLength: 5 }), (raw) => {
        const edits: LineEdit[] = [];
        let pos = 0;
        for (const e of raw.sort((x, y) => x.start - y.start)) {
          if (e.start < pos) continue;
          edits.push(e);
          pos = e.end;
        }
        const after = applyLineEdits(file, edits);
        const hunks = diffFromEdits(file, after, edits);
        expect(patch(file, hunks)).toEqual(after);
        for (const h of hunks) {
          expect(h.lines.filter((l) => l.kind !== "added").length).toBe(h.oldCount);
          expect(h.lines.filter((l) => l.kind !== "removed").length).toBe(h.newCount);
        }
      }),
      { numRuns: 300 },
    );
  });

  test("inconsistent input is a caller bug and throws", () => {
    expect(() => diffFromEdits(file, file, [{ start: 0, end: 1, lines: [] }])).toThrow(RangeError);
  });

  test("an edit in a big file diffs line by line even on a tiny budget (only the edited region is compared)", () => {
    const big = Array.from({ length: 50_000 }, (_, i) => `line ${i}`);
    const edits = [{ start: 25_000, end: 25_001, lines: ["changed"] }];
    const after = applyLineEdits(big, edits);
    const hunks = diffFromEdits(big, after, edits, { maxCost: 10 });
    expect(hunks).toHaveLength(1);
    expect(hunks[0].lines.map((l) => l.kind)).toEqual(["context", "context", "removed", "added", "context", "context"]);
  });
});

describe("changedRuns", () => {
  test("context splits a hunk into runs; each run has its spans and the fresh ids of its added lines", () => {
    const oldLines = ["a", "b", "c", "d", "e"];
    const newLines = ["a", "B", "c", "d", "e", "f"];
    const runs = changedRuns(diffLines(oldLines, newLines));
    expect(runs).toEqual([
      { oldStart: 2, oldCount: 1, newStart: 2, newCount: 1, ids: [id(2, "B")], complete: true },
      { oldStart: 6, oldCount: 0, newStart: 6, newCount: 1, ids: [id(6, "f")], complete: true },
    ]);
  });

  test("a pure deletion is a run with no new lines", () => {
    expect(changedRuns(diffLines(["a", "b", "c"], ["a", "c"]))).toEqual([{ oldStart: 2, oldCount: 1, newStart: 2, newCount: 0, ids: [], complete: true }]);
  });

  test("with a line budget, only the added lines the cut diff prints are listed, whatever the id budget", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "b", "c", "d"), { maxLength: 40, size: "max" }),
        fc.array(fc.constantFrom("a", "b", "c", "e"), { maxLength: 40, size: "max" }),
        fc.integer({ min: 2, max: 30 }),
        (oldLines, newLines, maxLines) => {
          const hunks = diffLines(oldLines, newLines);
          const printed = renderDiff(hunks, { maxLines })
            .split("\n")
            .filter((l) => l.startsWith("+ "))
            .map((l) => l.slice(2, l.indexOf("|")));
          const runs = changedRuns(hunks, 1000, maxLines);
          expect(runs.flatMap((r) => r.ids)).toEqual(printed);
          // A run with an added line left out says so.
          for (const r of runs) if (r.ids.length < r.newCount) expect(r.complete).toBe(false);
        },
      ),
    );
  });

  test("past the id budget a run says it is incomplete", () => {
    const runs = changedRuns(diffLines([], ["x", "y", "z"]), 2);
    expect(runs).toEqual([{ oldStart: 1, oldCount: 0, newStart: 1, newCount: 3, ids: [id(1, "x"), id(2, "y")], complete: false }]);
  });

  test("the ids are the ones the rendered diff shows on its added lines", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "b", "c", "d"), { maxLength: 30, size: "max" }),
        fc.array(fc.constantFrom("a", "b", "c", "e"), { maxLength: 30, size: "max" }),
        (oldLines, newLines) => {
          const hunks = diffLines(oldLines, newLines);
          const shown = renderDiff(hunks, { maxLines: 1000 })
            .split("\n")
            .filter((l) => l.startsWith("+ "))
            .map((l) => l.slice(2, l.indexOf("|")));
          expect(changedRuns(hunks, 1000).flatMap((r) => r.ids)).toEqual(shown);
        },
      ),
      { numRuns: 200 },
    );
  });
});
