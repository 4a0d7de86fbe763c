/**
 * Edits of a few places in a large file on windows of its lines: each
 * window (the edited lines and a margin) is decoded and spliced with the
 * same policy as the whole file (`spliceLineEdits` with the file's own
 * style), the bytes between windows are copied as they are, and the diff
 * of each window is renumbered into the whole file's. A property test holds
 * the result equal to the whole-file path.
 */

import { type DiffHunk, diffFromEdits, offsetHunks } from "./diff.ts";
import type { EolStyle } from "./eol.ts";
import { type LineEdit, spliceLineEdits } from "./line-edits.ts";
import { joinLines, type SplitLines, splitLines } from "./lines.ts";

const LF = 0x0a;
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** Lines kept either side of an edit: the diff's 2 context lines and one spare, so hunks of two windows never merge. */
export const WINDOW_MARGIN = 3;

/** Lines `[start, end)` of a file, decoded, with their byte range in the body. */
export interface LineWindow {
  readonly start: number;
  readonly end: number;
  readonly startByte: number;
  readonly endByte: number;
  readonly lines: SplitLines;
}

/** Windows read from a file, and its line count. */
export interface ReadWindows {
  readonly windows: LineWindow[];
  readonly lineCount: number;
}

/**
 * The windows around line ranges (0-based, end exclusive; an insert is an
 * empty range): each widened by {@link WINDOW_MARGIN} lines within the
 * file, overlapping or touching ones merged, and decoded; and the file's
 * line count. One forward scan of the body's newlines; `lineCount`, when
 * the caller knows it, only clips. Undefined when a range starts past the
 * end of the file.
 */
export function readWindows(
  body: Uint8Array,
  ranges: readonly { start: number; end: number }[],
  lineCount = Number.POSITIVE_INFINITY,
): ReadWindows | undefined {
  const spans: { start: number; end: number }[] = [];
  for (const r of ranges.slice().sort((a, b) => a.start - b.start || a.end - b.end)) {
    const start = Math.max(0, r.start - WINDOW_MARGIN);
    const end = Math.min(lineCount, r.end + WINDOW_MARGIN);
    const prev = spans[spans.length - 1];
    if (prev && start <= prev.end) prev.end = Math.max(prev.end, end);
    else spans.push({ start, end });
  }
  const n = body.length;
  const windows: LineWindow[] = [];
  let line = 0; // lines passed: the line that starts at byte `at`
  let at = 0;
  const advance = (to: number) => {
    while (line < to && at < n) {
      const nl = body.indexOf(LF, at);
      at = nl === -1 ? n : nl + 1;
      line++;
    }
    return at;
  };
  for (const s of spans) {
    const startByte = advance(s.start);
    if (line < s.start) return undefined;
    const endByte = advance(s.end);
    windows.push({ start: s.start, end: line, startByte, endByte, lines: splitLines(decoder.decode(body.subarray(startByte, endByte))) });
  }
  // The lines after the last window, counted as `countLines` does (an unterminated last line is one).
  let rest = 0;
  for (let i = body.indexOf(LF, at); i !== -1; i = body.indexOf(LF, i + 1)) rest++;
  if (at < n && body[n - 1] !== LF) rest++;
  return { windows, lineCount: line + rest };
}

/** The windows after their edits, and the new file. */
export interface SplicedWindows {
  /** The whole new file, BOM included. */
  readonly bytes: Uint8Array;
  /** Each window's lines after its edits, with the edits as applied (window lines). */
  readonly outs: readonly (SplitLines & { edits: LineEdit[] })[];
  readonly newLineCount: number;
}

/**
 * Apply sorted, non-overlapping `edits` (file lines), each inside one of
 * `windows`, and build the new file: what `spliceLineEdits` of the whole
 * file and its encoding give, with `style` the whole file's.
 */
export function spliceWindows(
  bom: boolean,
  body: Uint8Array,
  windows: readonly LineWindow[],
  edits: readonly LineEdit[],
  style: EolStyle,
  lineCount: number,
): SplicedWindows {
  const outs: (SplitLines & { edits: LineEdit[] })[] = [];
  const middles: Uint8Array[] = [];
  let k = 0;
  let newLineCount = lineCount;
  for (const w of windows) {
    const mine: LineEdit[] = [];
    for (; k < edits.length && edits[k].start <= w.end && edits[k].end <= w.end && edits[k].start >= w.start; k++) {
      mine.push({ start: edits[k].start - w.start, end: edits[k].end - w.start, lines: edits[k].lines });
    }
    const out = spliceLineEdits(w.lines, mine, { style, atEnd: w.end === lineCount });
    outs.push(out);
    middles.push(encoder.encode(joinLines(out.lines, out.eols)));
    newLineCount += out.lines.length - w.lines.lines.length;
  }
  if (k !== edits.length) throw new RangeError("an edit lies outside the windows read for it");
  let size = bom ? 3 : 0;
  let from = 0;
  windows.forEach((w, i) => {
    size += w.startByte - from + middles[i].length;
    from = w.endByte;
  });
  size += body.length - from;
  const bytes = new Uint8Array(size);
  let o = 0;
  if (bom) {
    bytes.set([0xef, 0xbb, 0xbf]);
    o = 3;
  }
  from = 0;
  windows.forEach((w, i) => {
    bytes.set(body.subarray(from, w.startByte), o);
    o += w.startByte - from;
    bytes.set(middles[i], o);
    o += middles[i].length;
    from = w.endByte;
  });
  bytes.set(body.subarray(from), o);
  return { bytes, outs, newLineCount };
}

/** The diff of every window, renumbered into the whole files' lines, in order. */
export function windowHunks(windows: readonly LineWindow[], outs: readonly (SplitLines & { edits: LineEdit[] })[]): DiffHunk[] {
  const hunks: DiffHunk[] = [];
  let shift = 0; // lines the windows before this one added
  windows.forEach((w, i) => {
    const out = outs[i];
    hunks.push(...offsetHunks(diffFromEdits(w.lines.lines, out.lines, out.edits), w.start, w.start + shift));
    shift += out.lines.length - w.lines.lines.length;
  });
  return hunks;
}
