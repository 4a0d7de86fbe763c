/**
 * Whole-line edits: the shape in which the matching ladder hands a change to
 * the tool layer. Working in whole lines lets the tool splice the original
 * lines with their own terminators (`spliceLineEdits`), so every untouched line
 * stays byte-identical and only replaced lines take the file's line ending.
 */

import { compileText, indexOfText } from "./text-find.ts";
import { detectEolStyle, type EolStyle, faithfulEol } from "./eol.ts";
import type { Eol, SplitLines } from "./lines.ts";

/**
 * Replace lines `[start, end)` (0-based, end exclusive) of the old file with
 * `lines` (contents without terminators). `start === end` inserts.
 */
export interface LineEdit {
  readonly start: number;
  readonly end: number;
  readonly lines: readonly string[];
}

/**
 * Apply sorted, non-overlapping edits (old-file coordinates) and return the
 * new lines. Throws RangeError on unsorted or out-of-range edits: that is a
 * bug in the caller, never a user error.
 */
export function applyLineEdits(lines: readonly string[], edits: readonly LineEdit[]): string[] {
  let size = lines.length;
  let pos = 0;
  for (const edit of edits) {
    if (edit.start < pos || edit.end < edit.start || edit.end > lines.length) {
      throw new RangeError(`line edits must be sorted and within the file: [${edit.start}, ${edit.end}) after ${pos}`);
    }
    size += edit.lines.length - (edit.end - edit.start);
    pos = edit.end;
  }
  const out = new Array<string>(size);
  let o = 0;
  pos = 0;
  for (const edit of edits) {
    for (let i = pos; i < edit.start; i++) out[o++] = lines[i];
    for (let i = 0; i < edit.lines.length; i++) out[o++] = edit.lines[i];
    pos = edit.end;
  }
  for (let i = pos; i < lines.length; i++) out[o++] = lines[i];
  return out;
}

/** Options of {@link spliceLineEdits} for a window of a file's lines (see ./edit-window.ts). */
export interface SpliceOptions {
  /** The whole file's style (default: detected from `src`, which is then the whole file). */
  readonly style?: EolStyle;
  /** `src` ends where the file ends (default true); false: more lines of the file follow it. */
  readonly atEnd?: boolean;
}

/**
 * Apply sorted, non-overlapping edits to lines WITH their terminators, in one
 * pass, by the policy of `spliceLines` (see `./eol.ts`): untouched lines keep
 * their own terminator; the k-th line of an edit reuses the terminator of the
 * k-th line it replaces, extra lines take the file's dominant ending; the
 * file's final-newline state is kept, and an empty last line left without a
 * terminator is dropped (it is no line: "a\n" has one line); a line ending
 * in "\r" never gets a bare "\n" (see `faithfulEol`). Applying many
 * edits one `spliceLines` at a time would copy the file once per edit.
 *
 * Returns the edits as actually applied too: the same unless that empty line
 * was dropped, so `diffFromEdits(src.lines, result.lines, result.edits)` holds.
 */
export function spliceLineEdits(src: SplitLines, edits: readonly LineEdit[], options: SpliceOptions = {}): SplitLines & { edits: LineEdit[] } {
  const style = options.style ?? detectEolStyle(src.eols);
  const lines = applyLineEdits(src.lines, edits);
  const eols = new Array<Eol>(lines.length);
  let o = 0;
  let pos = 0;
  for (const edit of edits) {
    for (let i = pos; i < edit.start; i++) eols[o++] = src.eols[i];
    const replaced = edit.end - edit.start;
    for (let k = 0; k < edit.lines.length; k++) eols[o++] = k < replaced ? src.eols[edit.start + k] : style.eol;
    pos = edit.end;
  }
  for (let i = pos; i < src.lines.length; i++) eols[o++] = src.eols[i];
  // Only the old last line had ""; wherever it landed, a line that is not last needs a terminator.
  const last = eols.length - 1;
  if (options.atEnd === false) {
    // Lines of the file follow: no line here is the last, and none had "".
    for (let i = 0; i <= last; i++) eols[i] = faithfulEol(lines[i], eols[i] || style.eol);
    return { lines, eols, edits: edits.slice() };
  }
  for (let i = 0; i < last; i++) if (eols[i] === "") eols[i] = style.eol;
  if (last >= 0) eols[last] = style.finalNewline ? eols[last] || style.eol : "";
  for (let i = 0; i <= last; i++) eols[i] = faithfulEol(lines[i], eols[i]);
  if (last < 0 || lines[last] !== "" || eols[last] !== "") return { lines, eols, edits: edits.slice() };
  lines.pop();
  eols.pop();
  return { lines, eols, edits: dropLastLine(edits, src.lines.length) };
}

