/**
 * Verifying `batch_edit` operations against the file as it is now, before
 * anything is written: every id must name its line (position AND hash),
 * operations may not touch the same lines, and a replacement may not repeat
 * the line next to it (the commonest slip: the model includes a context line
 * in content that its range does not cover). Pure.
 */

import type { TextDocument } from "../../text/document.ts";
import { formatId } from "../../text/ids.ts";
import type { LineEdit } from "../../text/line-edits.ts";
import type { Anchor, LineIdRef, OpFailure, Operation } from "./parse.ts";

/** How far from a stale target to look for where its content went (lines either side). */
export const RELOCATE_WINDOW = 200;
/** Most relocation candidates named. */
export const RELOCATE_LIMIT = 3;

/** The part of a document verification reads. */
export type Lines = Pick<TextDocument, "lines" | "hashes">;

/** Outcome of checking one id against the file. */
export type IdCheck =
  | { readonly kind: "ok" }
  | { readonly kind: "stale"; readonly id: LineIdRef; readonly actual: number }
  | { readonly kind: "past-end"; readonly id: LineIdRef; readonly lineCount: number }
  /** A bare line number: never accepted, but the refusal names the line's current id. */
  | { readonly kind: "bare"; readonly id: LineIdRef; readonly lineCount: number };

/** Whether `id` names a line of `doc`: the line exists and hashes to the id's hash. */
export function checkId(doc: Lines, id: LineIdRef): IdCheck {
  if (id.bare) return { kind: "bare", id, lineCount: doc.lines.length };
  if (id.line > doc.lines.length) return { kind: "past-end", id, lineCount: doc.lines.length };
  const actual = doc.hashes[id.line - 1];
  return actual === id.hash ? { kind: "ok" } : { kind: "stale", id, actual };
}

/**
 * Lines (1-based) within `window` lines of `line` whose hash is `hash`,
 * nearest first (the earlier of two at the same distance first), at most
 * `limit`, never `line` itself. Bounded, so a big repetitive file does not
 * answer with noise from far away.
 */
export function relocate(hashes: Uint8Array, hash: number, line: number, window = RELOCATE_WINDOW, limit = RELOCATE_LIMIT): number[] {
  const found: number[] = [];
  const n = hashes.length;
  for (let d = 1; d <= window && found.length < limit; d++) {
    const above = line - d;
    const below = line + d;
    if (above < 1 && below > n) break;
    if (above >= 1 && above <= n && hashes[above - 1] === hash) found.push(above);
    if (found.length < limit && below >= 1 && below <= n && hashes[below - 1] === hash) found.push(below);
  }
  return found;
}

/** An operation as a line edit (0-based, end exclusive, old-file coordinates). */
export interface PlannedEdit extends LineEdit {
  readonly op: Operation;
}

/** The line edit of a verified operation in a file of `lineCount` lines. */
export function toEdit(op: Operation, lineCount: number): PlannedEdit {
  switch (op.kind) {
    case "replace":
      return { op, start: op.start.line - 1, end: op.end.line, lines: op.lines };
    case "delete":
      return { op, start: op.start.line - 1, end: op.end.line, lines: [] };
    case "insert": {
      const at = boundary(op.after, lineCount);
      return { op, start: at, end: at, lines: op.lines };
    }
  }
}

function boundary(anchor: Anchor, lineCount: number): number {
  return anchor.kind === "start" ? 0 : anchor.kind === "end" ? lineCount : anchor.id.line;
}

/** The ids an operation names (an insert at 0 / -1 names none). */
export function idsOf(op: Operation): { field: string; id: LineIdRef }[] {
  if (op.kind === "insert") return op.after.kind === "line" ? [{ field: "after", id: op.after.id }] : [];
  return op.end.text === op.start.text
    ? [{ field: "start", id: op.start }]
    : [
        { field: "start", id: op.start },
        { field: "end", id: op.end },
      ];
}

/**
 * Pairs of edits that touch the same lines: overlapping replace/delete
 * ranges, an insert strictly inside a replaced or deleted range, or two
 * inserts at one place (their order would be a guess). Reported on the
 * later operation, naming both.
 */
export function findConflicts(edits: readonly PlannedEdit[]): OpFailure[] {
  const failures: OpFailure[] = [];
  const byIndex = edits.slice().sort((a, b) => a.op.index - b.op.index);
  for (let j = 0; j < byIndex.length; j++) {
    for (let i = 0; i < j; i++) {
      const message = conflict(byIndex[i], byIndex[j]);
      if (message) failures.push({ index: byIndex[j].op.index, label: byIndex[j].op.label, code: "EDIT_CONFLICT", message });
    }
  }
  return failures;
}

