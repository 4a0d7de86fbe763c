/**
 * Line diffs for edit and write results. Context and added lines carry the
 * FRESH ids of the new file and removed lines their OLD ids, so the model can
 * chain its next edit without another view.
 *
 * Rendered format (one line each; the id is `N:hh` as in `view`):
 *
 *     @@ -12,3 +12,4 @@          unified hunk header (old start,count new start,count)
 *       12:a3|context            two spaces, NEW id, "|", content
 *     - 13:5f|removed            "- ", OLD id, "|", content
 *     + 13:c2|added              "+ ", NEW id, "|", content
 *     ~ too large to diff: ...   a change too big to diff line by line (counts and ranges only)
 *
 * Followed, when the output was capped, by one note saying how many diff
 * lines were left out and which lines of the new file to view.
 */

import { lineHash } from "../hash/fnv.ts";
import { type ChangeBlock, myersDiff } from "./diff-myers.ts";
import { formatId } from "./ids.ts";
import type { LineEdit } from "./line-edits.ts";
import { isLowSurrogate, truncateLine, wholeCharRange } from "./render.ts";

/** One line of a hunk. Line numbers are 1-based. */
export type DiffLine =
  | { readonly kind: "context"; readonly text: string; readonly oldLine: number; readonly newLine: number }
  | { readonly kind: "removed"; readonly text: string; readonly oldLine: number }
  | { readonly kind: "added"; readonly text: string; readonly newLine: number }
  /** A change too large to diff: old lines `oldLine..+removed` became new lines `newLine..+added`. */
  | {
      readonly kind: "elided";
      readonly oldLine: number;
      readonly removed: number;
      readonly newLine: number;
      readonly added: number;
    };

/**
 * A run of changes with its context. `oldStart`/`newStart` are the 1-based
 * first line of each side's range (when a count is 0, the line the range
 * sits before).
 */
export interface DiffHunk {
  readonly oldStart: number;
  readonly oldCount: number;
  readonly newStart: number;
  readonly newCount: number;
  readonly lines: readonly DiffLine[];
}

/** Options of {@link diffLines} and {@link diffFromEdits}. */
export interface DiffOptions {
  /** Unchanged lines shown around each change (default 2). */
  readonly context?: number;
  /**
   * Work budget of the line-by-line diff, in line comparisons (default 20M).
   * A changed region that needs more is reported as one "elided" change.
   */
  readonly maxCost?: number;
}

const DEFAULT_CONTEXT = 2;
const DEFAULT_MAX_COST = 20_000_000;
/** Bounds the O(D²) trace memory of the Myers search. */
const MAX_DIFFERENCES = 2000;
/** Bounds the recursion (and repeated scans) of splitting at unique lines. */
const MAX_ANCHOR_DEPTH = 32;

interface Block extends ChangeBlock {
  readonly tooLarge?: boolean;
}

/**
 * Diff two versions of a file (e.g. for `write`): common prefix/suffix cut,
 * then Myers (minimal) when it fits the budget, else split at lines unique on
 * both sides first; a region that still does not fit is one "elided" change.
 */
export function diffLines(oldLines: readonly string[], newLines: readonly string[], options: DiffOptions = {}): DiffHunk[] {
  const budget = { left: maxCost(options) };
  const blocks = diffRange(oldLines, 0, oldLines.length, newLines, 0, newLines.length, budget);
  return hunksFromBlocks(oldLines, newLines, blocks, contextOf(options));
}

/**
 * Diff when the changed ranges are known (e.g. the edits of `applyStringEdit`):
 * only the edited regions are compared, so the cost is independent of the
 * file size. `newLines` must be `applyLineEdits(oldLines, edits)`.
 */
export function diffFromEdits(oldLines: readonly string[], newLines: readonly string[], edits: readonly LineEdit[], options: DiffOptions = {}): DiffHunk[] {
  const blocks: Block[] = [];
  const budget = { left: maxCost(options) };
  let shift = 0;
  for (const edit of edits) {
    const bStart = edit.start + shift;
    const bEnd = bStart + edit.lines.length;
    blocks.push(...diffRange(oldLines, edit.start, edit.end, newLines, bStart, bEnd, budget));
    shift += edit.lines.length - (edit.end - edit.start);
  }
  if (oldLines.length + shift !== newLines.length) {
    throw new RangeError(`edits do not turn ${oldLines.length} lines into ${newLines.length}: they add ${shift} lines`);
  }
  return hunksFromBlocks(oldLines, newLines, blocks, contextOf(options));
}

