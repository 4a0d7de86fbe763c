/**
 * A line the model copied from view after view shortened it
 * (`… [line truncated: N chars total]`): which file line it stands for, and
 * the short `edit` that makes the model's change there while keeping the
 * part of the line it never saw. Pure; the tools refuse the text and offer
 * the edit (see tools/support/shortened.ts).
 *
 * The model saw S, the first characters of file line F (cut as view cuts,
 * `truncateLine`), and sent V, its copy of S with a change. What it asked
 * for is V followed by the rest of F. That is certain only when S is known
 * (F is as long as the marker says, cut at the view's limit) and V keeps
 * the end of S, which pins where the change ends; a change at the very end
 * of S may have meant the end of the line, so no edit is built for it.
 */

import { isLowSurrogate, truncateLine } from "./render.ts";
import type { ShortenedLine } from "./artifacts.ts";

/** What a shortened copy of a file line asks for. */
export interface LongLineChange {
  /** 0-based file line it stands for. */
  readonly line: number;
  /** The copy is the shown part unchanged. */
  readonly unchanged: boolean;
  /** A unique short edit making the change and keeping the rest of the line; absent when it cannot be built with certainty. */
  readonly edit?: { readonly old_string: string; readonly new_string: string };
}

/** Unchanged characters at the end of the shown part that pin where a change ends. */
const MIN_TAIL = 8;
/** Longest old_string an offered edit carries (its context grows until it is unique). */
const MAX_OLD_CHARS = 400;

/**
 * The file line `s` was copied from, among `candidates` (0-based indexes of
 * `fileLines`): the only line as long as the marker says whose shown part
 * the copy mostly keeps. Undefined when none or several fit, or for a
 * diff window (its cut is not view's).
 */
export function resolveShortened(
  s: ShortenedLine,
  fileLines: readonly string[],
  candidates: Iterable<number>,
  maxLineChars: number,
): LongLineChange | undefined {
  if (s.before !== undefined || s.total === undefined) return undefined;
  let found: { line: number; shown: string; p: number; q: number } | undefined;
  for (const i of candidates) {
    const line = fileLines[i];
    if (line === undefined || line.length !== s.total) continue;
    const shown = shownPart(line, maxLineChars);
    if (shown === undefined) continue;
    const p = commonPrefix(s.visible, shown);
    const q = commonSuffix(s.visible.slice(p), shown.slice(p));
    if (p + q < shown.length / 2) continue; // not a copy of this line's shown part
    if (found) return undefined; // two lines fit: which one is not certain
    found = { line: i, shown, p, q };
  }
  if (!found) return undefined;
  const { line, shown, p, q } = found;
  const unchanged = s.visible === shown;
  if (unchanged || q === 0 || q < Math.min(MIN_TAIL, shown.length - p)) return { line, unchanged };
  const edit = uniqueEdit(fileLines, line, p, shown.length - q, s.visible.slice(p, s.visible.length - q));
  return edit ? { line, unchanged, edit } : { line, unchanged };
}

/** The part of `line` view shows before its marker, or undefined when it is shown whole. */
function shownPart(line: string, maxLineChars: number): string | undefined {
  const shown = truncateLine(line, maxLineChars);
  if (shown === line) return undefined;
  return shown.slice(0, shown.lastIndexOf("… [line truncated: "));
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

function commonSuffix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(a.length - 1 - i) === b.charCodeAt(b.length - 1 - i)) i++;
  return i;
}

/**
 * An edit replacing `[from, to)` of line `index` with `middle`, with as
 * little context around it as makes old_string occur once in the file
 * (overlapping occurrences counted), or undefined past MAX_OLD_CHARS.
 */
function uniqueEdit(
  fileLines: readonly string[],
  index: number,
  from: number,
  to: number,
  middle: string,
): { old_string: string; new_string: string } | undefined {
  const line = fileLines[index];
  for (let context = 12; ; context *= 2) {
    let a = Math.max(0, from - context);
    let b = Math.min(line.length, to + context);
    // Never half a character at either end.
    if (a > 0 && isLowSurrogate(line.charCodeAt(a))) a--;
    if (b < line.length && isLowSurrogate(line.charCodeAt(b))) b++;
    const old = line.slice(a, b);
    if (old.length > MAX_OLD_CHARS) return undefined;
    if (old !== "" && occurrences(fileLines, old) === 1) return { old_string: old, new_string: line.slice(a, from) + middle + line.slice(to, b) };
    if (a === 0 && b === line.length) return undefined;
  }
}

/** How many times `needle` (no "\n") occurs in the lines, overlapping ones too, counting up to 2. */
function occurrences(lines: readonly string[], needle: string): number {
  let n = 0;
  for (const line of lines) {
    for (let i = line.indexOf(needle); i !== -1; i = line.indexOf(needle, i + 1)) if (++n > 1) return n;
  }
  return n;
}