/**
 * `edits` changed to also remove the last line of their result. That line is
 * new or moved up by deletions (the original last line is never an empty
 * unterminated one), so the last edit reaches the end of the file. Only the
 * edits that line comes from are merged: the rest stay as given, so the diff
 * reads the same as when the file is edited in windows (line-windows.ts).
 */
function dropLastLine(edits: readonly LineEdit[], lineCount: number): LineEdit[] {
  const kept = edits.slice();
  let tail = kept.pop();
  if (tail === undefined || tail.end !== lineCount) throw new RangeError("the dropped last line is not an edited one");
  // A tail that adds no lines drops a line before it: take in the edits it touches until one adds lines.
  for (let prev = kept.at(-1); tail.lines.length === 0 && prev !== undefined && prev.end === tail.start; prev = kept.at(-1)) {
    kept.pop();
    tail = { start: prev.start, end: tail.end, lines: prev.lines };
  }
  kept.push(tail.lines.length > 0 ? { start: tail.start, end: tail.end, lines: tail.lines.slice(0, -1) } : { start: tail.start - 1, end: tail.end, lines: [] });
  return kept;
}

/** True when applying `edits` to `lines` would change nothing. */
export function editsChangeNothing(lines: readonly string[], edits: readonly LineEdit[]): boolean {
  for (const edit of edits) {
    if (edit.end - edit.start !== edit.lines.length) return false;
    for (let i = 0; i < edit.lines.length; i++) {
      if (lines[edit.start + i] !== edit.lines[i]) return false;
    }
  }
  return true;
}

/**
 * Split replacement text into line contents the way a file splits: a final
 * "\n" ends the last line instead of opening an empty one, and "" is no lines.
 */
export function textToLines(text: string): string[] {
  if (text === "") return [];
  const body = text.endsWith("\n") ? text.slice(0, -1) : text;
  return body.split("\n");
}

/**
 * A position in the lines: column `col` (UTF-16 units) of line `line`
 * (0-based). `{ line: i + 1, col: 0 }` is just past line i's terminator.
 * Every line counts as terminated, the last one too, so an old_string that
 * ends with a newline matches the last line whether or not the file has a
 * final newline; the file's final-newline state is the caller's to keep.
 */
export interface TextPos {
  readonly line: number;
  readonly col: number;
}

/** A non-empty stretch of the lines' text (lines joined by "\n"), `end` exclusive. */
export interface TextSpan {
  readonly start: TextPos;
  readonly end: TextPos;
}

/** Longest needle the engine's own indexOf searches for (its worst case is text x needle). */
const SHORT_NEEDLE = 64;

/**
 * Every non-overlapping occurrence of `needle` in the lines' text (each line
 * followed by "\n"), left to right, as `text.indexOf` would find them, but
 * without building the text: a needle of k+1 parts must end line i, fill
 * lines i+1..i+k-1 exactly and start line i+k.
 */