/**
 * Hunks of a diff of a window of the files (old lines from `offset` on, new
 * lines from `newOffset`, by default the same) renumbered as lines of the
 * whole files.
 */
export function offsetHunks(hunks: readonly DiffHunk[], offset: number, newOffset = offset): DiffHunk[] {
  if (offset === 0 && newOffset === 0) return hunks.slice();
  return hunks.map((h) => ({
    oldStart: h.oldStart + offset,
    oldCount: h.oldCount,
    newStart: h.newStart + newOffset,
    newCount: h.newCount,
    lines: h.lines.map((l): DiffLine => {
      if (l.kind === "removed") return { ...l, oldLine: l.oldLine + offset };
      if (l.kind === "added") return { ...l, newLine: l.newLine + newOffset };
      return { ...l, oldLine: l.oldLine + offset, newLine: l.newLine + newOffset };
    }),
  }));
}

/** Options of {@link renderDiff}. */
export interface RenderDiffOptions {
  /** Most output lines (hunk headers included) before the rest is left out with a note (default 200). */
  readonly maxLines?: number;
  /** Longest line content shown; longer content is cut with a marker (default: no limit). */
  readonly maxLineChars?: number;
  /** Words the note about left-out lines; the default names the new-file lines to view. */
  readonly omittedNote?: (omitted: OmittedLines) => string;
}

/** What a capped {@link renderDiff} left out. */
export interface OmittedLines {
  /** Diff lines (headers not counted) not shown. */
  readonly lines: number;
  /** 1-based new-file range holding the rest of the changes; `toLine < fromLine` when only removals are left. */
  readonly fromLine: number;
  readonly toLine: number;
}

/** Render hunks in the format of the module comment. "" for no hunks. */
export function renderDiff(hunks: readonly DiffHunk[], options: RenderDiffOptions = {}): string {
  const maxLines = Math.max(2, options.maxLines ?? 200);
  const maxChars = options.maxLineChars ?? Number.POSITIVE_INFINITY;
  const out: string[] = [];
  for (let h = 0; h < hunks.length; h++) {
    const hunk = hunks[h];
    if (out.length >= maxLines) return capped(out, hunks, h, 0, hunk.newStart, options);
    out.push(header(hunk));
    const focus = Number.isFinite(maxChars) ? changeColumns(hunk.lines, maxChars) : undefined;
    let nextNew = hunk.newStart;
    for (let i = 0; i < hunk.lines.length; i++) {
      const line = hunk.lines[i];
      if (out.length >= maxLines) return capped(out, hunks, h, i, nextNew, options);
      out.push(renderLine(line, maxChars, focus?.get(i)));
      if (line.kind === "context" || line.kind === "added") nextNew = line.newLine + 1;
      else if (line.kind === "elided") nextNew = line.newLine + line.added;
    }
  }
  return out.join("\n");
}

function capped(out: string[], hunks: readonly DiffHunk[], hunk: number, line: number, fromLine: number, options: RenderDiffOptions): string {
  let left = hunks[hunk].lines.length - line;
  for (let h = hunk + 1; h < hunks.length; h++) left += hunks[h].lines.length;
  const last = hunks[hunks.length - 1];
  const omitted = { lines: left, fromLine, toLine: last.newStart + last.newCount - 1 };
  out.push((options.omittedNote ?? defaultNote)(omitted));
  return out.join("\n");
}

function defaultNote({ lines, fromLine, toLine }: OmittedLines): string {
  const more = `… ${lines} more diff line${lines === 1 ? "" : "s"} not shown`;
  return toLine >= fromLine ? `${more}; view lines ${fromLine}-${toLine} to see the current text and ids` : `${more} (removed lines only)`;
}

function header(hunk: DiffHunk): string {
  const side = (start: number, count: number) => `${count === 0 ? start - 1 : start},${count}`;
  return `@@ -${side(hunk.oldStart, hunk.oldCount)} +${side(hunk.newStart, hunk.newCount)} @@`;
}

