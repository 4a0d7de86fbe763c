/**
 * Checks on what a batch's operations would write, before any id is
 * verified: half a surrogate pair (support/new-text.ts), pasted view
 * artifacts and lines copied from a shortened row (see support/pasted.ts),
 * and a one-line content with literal `\n` / `\t` escapes outside quoted
 * literals, the over-escaping that edit's ladder reads. Here there is no
 * old_string whose match proves the reading, so the corrected operation is
 * offered and nothing is written; escapes inside quoted literals are code
 * and pass. A "\r" at a content line's end is read as part of its line
 * ending, with a note (text/eol.ts `dropTrailingCr`).
 */

import type { TextDocument } from "../../text/document.ts";
import { textToLines } from "../../text/line-edits.ts";
import { dropTrailingCr } from "../../text/eol.ts";
import { escapePlaces } from "../../text/match-escapes.ts";
import { loneSurrogateText, trailingCrNote } from "../support/new-text.ts";
import { checkPasted } from "../support/pasted.ts";
import { shortenedRemedy } from "../support/shortened.ts";
import type { Operation, OpFailure, RawOperation } from "./parse.ts";

/** The operations to apply (artifacts stripped where that is safe), the refused ones, and notes for the result. */
export interface CheckedContent {
  readonly ops: Operation[];
  readonly failures: OpFailure[];
  readonly notes: string[];
}

// TeX commands start with a backslash and a letter: \newline, \textbf are content there, never escapes.
const TEX = /\.(tex|sty|cls|bib|ltx|dtx|ins)$/i;

/** Check every replace / insert content of `ops` against `doc` at `path` (as shown). */
export function checkContents(
  doc: TextDocument,
  path: string,
  ops: readonly Operation[],
  raw: readonly RawOperation[],
  // view's line cut (ToolLimits.maxLineChars), to tell what a shortened line showed; DEFAULT_LIMITS' when not given.
  maxLineChars?: number,
): CheckedContent {
  const out: Operation[] = [];
  const failures: OpFailure[] = [];
  const notes: string[] = [];
  for (const op of ops) {
    if (op.kind === "delete") {
      out.push(op);
      continue;
    }
    const text = op.lines.join("\n");
    const range = op.kind === "replace" ? ([Math.min(op.start.line, op.end.line), Math.max(op.start.line, op.end.line)] as const) : undefined;
    const ownsId = range ? (n: number, h: number) => n >= range[0] && n <= range[1] && doc.hashes[n - 1] === h : undefined;
    const corrected = (content: string) => JSON.stringify({ ...raw[op.index], content });
    // Half a character cannot be written at all (UTF-8 would store U+FFFD): refused, whatever else the content holds.
    const lone = loneSurrogateText("content", text, corrected, "send this operation instead");
    if (lone) {
      failures.push({ index: op.index, label: op.label, code: "INVALID_ARGUMENT", message: lone });
      out.push(op);
      continue;
    }
    const pasted = checkPasted(text, { path, fileLines: () => doc.lines, ownsId, region: range ? [range] : [], maxLineChars });
    // A refused operation is still verified with the rest, so a stale id in it is reported too.
    if (pasted.kind === "refuse" && pasted.shortened) {
      const other = op.lines.length > pasted.shortened.length;
      failures.push({
        index: op.index,
        label: op.label,
        code: "INVALID_ARGUMENT",
        message: `content ${pasted.what}.${pasted.unclear ? ` It cannot be cleaned with certainty (${pasted.unclear}).` : ""}\n${shortenedRemedy(path, pasted.shortened, "batch_edit", other)}`,
      });
      out.push(op);
      continue;
    }
    if (pasted.kind === "refuse") {
      // An unclear paste (a cut diff, a shortened row that names no current line) has no sure cleaning to offer.
      const instead = pasted.unclear
        ? `It cannot be cleaned with certainty (${pasted.unclear}): send the operation with content exactly as the lines should read, without "N:hh|" prefixes or diff markers.`
        : `Send this operation instead: ${corrected(pasted.cleaned)}`;
      failures.push({
        index: op.index,
        label: op.label,
        code: "INVALID_ARGUMENT",
        message: `content ${pasted.what}. ${instead}\nIf the text really belongs in the file as sent, send the batch with "verbatim": true.`,
      });
      out.push(op);
      continue;
    }
    if (pasted.kind === "strip") {
      notes.push(`operations[${op.index}]: ${pasted.note}`);
      out.push(withoutTrailingCr(doc, { ...op, lines: textToLines(pasted.text) }, notes));
      continue;
    }
    if (op.lines.length === 1 && !TEX.test(path)) {
      const places = escapePlaces(op.lines[0]);
      if (places.outside > 0) {
        failures.push({
          index: op.index,
          label: op.label,
          code: "INVALID_ARGUMENT",
          message:
            `content is one line with ${places.outside === 1 ? "a literal \\n or \\t" : `${places.outside} literal \\n / \\t escapes`} outside any quoted literal, ` +
            `which looks like an over-escaped call (real newlines or tabs meant); it was not written, since the backslashes may be meant (escapes inside quotes are taken as code). ` +
            `With real newlines and tabs, send this operation: ${corrected(places.outsideRead)}\n` +
            `If the backslashes really belong in the line as sent, send the batch with "verbatim": true.`,
        });
        out.push(op);
        continue;
      }
    }
    out.push(withoutTrailingCr(doc, op, notes));
  }
  return { ops: out, failures, notes };
}

type Writing = Extract<Operation, { kind: "replace" | "insert" }>;

/**
 * `op` with no "\r" at its content lines' ends (read as part of the line
 * ending, noted), unless the line it replaces at that place ends in "\r"
 * too (a lone-CR file's unterminated last line).
 */
function withoutTrailingCr(doc: TextDocument, op: Writing, notes: string[]): Operation {
  const first = op.kind === "replace" ? Math.min(op.start.line, op.end.line) - 1 : -1;
  const count = op.kind === "replace" ? Math.abs(op.end.line - op.start.line) + 1 : 0;
  const dropped = dropTrailingCr(op.lines, (k) => k < count && doc.lines[first + k]?.endsWith("\r") === true);
  if (!dropped) return op;
  notes.push(
    `operations[${op.index}]: ${trailingCrNote(
      "content",
      dropped.changed.map((k) => k + 1),
    )}`,
  );
  return { ...op, lines: dropped.lines };
}

/**
 * With `verbatim`, content is written as sent, but half a surrogate pair
 * still cannot be (UTF-8 would store U+FFFD): refused as without it.
 */
export function checkVerbatim(ops: readonly Operation[], raw: readonly RawOperation[]): CheckedContent {
  const failures: OpFailure[] = [];
  for (const op of ops) {
    if (op.kind === "delete") continue;
    const corrected = (content: string) => JSON.stringify({ ...raw[op.index], content });
    const lone = loneSurrogateText("content", op.lines.join("\n"), corrected, "send this operation instead");
    if (lone) failures.push({ index: op.index, label: op.label, code: "INVALID_ARGUMENT", message: lone });
  }
  return { ops: ops.slice(), failures, notes: [] };
}