function conflict(a: PlannedEdit, b: PlannedEdit): string | undefined {
  const name = (e: PlannedEdit) => `operations[${e.op.index}] (${e.op.label})`;
  const isInsert = (e: PlannedEdit) => e.op.kind === "insert";
  if (isInsert(a) && isInsert(b)) {
    if (a.start !== b.start) return undefined;
    return `inserts at the same place as ${name(a)}; their order would be a guess. Put both contents in one insert, in the order you want.`;
  }
  if (isInsert(a) || isInsert(b)) {
    const [ins, range] = isInsert(a) ? [a, b] : [b, a];
    if (!(range.start < ins.start && ins.start < range.end)) return undefined;
    // The message belongs to b (the later operation) and names a.
    const head = ins === b ? `inserts inside ${name(range)}` : `covers the insertion point of ${name(ins)}`;
    return (
      `${head}: lines ${range.start + 1}-${range.end} are ` +
      `${range.op.kind === "delete" ? "deleted" : "replaced"} there. Put the inserted lines into that ${range.op.kind === "delete" ? "range's replacement (use replace)" : "replace's content"} instead.`
    );
  }
  if (!(a.start < b.end && b.start < a.end)) return undefined;
  const from = Math.max(a.start, b.start) + 1;
  const to = Math.min(a.end, b.end);
  const shared = from === to ? `line ${from}` : `lines ${from}-${to}`;
  return `overlaps ${name(a)}: both change ${shared}. Merge them into one operation over the whole range, or drop one.`;
}

/**
 * Lines that only close a block or separate code: repeating one next to a
 * replacement is normal, so the duplicate-line guard ignores them.
 */
export function isTrivialLine(line: string): boolean {
  const t = line.trim();
  return t === "" || /^(?:[)\]}]+[;,]?|end;?|fi|done|esac|<\/[\w.:-]+>)$/.test(t);
}

/**
 * The duplicate-line guard over sorted, non-overlapping edits: content whose
 * first line repeats the untouched line just before it in the result, or
 * whose last line repeats the untouched line just after, doubles that line.
 * A replace whose content keeps its own first (last) line as it was is not a
 * slip and is let through; blank lines and lone closers are exempt.
 */
export function findDuplicatedLines(doc: Lines, sorted: readonly PlannedEdit[]): OpFailure[] {
  const failures: OpFailure[] = [];
  const lines = doc.lines;
  const idOf = (i: number) => formatId(i + 1, doc.hashes[i]);
  for (let k = 0; k < sorted.length; k++) {
    const edit = sorted[k];
    if (edit.lines.length === 0) continue;
    const before = untouchedBefore(sorted, k);
    const after = untouchedAfter(sorted, k, lines.length);
    const first = edit.lines[0];
    const last = edit.lines[edit.lines.length - 1];
    const keepsFirst = edit.op.kind === "replace" && first === lines[edit.start];
    const keepsLast = edit.op.kind === "replace" && last === lines[edit.end - 1];
    const quote = (s: string) => JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s);
    const problems: string[] = [];
    if (before !== undefined && first === lines[before] && !keepsFirst && !isTrivialLine(first)) {
      const where = edit.op.kind === "insert" ? `the line it is inserted after` : `the line just before the range`;
      const widen =
        edit.op.kind === "insert"
          ? `(insert adds lines after ${idOf(before)}; it does not replace it — to change that line, use replace with "start": "${idOf(before)}")`
          : `or widen the range to start at ${idOf(before)} so it is replaced too`;
      problems.push(
        `the first line of content, ${quote(first)}, repeats line ${idOf(before)}, ${where}, so the file would have it twice. ` +
          `Drop that line from content ${widen}.`,
      );
    }
    if (after !== undefined && last === lines[after] && !keepsLast && !isTrivialLine(last) && !(edit.lines.length === 1 && problems.length > 0)) {
      const where = edit.op.kind === "insert" ? `the line right after the insertion point` : `the line just after the range`;
      const widen =
        edit.op.kind === "insert"
          ? `(or, to change that line, use replace with "start": "${idOf(after)}")`
          : `or widen the range to end at ${idOf(after)} so it is replaced too`;
      problems.push(
        `the last line of content, ${quote(last)}, repeats line ${idOf(after)}, ${where}, so the file would have it twice. ` +
          `Drop that line from content ${widen}.`,
      );
    }
    for (const message of problems) {
      failures.push({ index: edit.op.index, label: edit.op.label, code: "EDIT_DUPLICATED_LINE", message });
    }
  }
  return failures;
}

/** The untouched old line that ends up right before edit k's content, if that neighbour is an old line. */
function untouchedBefore(sorted: readonly PlannedEdit[], k: number): number | undefined {
  let at = sorted[k].start; // old lines before this boundary
  for (let j = k - 1; j >= 0; j--) {
    const prev = sorted[j];
    if (prev.end < at) break;
    // prev reaches this boundary: its content (if any) is the neighbour, else the lines before it are.
    if (prev.lines.length > 0) return undefined;
    at = Math.min(at, prev.start);
  }
  return at > 0 ? at - 1 : undefined;
}

/** The untouched old line that ends up right after edit k's content, if that neighbour is an old line. */
function untouchedAfter(sorted: readonly PlannedEdit[], k: number, lineCount: number): number | undefined {
  let at = sorted[k].end; // first old line after this edit
  for (let j = k + 1; j < sorted.length; j++) {
    const next = sorted[j];
    if (next.start > at) break;
    if (next.lines.length > 0) return undefined;
    at = Math.max(at, next.end);
  }
  return at < lineCount ? at : undefined;
}

/** Sort edits into the order `applyLineEdits` needs: by start, an insert before a range starting at the same line. */
export function sortEdits(edits: readonly PlannedEdit[]): PlannedEdit[] {
  return edits.slice().sort((a, b) => a.start - b.start || a.end - b.end || a.op.index - b.op.index);
}