/**
 * For a long removed line and the added line that replaces it (paired in
 * order within a run of removals followed by additions), the column where
 * they first differ, when that is past what a cut line shows: those lines
 * are shown as a window around the change instead of the same beginning twice.
 */
function changeColumns(lines: readonly DiffLine[], maxChars: number): Map<number, number> {
  const focus = new Map<number, number>();
  for (let i = 0; i < lines.length; ) {
    if (lines[i].kind !== "removed") {
      i++;
      continue;
    }
    const removed: number[] = [];
    while (i < lines.length && lines[i].kind === "removed") removed.push(i++);
    const added: number[] = [];
    while (i < lines.length && lines[i].kind === "added") added.push(i++);
    for (let k = 0; k < Math.min(removed.length, added.length); k++) {
      const a = textOf(lines[removed[k]]);
      const b = textOf(lines[added[k]]);
      if (a.length <= maxChars && b.length <= maxChars) continue;
      let p = 0;
      while (p < a.length && p < b.length && a.charCodeAt(p) === b.charCodeAt(p)) p++;
      if (p < maxChars * 0.75) continue; // the change is already in view
      focus.set(removed[k], p);
      focus.set(added[k], p);
    }
  }
  return focus;
}

function textOf(line: DiffLine): string {
  return line.kind === "elided" ? "" : line.text;
}

/** `text` as a window of `maxChars` around column `at`, with markers for what is left out on either side. */
function windowAround(text: string, at: number, maxChars: number): string {
  let from = Math.max(0, Math.min(at - Math.floor(maxChars / 4), text.length - maxChars));
  if (from > 0 && isLowSurrogate(text.charCodeAt(from))) from--; // never start on half a character
  // The end too: a window never ends on half a character.
  const [, to] = wholeCharRange(text, from, Math.min(text.length, from + maxChars));
  const before = from > 0 ? `… [${from} chars before not shown] ` : "";
  const after = to < text.length ? `… [line truncated: ${text.length} chars total]` : "";
  return `${before}${cut(text.slice(from, to), maxChars)}${after}`;
}

function renderLine(line: DiffLine, maxChars: number, focus?: number): string {
  const body = (text: string) => (focus === undefined ? cut(text, maxChars) : windowAround(text, focus, maxChars));
  switch (line.kind) {
    case "context":
      return `  ${idOf(line.newLine, line.text)}|${cut(line.text, maxChars)}`;
    case "removed":
      return `- ${idOf(line.oldLine, line.text)}|${body(line.text)}`;
    case "added":
      return `+ ${idOf(line.newLine, line.text)}|${body(line.text)}`;
    case "elided":
      return (
        `~ too large to diff: ${span("old", line.oldLine, line.removed)} replaced by ` +
        `${span("new", line.newLine, line.added)}; view the new lines to see them and their ids`
      );
  }
}

function span(side: string, start: number, count: number): string {
  if (count === 0) return `no ${side} lines`;
  return `${count} ${side} line${count === 1 ? "" : "s"} (${start}-${start + count - 1})`;
}

/** A run of removed/added lines (no context) with the fresh ids of the added ones; see `ChangedRange` in src/result.ts. */
export interface ChangedRun {
  readonly oldStart: number;
  readonly oldCount: number;
  readonly newStart: number;
  readonly newCount: number;
  readonly ids: readonly string[];
  readonly complete: boolean;
}

/**
 * The changed runs of `hunks` (context lines split them), each with the
 * fresh `N:hh` of its added lines. At most `maxIds` ids in all, and only of
 * lines within the first `maxLines` lines {@link renderDiff} prints (the
 * ids a result lists are the ones its text showed); a run past either, or
 * one too large to diff, has `complete: false`.
 */
