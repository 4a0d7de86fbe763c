/**
 * Line endings for a whole-file `write` over an existing file. The model
 * sends its text (normally LF); the file keeps its own style:
 *
 * - every line the diff finds unchanged keeps its own terminator, so a mixed
 *   file stays mixed exactly where the model did not touch it;
 * - every new or changed line takes the file's dominant ending (CRLF in a
 *   CRLF file), whatever terminators the content itself used;
 * - a BOM stays (and a content that starts with U+FEFF does not get a second);
 * - the final newline follows the content: the model's text is authoritative
 *   there, so "missing final newline" survives only if the content lacks one
 *   too.
 *
 * An old file with no terminated line at all says nothing about its style;
 * then the content's own terminators are written as sent, as they are for
 * `"verbatim": true` (the way to convert a file's line endings). A "\r" at
 * a content line's end is read as part of its line ending (`dropCrEnds`).
 */

import type { DiffHunk } from "../../text/diff.ts";
import type { TextDocument } from "../../text/document.ts";
import { dominantEol, dropTrailingCr, faithfulEol } from "../../text/eol.ts";
import { type Eol, type SplitLines, splitLines } from "../../text/lines.ts";

/** The lines to write (with terminators) and whether to keep a BOM. */
export interface StyledContent extends SplitLines {
  readonly bom: boolean;
  /** What the styling changed, for the result: e.g. "CRLF". */
  readonly eolApplied?: "\r\n" | "\n";
}

/** Split `content` and decide the BOM before the diff (see {@link styleLike} for the terminators). */
export function contentLines(content: string, old: Pick<TextDocument, "bom">): SplitLines & { bom: boolean } {
  const contentBom = content.charCodeAt(0) === 0xfeff;
  const split = splitLines(contentBom ? content.slice(1) : content);
  return { ...split, bom: old.bom || contentBom };
}

/**
 * Terminators for `content` (already split) replacing `old`, aligned by
 * `hunks` = `diffLines(old.lines, content.lines)` (rules in the module comment).
 */
export function styleLike(old: Pick<TextDocument, "eols">, content: SplitLines & { bom: boolean }, hunks: readonly DiffHunk[]): StyledContent {
  const n = content.lines.length;
  if (!old.eols.some((e) => e !== "")) return { ...content };
  const eol = dominantEol(old.eols);
  const eols = new Array<Eol>(n);
  let oldPos = 0;
  let newPos = 0;
  const copyUnchanged = (until: number) => {
    for (; newPos < until; newPos++, oldPos++) eols[newPos] = old.eols[oldPos];
  };
  for (const hunk of hunks) {
    copyUnchanged(hunk.newStart - 1);
    for (const line of hunk.lines) {
      if (line.kind === "context") eols[line.newLine - 1] = old.eols[line.oldLine - 1];
      else if (line.kind === "added") eols[line.newLine - 1] = eol;
      else if (line.kind === "elided") for (let k = 0; k < line.added; k++) eols[line.newLine - 1 + k] = eol;
    }
    newPos = hunk.newStart - 1 + hunk.newCount;
    oldPos = hunk.oldStart - 1 + hunk.oldCount;
  }
  copyUnchanged(n);

  // The old last line may have had no terminator; only the content decides the end.
  for (let j = 0; j < n - 1; j++) if (eols[j] === "") eols[j] = eol;
  if (n > 0) eols[n - 1] = content.eols[n - 1] === "" ? "" : eols[n - 1] || eol;
  for (let j = 0; j < n; j++) eols[j] = faithfulEol(content.lines[j], eols[j]);
  return { lines: content.lines, eols, bom: content.bom, eolApplied: eol };
}

/**
 * A change of whether the file ends with a newline, which no line diff shows
 * (a line's id covers its text, not its terminator): said, as edit says it,
 * with how to get the other ending. Not said for an empty file either side.
 */
export function finalNewlineNote(old: Pick<TextDocument, "eols">, next: Pick<TextDocument, "eols">): string | undefined {
  if (old.eols.length === 0 || next.eols.length === 0) return undefined;
  const before = old.eols[old.eols.length - 1] !== "";
  const after = next.eols[next.eols.length - 1] !== "";
  if (before === after) return undefined;
  return after
    ? 'Note: the file now ends with a newline (it had none before this write), because content ends with "\\n"; to leave it without one, end content without "\\n".'
    : 'Note: the file no longer ends with a newline (it had one before this write), because content does not end with "\\n"; to keep it, end content with "\\n".';
}

/** A byte-order mark added by a content starting with U+FEFF: no diff shows it either. */
export function bomNote(old: Pick<TextDocument, "bom">, next: Pick<TextDocument, "bom">): string | undefined {
  if (old.bom || !next.bom) return undefined;
  return "Note: the file now starts with a UTF-8 byte-order mark (it had none before this write), because content starts with U+FEFF; to leave it without one, start content without U+FEFF.";
}

/**
 * `content` without a "\r" at its lines' ends (see text/eol.ts
 * `dropTrailingCr`), unless the old file has that very line (a lone-CR
 * file's last line); a last line that loses one gets a terminator (the
 * content's dominant one), since that "\r" was its line ending. The
 * 1-based lines changed, for the note.
 */
export function dropCrEnds<T extends SplitLines>(content: T, oldLines: readonly string[]): { content: T; changed: number[] } {
  const keep = (i: number) => oldLines.includes(content.lines[i]);
  const dropped = dropTrailingCr(content.lines, keep);
  if (!dropped) return { content, changed: [] };
  const eols = content.eols.slice();
  const last = eols.length - 1;
  if (dropped.changed.includes(last) && eols[last] === "") eols[last] = dominantEol(content.eols);
  return { content: { ...content, lines: dropped.lines, eols }, changed: dropped.changed.map((i) => i + 1) };
}

/** How a file's lines end, for notes: "CRLF", "LF", "mixed", or undefined when no line is terminated. */
export function eolName(eols: readonly Eol[]): "CRLF" | "LF" | "mixed" | undefined {
  const crlf = eols.some((e) => e === "\r\n");
  const lf = eols.some((e) => e === "\n");
  return crlf && lf ? "mixed" : crlf ? "CRLF" : lf ? "LF" : undefined;
}

/**
 * Content's own line endings that the file's style replaced, named when
 * they are all one kind: "CRLF" (content sent CRLF where the file keeps LF)
 * or "LF"; undefined when every line was written with the ending sent.
 */
export function droppedEols(sent: readonly Eol[], written: readonly Eol[]): "CRLF" | "LF" | "mixed" | undefined {
  const differ: Eol[] = [];
  for (let i = 0; i < sent.length; i++) if (sent[i] !== "" && written[i] !== sent[i]) differ.push(sent[i]);
  return eolName(differ);
}