export function findOccurrences(lines: readonly string[], needle: string): TextSpan[] {
  const spans: TextSpan[] = [];
  if (needle === "") return spans;
  const parts = needle.split("\n");
  const k = parts.length - 1;
  if (k === 0) {
    // The engine's indexOf compares the needle afresh at each candidate place: fine for a short needle,
    // seconds for a long repetitive one in a long line. Past SHORT_NEEDLE characters, a linear search.
    const long = needle.length > SHORT_NEEDLE ? compileText(needle) : undefined;
    const find = (line: string, from: number) => (long ? indexOfText(line, long, from) : line.indexOf(needle, from));
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      if (line.length < needle.length) continue;
      for (let at = find(line, 0); at !== -1; at = find(line, at + needle.length)) {
        spans.push({ start: { line: i, col: at }, end: { line: i, col: at + needle.length } });
      }
    }
    return spans;
  }
  const head = parts[0];
  const tail = parts[k];
  let free = { line: 0, col: 0 }; // matches may not start before the end of the previous one
  for (let i = 0; i + k <= lines.length; i++) {
    const line = lines[i];
    if (!line.endsWith(head)) continue;
    const col = line.length - head.length;
    if (i < free.line || (i === free.line && col < free.col)) continue;
    let whole = true;
    for (let j = 1; j < k && whole; j++) whole = lines[i + j] === parts[j];
    if (!whole) continue;
    const last = i + k;
    if (last < lines.length ? !lines[last].startsWith(tail) : tail !== "") continue;
    free = last < lines.length ? { line: last, col: tail.length } : { line: last, col: 0 };
    spans.push({ start: { line: i, col }, end: free });
  }
  return spans;
}

/** The 0-based lines a span touches, `end` exclusive (a consumed terminator belongs to its line). */
export function spanLines(span: TextSpan): { start: number; end: number } {
  return { start: span.start.line, end: span.end.col === 0 ? span.end.line : span.end.line + 1 };
}

/**
 * Turn text replacements (sorted, non-overlapping, non-empty spans, each
 * replaced by `replacement`) into whole-line edits: a span inside a line
 * expands to its line(s), keeping the prefix of the first and the suffix of
 * the last. Spans that share a line become one edit. When a span swallowed a
 * line's terminator and the replacement does not restore one, the next line
 * joins the edit, because its text now continues the replaced line.
 */
export function spansToLineEdits(lines: readonly string[], spans: readonly TextSpan[], replacement: string): LineEdit[] {
  const edits: LineEdit[] = [];
  let k = 0;
  while (k < spans.length) {
    const first = spans[k].start.line;
    let end = spanLines(spans[k]).end; // lines [first, end) are in the edit
    const parts = [lines[first].slice(0, spans[k].start.col), replacement];
    let cursor = spans[k].end;
    k++;
    for (;;) {
      if (k < spans.length && spans[k].start.line < end) {
        parts.push(textBetween(lines, cursor, spans[k].start), replacement);
        cursor = spans[k].end;
        end = Math.max(end, spanLines(spans[k]).end);
        k++;
        continue;
      }
      const atRegionEnd = cursor.line === end && cursor.col === 0;
      if (atRegionEnd && end < lines.length && lacksFinalNewline(parts)) {
        end++;
        continue;
      }
      parts.push(textBetween(lines, cursor, { line: end, col: 0 }));
      break;
    }
    edits.push({ start: first, end, lines: textToLines(parts.join("")) });
  }
  return edits;
}

/** The text from `from` to `to` (each line followed by "\n"). */
function textBetween(lines: readonly string[], from: TextPos, to: TextPos): string {
  if (from.line === to.line) return lines[from.line]?.slice(from.col, to.col) ?? "";
  const pieces = [lines[from.line].slice(from.col)];
  for (let i = from.line + 1; i < to.line; i++) pieces.push(lines[i]);
  pieces.push(to.line < lines.length ? lines[to.line].slice(0, to.col) : "");
  return pieces.join("\n");
}

/** True when the concatenation of `parts` is non-empty and does not end with "\n". */
function lacksFinalNewline(parts: readonly string[]): boolean {
  for (let i = parts.length - 1; i >= 0; i--) {
    if (parts[i] !== "") return !parts[i].endsWith("\n");
  }
  return false;
}