export function changedRuns(hunks: readonly DiffHunk[], maxIds = 200, maxLines = Number.POSITIVE_INFINITY): ChangedRun[] {
  const runs: ChangedRun[] = [];
  let budget = maxIds;
  // Lines renderDiff has printed so far: a header per hunk, then each line, until maxLines.
  let printed = 0;
  const print = () => printed < maxLines && ++printed > 0;
  for (const hunk of hunks) {
    print();
    let oldAt = hunk.oldStart;
    let newAt = hunk.newStart;
    let run: { oldStart: number; oldCount: number; newStart: number; newCount: number; ids: string[]; complete: boolean } | undefined;
    const open = () => (run ??= { oldStart: oldAt, oldCount: 0, newStart: newAt, newCount: 0, ids: [], complete: true });
    const flush = () => {
      if (run) runs.push(run);
      run = undefined;
    };
    for (const line of hunk.lines) {
      const shown = print();
      switch (line.kind) {
        case "context":
          flush();
          oldAt++;
          newAt++;
          break;
        case "removed":
          open().oldCount++;
          oldAt++;
          break;
        case "added": {
          const r = open();
          r.newCount++;
          if (shown && budget > 0) {
            r.ids.push(idOf(newAt, line.text));
            budget--;
          } else r.complete = false;
          newAt++;
          break;
        }
        case "elided": {
          const r = open();
          r.oldCount += line.removed;
          r.newCount += line.added;
          r.complete = false;
          oldAt += line.removed;
          newAt += line.added;
          break;
        }
      }
    }
    flush();
  }
  return runs;
}

function idOf(n: number, text: string): string {
  return formatId(n, lineHash(text));
}

const cut = truncateLine;

function contextOf(options: DiffOptions): number {
  return Math.max(0, Math.floor(options.context ?? DEFAULT_CONTEXT));
}

function maxCost(options: DiffOptions): number {
  return options.maxCost ?? DEFAULT_MAX_COST;
}

/**
 * Change blocks between `a[aLo, aHi)` and `b[bLo, bHi)`, in whole-file
 * coordinates. Common prefix and suffix are cut first. A region too big for
 * an exact diff within the budget is split at lines that occur exactly once
 * on each side (patience anchors) and each gap is diffed on its own; what
 * still does not fit is one "tooLarge" block. `budget.left` is shared by the
 * whole diff and shrinks with every search.
 */
function diffRange(
  a: readonly string[],
  aLo: number,
  aHi: number,
  b: readonly string[],
  bLo: number,
  bHi: number,
  budget: { left: number },
  depth = 0,
): Block[] {
  while (aLo < aHi && bLo < bHi && a[aLo] === b[bLo]) {
    aLo++;
    bLo++;
  }
  while (aHi > aLo && bHi > bLo && a[aHi - 1] === b[bHi - 1]) {
    aHi--;
    bHi--;
  }
  if (aLo === aHi && bLo === bHi) return [];
  if (aLo === aHi || bLo === bHi) return [{ aStart: aLo, aEnd: aHi, bStart: bLo, bEnd: bHi }];

  const total = aHi - aLo + (bHi - bLo);
  if (total * Math.min(total, MAX_DIFFERENCES) > budget.left && depth < MAX_ANCHOR_DEPTH) {
    const anchors = uniqueAnchors(a, aLo, aHi, b, bLo, bHi);
    if (anchors.length > 0) {
      const blocks: Block[] = [];
      let pa = aLo;
      let pb = bLo;
      for (const [x, y] of anchors) {
        blocks.push(...diffRange(a, pa, x, b, pb, y, budget, depth + 1));
        pa = x + 1;
        pb = y + 1;
      }
      blocks.push(...diffRange(a, pa, aHi, b, pb, bHi, budget, depth + 1));
      return blocks;
    }
  }

  const maxD = Math.min(MAX_DIFFERENCES, Math.floor(budget.left / total));
  if (maxD <= 0) return [{ aStart: aLo, aEnd: aHi, bStart: bLo, bEnd: bHi, tooLarge: true }];
  const ids = new Map<string, number>();
  const intern = (line: string): number => {
    let id = ids.get(line);
    if (id === undefined) ids.set(line, (id = ids.size));
    return id;
  };
  const x = Int32Array.from({ length: aHi - aLo }, (_, i) => intern(a[aLo + i]));
  const y = Int32Array.from({ length: bHi - bLo }, (_, i) => intern(b[bLo + i]));
  const blocks = myersDiff(x, y, maxD);
  let used = maxD;
  if (blocks !== undefined) {
    used = 0;
    for (const k of blocks) used += k.aEnd - k.aStart + (k.bEnd - k.bStart);
  }
  budget.left -= total * Math.max(1, used);
  if (blocks === undefined) return [{ aStart: aLo, aEnd: aHi, bStart: bLo, bEnd: bHi, tooLarge: true }];
  return blocks.map((k) => ({ aStart: k.aStart + aLo, aEnd: k.aEnd + aLo, bStart: k.bStart + bLo, bEnd: k.bEnd + bLo }));
}

