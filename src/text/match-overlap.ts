/**
 * Every occurrence of old_string, overlapping ones included. Uniqueness is
 * decided on these: "row\nrow\n" in "row\nrow\nrow\n", "aa" in "aaa" and
 * "==" in "===" each occur twice, and counting only non-overlapping matches
 * (as `indexOf` from the end of the last one does) had called them unique
 * and edited the first silently. replace_all still replaces the
 * non-overlapping ones left to right ({@link leftToRight}). Pure, and
 * linear in the file and the needle whatever they repeat.
 */

import type { TextSpan } from "./line-edits.ts";
import { allIndexesOfText, compileText } from "./text-find.ts";

/** Longest needle the engine's own indexOf searches for (its worst case is text x needle). */
const SHORT_NEEDLE = 64;

/**
 * Every occurrence of `needle` in the lines' text (each line followed by
 * "\n", the last one too, as `findOccurrences` reads it), overlapping ones
 * included, in order, at most `limit`.
 */
export function findAllOccurrences(lines: readonly string[], needle: string, limit = Number.POSITIVE_INFINITY): TextSpan[] {
  const spans: TextSpan[] = [];
  scanOccurrences(lines, needle, limit, (start, end) => spans.push({ start, end }));
  return spans;
}

/** How many occurrences {@link findAllOccurrences} would find, without a span object for each (a file of one repeated character has millions). */
export function countAllOccurrences(lines: readonly string[], needle: string): number {
  return scanOccurrences(lines, needle, Number.POSITIVE_INFINITY, () => {});
}

/** How many occurrences replace_all would replace (see {@link leftToRight}), counted without span objects. */
export function countLeftToRight(lines: readonly string[], needle: string): number {
  let count = 0;
  let endLine = -1;
  let endCol = 0;
  scanOccurrences(lines, needle, Number.POSITIVE_INFINITY, (start, end) => {
    if (start.line > endLine || (start.line === endLine && start.col >= endCol)) {
      count++;
      endLine = end.line;
      endCol = end.col;
    }
  });
  return count;
}

type Place = { readonly line: number; readonly col: number };

/** Call `found` for each occurrence, at most `limit`; returns how many. */
function scanOccurrences(lines: readonly string[], needle: string, limit: number, found: (start: Place, end: Place) => void): number {
  let count = 0;
  if (needle === "" || limit <= 0) return count;
  const parts = needle.split("\n");
  if (parts.length === 1) {
    const long = needle.length > SHORT_NEEDLE ? compileText(needle) : undefined;
    for (let i = 0; i < lines.length && count < limit; i++) {
      const line = lines[i];
      if (line.length < needle.length) continue;
      // A short needle: native indexOf from the match start + 1 (at most 64 x the line); a long one: KMP, never restarted.
      if (long) {
        for (const at of allIndexesOfText(line, long, limit - count)) {
          found({ line: i, col: at }, { line: i, col: at + needle.length });
          count++;
        }
        continue;
      }
      for (let at = line.indexOf(needle); at !== -1 && count < limit; at = line.indexOf(needle, at + 1)) {
        found({ line: i, col: at }, { line: i, col: at + needle.length });
        count++;
      }
    }
    return count;
  }
  const k = parts.length - 1;
  const head = parts[0];
  const tail = parts[k];
  // Where the whole lines between head and tail follow each other: KMP over the lines, each line read as a
  // number (its index among the needle's whole lines, -1 for any other line), so repeated lines cost no rescans.
  for (const i of middleStarts(lines, parts.slice(1, k), k)) {
    if (count >= limit) break;
    if (!lines[i].endsWith(head)) continue;
    const last = i + k;
    if (last < lines.length ? !lines[last].startsWith(tail) : tail !== "") continue;
    found({ line: i, col: lines[i].length - head.length }, last < lines.length ? { line: last, col: tail.length } : { line: last, col: 0 });
    count++;
  }
  return count;
}

/** The lines i (0-based) where lines i+1 .. i+k-1 are `middle`, with i + k <= lines.length. */
function middleStarts(lines: readonly string[], middle: readonly string[], k: number): number[] {
  const out: number[] = [];
  if (middle.length === 0) {
    for (let i = 0; i + k <= lines.length; i++) out.push(i);
    return out;
  }
  const ids = new Map<string, number>();
  const pattern = middle.map((line) => {
    let id = ids.get(line);
    if (id === undefined) ids.set(line, (id = ids.size));
    return id;
  });
  const m = pattern.length;
  const fail = new Int32Array(m);
  for (let i = 1, q = 0; i < m; i++) {
    while (q > 0 && pattern[i] !== pattern[q]) q = fail[q - 1];
    if (pattern[i] === pattern[q]) q++;
    fail[i] = q;
  }
  for (let j = 0, q = 0; j < lines.length; j++) {
    const id = ids.get(lines[j]) ?? -1;
    while (q > 0 && id !== pattern[q]) q = fail[q - 1];
    if (id === pattern[q]) q++;
    if (q === m) {
      // lines[j - m + 1 .. j] are the middle: the match starts one line before.
      const i = j - m;
      if (i >= 0 && i + k <= lines.length) out.push(i);
      q = fail[m - 1];
    }
  }
  return out;
}

/** The occurrences replace_all replaces: the first, then each that starts where the last chosen one ends or later. */
export function leftToRight(spans: readonly TextSpan[]): TextSpan[] {
  const out: TextSpan[] = [];
  let free = { line: 0, col: 0 };
  for (const span of spans) {
    if (span.start.line < free.line || (span.start.line === free.line && span.start.col < free.col)) continue;
    out.push(span);
    free = span.end;
  }
  return out;
}

/** Whether any two of these (sorted) occurrences share text. */
export function anyOverlap(spans: readonly TextSpan[]): boolean {
  return leftToRight(spans).length !== spans.length;
}
