/**
 * Line-ending policy for edits. Peers convert CRLF files to LF or force mixed
 * files to one style; here untouched lines keep their own terminator, new
 * lines take the file's dominant one, and a missing final newline stays
 * missing.
 */

import type { Eol, SplitLines } from "./lines.ts";

/** A line terminator a new line can get (never ""). */
export type LineEnding = "\n" | "\r\n";

/** How a file ends its lines. */
export interface EolStyle {
  /** The terminator new lines get. */
  readonly eol: LineEnding;
  /**
   * Whether the last line is terminated. An empty file counts as true: lines
   * added to it end with a newline like any ordinary text file.
   */
  readonly finalNewline: boolean;
}

/**
 * The dominant line ending: "\r\n" when more lines end with "\r\n" than with
 * "\n", else "\n" (so ties and files without terminators get "\n").
 */
export function dominantEol(eols: readonly Eol[]): LineEnding {
  let crlf = 0;
  let lf = 0;
  for (let i = 0; i < eols.length; i++) {
    const e = eols[i];
    if (e === "\r\n") crlf++;
    else if (e === "\n") lf++;
  }
  return crlf > lf ? "\r\n" : "\n";
}

/**
 * The terminator to write after `line` where the policy chose `eol`. A line
 * whose content ends in "\r" needs "\r\n": followed by a bare "\n" its "\r"
 * would read back as part of a CRLF terminator, so the line would come back
 * one character shorter, with another id than the one just reported. (Only a
 * last line without a final newline, or a new line, can end in "\r": a
 * split never leaves one before a "\n".)
 */
export function faithfulEol(line: string, eol: Eol): Eol {
  return eol === "\n" && line.endsWith("\r") ? "\r\n" : eol;
}

/**
 * Whether a file's bytes break lines with lone CRs only (classic Mac): a
 * "\r" and no "\n" anywhere. Lines split on "\n", so such a file is one
 * line with "\r" inside it, and no line tool can add or change a line in it
 * without writing an ending it never had. (A file with any "\n" is an LF or
 * CRLF file; a lone "\r" in it is text inside a line.)
 */
export function breaksWithLoneCr(body: Uint8Array): boolean {
  return body.indexOf(10) === -1 && body.indexOf(13) !== -1;
}

/** {@link breaksWithLoneCr} for text: a "\r" and no "\n". */
export function textBreaksWithLoneCr(text: string): boolean {
  return !text.includes("\n") && text.includes("\r");
}

/** Whether the last line has a terminator; false for an empty file (it has no last line). */
export function endsWithNewline(eols: readonly Eol[]): boolean {
  return eols.length > 0 && eols[eols.length - 1] !== "";
}

/** The dominant ending and final-newline state of a file (see {@link EolStyle}). */
export function detectEolStyle(eols: readonly Eol[]): EolStyle {
  return {
    eol: dominantEol(eols),
    finalNewline: eols.length === 0 || endsWithNewline(eols),
  };
}

/**
 * Replace `deleteCount` lines from 0-based index `start` with `insert`,
 * choosing terminators so only the edited lines change:
 *
 * - lines outside the range keep their own terminator;
 * - the k-th inserted line reuses the terminator of the k-th line it
 *   replaces (so a CRLF block stays CRLF in an LF file); lines beyond
 *   those take the dominant ending of the original file;
 * - the final-newline state of the file is preserved: if the file ended
 *   without one, whichever line is last afterwards ends without one, and the
 *   line that used to be last gets a terminator if it no longer is.
 *
 * - an empty last line without a terminator cannot exist on disk, so if the
 *   result would end with one it is dropped (the file ends with a newline).
 *
 * `insert` holds line contents without terminators (e.g. `splitLines(newText).lines`).
 * `start` and `deleteCount` are clamped to the file like `Array.prototype.splice`.
 */
export function spliceLines(src: SplitLines, start: number, deleteCount: number, insert: readonly string[]): SplitLines {
  const n = src.lines.length;
  const from = Math.max(0, Math.min(n, Math.trunc(start) || 0));
  const count = Math.max(0, Math.min(n - from, Math.trunc(deleteCount) || 0));
  const style = detectEolStyle(src.eols);

  const newEols: Eol[] = new Array(insert.length);
  for (let k = 0; k < insert.length; k++) {
    newEols[k] = k < count ? src.eols[from + k] : style.eol;
  }
  const lines = src.lines.slice(0, from).concat(insert, src.lines.slice(from + count));
  const eols = src.eols.slice(0, from).concat(newEols, src.eols.slice(from + count));

  // Only the old last line can hold ""; wherever it landed, a non-last line
  // needs a real terminator, and the new last line inherits the file's state.
  const last = eols.length - 1;
  for (let i = Math.max(0, from - 1); i < Math.min(last, from + insert.length); i++) {
    if (eols[i] === "") eols[i] = style.eol;
  }
  if (last >= 0) {
    if (!style.finalNewline) eols[last] = "";
    else if (eols[last] === "") eols[last] = style.eol;
  }
  // An empty line without a terminator is no line at all ("a\n" has 1 line):
  // drop it so the result is exactly what splitLines reads back from disk.
  if (last >= 0 && lines[last] === "" && eols[last] === "") {
    lines.pop();
    eols.pop();
  }
  for (let i = 0; i < eols.length; i++) eols[i] = faithfulEol(lines[i], eols[i]);
  return { lines, eols };
}

/**
 * New text's lines without a "\r" at their end. Such a "\r" is half of a
 * line ending the caller split on "\n" ("B\r\r\n", or a text ending "B\r"
 * from a model thinking in CRLF bytes): kept as content it would be written
 * "B\r\r\n", or put a CRLF terminator in an LF file (see `faithfulEol`), so
 * the line takes the file's own ending instead. A "\r" inside a line is
 * content and stays. `keep(i)` keeps line i's where the file already has a
 * line ending in "\r" there (only an unterminated last line can). Returns
 * undefined when no line changed, else the lines and the 0-based indexes
 * that did.
 */
export function dropTrailingCr(lines: readonly string[], keep?: (index: number) => boolean): { lines: string[]; changed: number[] } | undefined {
  let out: string[] | undefined;
  const changed: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.charCodeAt(line.length - 1) !== 13 || keep?.(i)) continue;
    out ??= lines.slice();
    out[i] = line.replace(/\r+$/, "");
    changed.push(i);
  }
  return out ? { lines: out, changed } : undefined;
}