/**
 * Pairs `[i, j]` with `a[i] === b[j]` for lines that occur exactly once in
 * each range, longest run in order on both sides (patience diff's anchors).
 */
function uniqueAnchors(a: readonly string[], aLo: number, aHi: number, b: readonly string[], bLo: number, bHi: number): [number, number][] {
  const seen = new Map<string, { inA: number; atA: number; inB: number; atB: number }>();
  for (let i = aLo; i < aHi; i++) {
    const entry = seen.get(a[i]);
    if (entry) entry.inA++;
    else seen.set(a[i], { inA: 1, atA: i, inB: 0, atB: -1 });
  }
  for (let j = bLo; j < bHi; j++) {
    const entry = seen.get(b[j]);
    if (entry !== undefined) {
      entry.inB++;
      entry.atB = j;
    }
  }
  const pairs: [number, number][] = [];
  for (const entry of seen.values()) {
    if (entry.inA === 1 && entry.inB === 1) pairs.push([entry.atA, entry.atB]);
  }
  pairs.sort((p, q) => p[0] - q[0]);
  return longestIncreasingByB(pairs);
}

/** The longest subsequence of `pairs` (sorted by first) whose seconds increase: O(n log n). */
function longestIncreasingByB(pairs: readonly [number, number][]): [number, number][] {
  const tails: number[] = []; // tails[k]: index in pairs ending the best run of length k+1
  const previous = new Int32Array(pairs.length);
  for (let i = 0; i < pairs.length; i++) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (pairs[tails[mid]][1] < pairs[i][1]) lo = mid + 1;
      else hi = mid;
    }
    previous[i] = lo > 0 ? tails[lo - 1] : -1;
    tails[lo] = i;
  }
  const run: [number, number][] = new Array(tails.length);
  for (let k = tails.length - 1, i = tails[tails.length - 1]; k >= 0; k--, i = previous[i]) run[k] = pairs[i];
  return run;
}

/** Group sorted change blocks into hunks with `context` unchanged lines around them. */
function hunksFromBlocks(oldLines: readonly string[], newLines: readonly string[], blocks: readonly Block[], context: number): DiffHunk[] {
  const hunks: DiffHunk[] = [];
  let i = 0;
  while (i < blocks.length) {
    let j = i;
    while (j + 1 < blocks.length && blocks[j + 1].aStart - blocks[j].aEnd <= 2 * context) j++;
    const lead = Math.min(context, blocks[i].aStart, blocks[i].bStart);
    const lines: DiffLine[] = [];
    const oldFrom = blocks[i].aStart - lead;
    const newFrom = blocks[i].bStart - lead;
    let a = oldFrom;
    let b = newFrom;
    for (let k = i; k <= j; k++) {
      const block = blocks[k];
      for (; a < block.aStart; a++, b++) lines.push({ kind: "context", text: newLines[b], oldLine: a + 1, newLine: b + 1 });
      if (block.tooLarge) {
        lines.push({
          kind: "elided",
          oldLine: block.aStart + 1,
          removed: block.aEnd - block.aStart,
          newLine: block.bStart + 1,
          added: block.bEnd - block.bStart,
        });
      } else {
        for (let r = block.aStart; r < block.aEnd; r++) lines.push({ kind: "removed", text: oldLines[r], oldLine: r + 1 });
        for (let s = block.bStart; s < block.bEnd; s++) lines.push({ kind: "added", text: newLines[s], newLine: s + 1 });
      }
      a = block.aEnd;
      b = block.bEnd;
    }
    const trail = Math.min(context, oldLines.length - a, newLines.length - b);
    for (let t = 0; t < trail; t++, a++, b++) {
      lines.push({ kind: "context", text: newLines[b], oldLine: a + 1, newLine: b + 1 });
    }
    hunks.push({ oldStart: oldFrom + 1, oldCount: a - oldFrom, newStart: newFrom + 1, newCount: b - newFrom, lines });
    i = j + 1;
  }
  return hunks;
}
