/**
 * Working out which line a refused id meant, so the refusal can hand back a
 * call that works. Pure.
 *
 * - A bare line number (`"start": 6`) means that line: its current id.
 * - A wrong id on a file that is exactly as the session viewed it was
 *   mistyped (or copied from another line): the line number is taken, and
 *   its real id given.
 * - A wrong id on a file that changed since the view was shifted by an edit
 *   above it. A hash is only 8 bits, so one line with the same hash nearby
 *   proves little (1 in 256 per line); what proves a move is one shift that
 *   explains every failed id of the batch. Candidates that fit that shift
 *   rank first; the others are named as likely unrelated. The batch is
 *   corrected by that shift only when at least two different ids agree.
 */

import { formatId } from "../../text/ids.ts";
import type { LineIdRef } from "./parse.ts";
import { type IdCheck, type Lines, RELOCATE_WINDOW, relocate } from "./verify.ts";

/** An id that did not verify, and where it was used. */
export interface BadId {
  readonly opIndex: number;
  readonly field: string;
  readonly check: Exclude<IdCheck, { kind: "ok" }>;
}

/** A line with the wanted hash near a stale id. */
export interface Candidate {
  /** 1-based line now. */
  readonly line: number;
  /** `line` minus the id's line. */
  readonly shift: number;
  /** Whether `shift` explains every stale id of the batch; undefined when the batch has only one. */
  readonly fits?: boolean;
}

/** What is known about one bad id. */
export interface IdRepair {
  /** The id to use instead, when sure enough to put it in a call ready to send. */
  readonly fix?: LineIdRef;
  readonly reason?: "bare" | "mistyped" | "shift";
  /** Lines with the id's hash near it, best first (fitting the batch's shift, then nearest). */
  readonly candidates: readonly Candidate[];
}

/** The repairs of every bad id of a batch. */
export interface BatchRepair {
  /** One shift that explains every stale id (at least two different ones), when there is exactly one. */
  readonly shift?: number;
  readonly ids: ReadonlyMap<BadId, IdRepair>;
}

/** Most candidates shown per id. */
export const CANDIDATE_LIMIT = 3;

function idAt(doc: Lines, line: number): LineIdRef {
  return { line, hash: doc.hashes[line - 1], text: formatId(line, doc.hashes[line - 1]) };
}

/** Work out every bad id of a batch (see the module comment). */
export function repairBatch(doc: Lines, bad: readonly BadId[], changedSinceView: boolean): BatchRepair {
  const n = doc.lines.length;
  const ids = new Map<BadId, IdRepair>();
  const hashed = bad.filter((b) => b.check.kind !== "bare");

  // Candidate shifts of each distinct stale id; a shift's support is how many distinct ids it explains.
  const found = new Map<string, number[]>();
  for (const b of hashed) {
    const { id } = b.check;
    // Every line with the hash in the window, not only the nearest few: the shift is decided over all of them.
    if (!found.has(id.text)) found.set(id.text, relocate(doc.hashes, id.hash, Math.min(id.line, n + 1), RELOCATE_WINDOW, Infinity));
  }
  const support = new Map<number, number>();
  for (const [text, lines] of found) {
    const line = Number(text.slice(0, text.indexOf(":")));
    for (const shift of new Set(lines.map((l) => l - line))) support.set(shift, (support.get(shift) ?? 0) + 1);
  }
  const distinct = found.size;
  const common = [...support].filter(([, count]) => count === distinct).map(([shift]) => shift);
  const shift = changedSinceView && distinct >= 2 && common.length === 1 ? common[0] : undefined;

  for (const b of bad) {
    const { id } = b.check;
    if (b.check.kind === "bare") {
      ids.set(b, { fix: id.line <= n ? idAt(doc, id.line) : undefined, reason: "bare", candidates: [] });
      continue;
    }
    const lines = found.get(id.text) ?? [];
    const candidates = lines
      .map((line): Candidate => {
        const s = line - id.line;
        return distinct >= 2 ? { line, shift: s, fits: support.get(s) === distinct } : { line, shift: s };
      })
      .sort((a, c) => Number(c.fits ?? false) - Number(a.fits ?? false) || Math.abs(a.shift) - Math.abs(c.shift) || a.line - c.line)
      .slice(0, CANDIDATE_LIMIT);
    if (!changedSinceView && b.check.kind === "stale") {
      ids.set(b, { fix: idAt(doc, id.line), reason: "mistyped", candidates });
    } else if (shift !== undefined) {
      ids.set(b, { fix: idAt(doc, id.line + shift), reason: "shift", candidates });
    } else {
      ids.set(b, { candidates });
    }
  }
  return { shift, ids };
}
