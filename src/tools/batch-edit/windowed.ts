/**
 * `batch_edit` on windows of the file's lines (see text/line-windows.ts):
 * the lines each operation names, and a margin, are found by scanning the
 * bytes and decoded; the ids are verified on those lines only; the rest of
 * the file is copied as bytes. The same verification runs as on the whole
 * file (`verifyBatch`), over a document that serves only the windows' lines:
 * reading any other line (a check or message that looks further) aborts
 * the windowed attempt, and the whole-file path decides instead. So does
 * any failure: the refusal texts (relocated ids, corrected batches) are
 * always made on the whole file.
 */

import { lineHash } from "../../hash/fnv.ts";
import type { HeldIds } from "../../policy/held-ids.ts";
import type { OwnEdits } from "../../policy/types.ts";
import type { TextDocument } from "../../text/document.ts";
import { countLines, eolStyleOfBytes } from "../../text/line-scan.ts";
import { type LineWindow, readWindows, spliceWindows, type SplicedWindows, windowHunks } from "../../text/line-windows.ts";
import type { DiffHunk } from "../../text/diff.ts";
import { verifyBatch } from "./apply.ts";
import { checkContents, type CheckedContent, checkVerbatim } from "./content.ts";
import type { Operation, RawOperation } from "./parse.ts";

/** A read outside the windows: the windowed attempt is abandoned. */
class OutsideWindows extends Error {}

/** A batch applied on windows: the new file, the diff (whole-file numbers), the notes and line counts. */
export interface WindowedBatch {
  readonly bytes: Uint8Array;
  readonly hunks: readonly DiffHunk[];
  readonly notes: readonly string[];
  readonly ops: readonly Operation[];
  readonly oldLineCount: number;
  readonly newLineCount: number;
}

/** Inputs of {@link windowedBatch}, as the tool parsed them. */
export interface BatchInput {
  readonly ops: readonly Operation[];
  readonly raw: readonly RawOperation[];
  readonly verbatim: boolean;
  readonly path: string;
  readonly maxLineChars: number;
  readonly changedSinceView: boolean;
  readonly own?: OwnEdits;
  readonly ownLoose?: OwnEdits;
  readonly held?: HeldIds;
  readonly version?: string;
}

/** The batch applied on windows, or undefined when the whole-file path must decide (any failure, any read outside). */
export function windowedBatch(doc: TextDocument, input: BatchInput): WindowedBatch | undefined {
  const body = doc.body;
  // The line count comes with the windows' scan, unless an insert at the end needs it first.
  const known = input.ops.some((op) => op.kind === "insert" && op.after.kind === "end") ? countLines(body) : undefined;
  const ranges = [];
  for (const op of input.ops) {
    const range = rangeOf(op, known);
    if (range === undefined) return undefined;
    ranges.push(range);
  }
  const read = readWindows(body, ranges, known);
  // A line past the end fails verification: the whole-file path words that refusal.
  if (read === undefined || ranges.some((r) => r.end > read.lineCount)) return undefined;
  const { windows, lineCount } = read;
  const view = windowedDocument(doc, windows, lineCount);
  try {
    const checked: CheckedContent = input.verbatim
      ? checkVerbatim(input.ops, input.raw)
      : checkContents(view, input.path, input.ops, input.raw, input.maxLineChars);
    if (checked.failures.length > 0) return undefined;
    const verified = verifyBatch(view, checked.ops, [], input.path, input.maxLineChars, {
      raw: input.raw,
      changedSinceView: input.changedSinceView,
      own: input.own,
      ownLoose: input.ownLoose,
      held: input.held,
      version: input.version,
    });
    if (verified.kind !== "ok") return undefined;
    const spliced: SplicedWindows = spliceWindows(doc.bom, body, windows, verified.edits, eolStyleOfBytes(body), lineCount);
    return {
      bytes: spliced.bytes,
      hunks: windowHunks(windows, spliced.outs),
      notes: checked.notes,
      ops: checked.ops,
      oldLineCount: lineCount,
      newLineCount: spliced.newLineCount,
    };
  } catch (error) {
    if (error instanceof OutsideWindows) return undefined;
    throw error;
  }
}

/**
 * The lines an operation touches (0-based, end exclusive), or undefined for
 * a bare line number (never accepted). `lineCount` is needed only for an
 * insert at the end (given then).
 */
function rangeOf(op: Operation, lineCount: number | undefined): { start: number; end: number } | undefined {
  if (op.kind === "insert") {
    const a = op.after;
    if (a.kind === "start") return { start: 0, end: 0 };
    if (a.kind === "end") return lineCount === undefined ? undefined : { start: lineCount, end: lineCount };
    return a.id.bare ? undefined : { start: a.id.line, end: a.id.line };
  }
  const { start, end } = op;
  if (start.bare || end.bare) return undefined;
  return { start: Math.min(start.line, end.line) - 1, end: Math.max(start.line, end.line) };
}

/**
 * A document that serves `lines[i]` and `hashes[i]` for the windows' lines
 * and `length` for the whole file; every other read throws
 * {@link OutsideWindows}. Hashes are the reference JS hash of the decoded
 * line (the hashers agree with it, see test/hash).
 */
function windowedDocument(doc: TextDocument, windows: readonly LineWindow[], lineCount: number): TextDocument {
  const lineAt = (i: number): string => {
    for (const w of windows) if (i >= w.start && i < w.end) return w.lines.lines[i - w.start];
    throw new OutsideWindows(`line ${i} is outside the windows`);
  };
  const column = <T>(of: (line: string) => T) =>
    new Proxy([], {
      get(_target, prop) {
        if (prop === "length") return lineCount;
        if (typeof prop !== "string" || !/^(?:0|[1-9]\d*)$/.test(prop)) throw new OutsideWindows(`read of ${String(prop)}`);
        const i = Number(prop);
        return i < lineCount ? of(lineAt(i)) : undefined;
      },
      has() {
        throw new OutsideWindows("an `in` check");
      },
    });
  const outside = (): never => {
    throw new OutsideWindows("a whole-file column");
  };
  return {
    ok: true,
    bom: doc.bom,
    body: doc.body,
    lines: column((line) => line) as unknown as string[],
    hashes: column(lineHash) as unknown as Uint8Array,
    get eols() {
      return outside();
    },
    get starts() {
      return outside();
    },
    get ends() {
      return outside();
    },
  };
}
