/**
 * Parsing `batch_edit` operations: every target that names existing content
 * must be a line id `N:hh`, because a bare position goes stale the moment a
 * line above it changes while an id proves its line. Only insertion anchors
 * that name no content may be numbers: 0 (start of file) and -1 (end). A
 * bare line number is parsed (as `bare`) and refused at verification, where
 * the refusal can give that line's current id and the corrected call.
 * Pure; every problem is collected, nothing stops at the first.
 */

import type { ErrorCode } from "../../errors.ts";
import { formatId, parseLineId } from "../../text/ids.ts";
import { textToLines } from "../../text/line-edits.ts";

/** An operation as the schema lets it through. */
export type RawOperation =
  | { readonly operation: "replace"; readonly start: string | number; readonly end?: string | number; readonly content: string }
  | { readonly operation: "insert"; readonly after: string | number; readonly content: string }
  | { readonly operation: "delete"; readonly start: string | number; readonly end?: string | number };

/**
 * A parsed line id: 1-based line, 8-bit hash, and its canonical text. A bare
 * line number (`"start": 6`) parses as `bare` with hash -1: it is refused at
 * verification, where the refusal can name that line's current id.
 */
export interface LineIdRef {
  readonly line: number;
  readonly hash: number;
  readonly text: string;
  readonly bare?: true;
}

/** Where an insert goes: after a line (by id), or at the start / end of the file. */
export type Anchor = { readonly kind: "start" } | { readonly kind: "end" } | { readonly kind: "line"; readonly id: LineIdRef };

/** A well-formed operation. `index` is its place in `operations`; `label` names it in messages. */
export type Operation =
  | {
      readonly kind: "replace";
      readonly index: number;
      readonly label: string;
      readonly start: LineIdRef;
      readonly end: LineIdRef;
      readonly lines: readonly string[];
    }
  | { readonly kind: "insert"; readonly index: number; readonly label: string; readonly after: Anchor; readonly lines: readonly string[] }
  | { readonly kind: "delete"; readonly index: number; readonly label: string; readonly start: LineIdRef; readonly end: LineIdRef };

/** Why one operation cannot be applied: its index, how to name it, a code and the sentence for the model. */
export interface OpFailure {
  readonly index: number;
  readonly label: string;
  readonly code: ErrorCode;
  readonly message: string;
}

/** Most operations one call may carry (the schema enforces it too). */
export const MAX_OPERATIONS = 100;

const BARE_NUMBER = /^\s*[+-]?[0-9]+\s*$/;

/** Parse every operation; the well-formed ones and every problem found in the others. */
export function parseOperations(raw: readonly RawOperation[], path: string): { ops: Operation[]; failures: OpFailure[] } {
  const ops: Operation[] = [];
  const failures: OpFailure[] = [];
  raw.forEach((op, index) => {
    const label = labelOf(op);
    const problems: string[] = [];
    const fail = (message: string) => problems.push(message);
    const parsed = parseOne(op, path, fail);
    if (problems.length > 0 || parsed === undefined) {
      for (const message of problems) failures.push({ index, label, code: "INVALID_ARGUMENT", message });
      return;
    }
    ops.push({ ...parsed, index, label } as Operation);
  });
  return { ops, failures };
}

type Unlabelled<T> = T extends unknown ? Omit<T, "index" | "label"> : never;

function parseOne(op: RawOperation, path: string, fail: (m: string) => void): Unlabelled<Operation> | undefined {
  switch (op.operation) {
    case "replace": {
      // Empty content and a reversed range are refused after verification, so the suggested call carries proven ids.
      const start = targetId("start", op.start, path, fail);
      const end = op.end === undefined ? start : targetId("end", op.end, path, fail);
      const lines = contentLines(op.content);
      return start && end ? { kind: "replace", start, end, lines } : undefined;
    }
    case "delete": {
      const start = targetId("start", op.start, path, fail);
      const end = op.end === undefined ? start : targetId("end", op.end, path, fail);
      return start && end ? { kind: "delete", start, end } : undefined;
    }
    case "insert": {
      const after = anchor(op.after, path, fail);
      const lines = contentLines(op.content);
      if (lines.length === 0) fail(`content is empty: there is nothing to insert (content "\\n" inserts one empty line).`);
      return after ? { kind: "insert", after, lines } : undefined;
    }
  }
}

/**
 * Content as lines: "\r\n" read as "\n" (new lines take the file's own
 * ending on write), and a trailing newline ends the last line rather than
 * adding an empty one ("a\n" is one line, "\n" one empty line, "" none).
 */
export function contentLines(content: string): string[] {
  return textToLines(content.includes("\r\n") ? content.split("\r\n").join("\n") : content);
}

function targetId(field: "start" | "end", value: string | number, path: string, fail: (m: string) => void): LineIdRef | undefined {
  if (isBareNumber(value)) {
    const n = Number(String(value).trim());
    if (Number.isSafeInteger(n) && n >= 1) return bareRef(n);
    fail(`${field}: ${bareNumberText(value, path)}`);
    return undefined;
  }
  const id = parseLineId(value);
  if (!id.ok) {
    fail(`${field}: ${id.message}.`);
    return undefined;
  }
  return { line: id.line, hash: id.hash, text: formatId(id.line, id.hash) };
}

function anchor(value: string | number, _path: string, fail: (m: string) => void): Anchor | undefined {
  if (isBareNumber(value)) {
    const n = Number(String(value).trim());
    if (n === 0) return { kind: "start" };
    if (n === -1) return { kind: "end" };
    if (Number.isSafeInteger(n) && n >= 1) return { kind: "line", id: bareRef(n) };
    fail(
      `after: ${JSON.stringify(value)} is not a line; as a number, after accepts only 0 (start of the file) and -1 (end of the file). ` +
        `To insert after a line, give its line id "N:hh" from view output ("12:a3|…" -> "12:a3").`,
    );
    return undefined;
  }
  const id = parseLineId(value);
  if (!id.ok) {
    fail(`after: ${id.message} (or 0 for the start of the file, -1 for the end).`);
    return undefined;
  }
  return { kind: "line", id: { line: id.line, hash: id.hash, text: formatId(id.line, id.hash) } };
}

/** A bare line number, kept so verification can refuse it with that line's current id. */
function bareRef(n: number): LineIdRef {
  return { line: n, hash: -1, text: String(n), bare: true };
}

/** A number, or a string that is only a number. */
export function isBareNumber(value: unknown): boolean {
  return typeof value === "number" || (typeof value === "string" && BARE_NUMBER.test(value));
}

function bareNumberText(value: string | number, path: string): string {
  return (
    `${JSON.stringify(value)} is not a line: lines are 1-indexed, and batch_edit needs a line id "N:hh" ` +
    `whose hash proves the line is still the one you read. View the file to get the ids: view {"path": ${JSON.stringify(path)}}.`
  );
}

/** How an operation is named in messages, from what the model sent: "replace 12:ab-14:cd", "insert after 0". */
export function labelOf(op: RawOperation): string {
  const text = (value: string | number) => {
    const s = String(typeof value === "string" ? value.trim() : value);
    const bar = s.indexOf("|");
    const id = bar === -1 ? s : s.slice(0, bar).trimEnd();
    return id.length > 24 ? `${id.slice(0, 24)}…` : id;
  };
  switch (op.operation) {
    case "insert":
      return `insert after ${text(op.after)}`;
    case "replace":
    case "delete":
      return op.end === undefined || text(op.end) === text(op.start)
        ? `${op.operation} ${text(op.start)}`
        : `${op.operation} ${text(op.start)}-${text(op.end)}`;
  }
}
