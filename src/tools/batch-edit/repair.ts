/**
 * Working out which line a refused id meant, so the refusal can hand back a
 * call that works. Pure.
 *
 * - A bare line number (`"start": 6`) means that line: its current id.
 * - A wrong id from before the session's own edit of the file (it viewed
 *   the file, edited it, and names lines by the ids it viewed) is corrected
 *   exactly: the session's record says where each viewed line went
 *   (`policy/own-edits.ts`), and the hash there must match.
 * - A wrong id was shifted by an edit above it, when one shift explains
 *   every failed id of the batch. A hash is only 8 bits, so one line with
 *   the same hash nearby proves little (1 in 256 per line); at least two
 *   different ids must agree. Candidates that fit that shift rank first;
 *   the others are named as likely unrelated.
 * - Candidates rank by the lines the session holds around the id: the
 *   shift that makes them fit the file names the place the line moved to
 *   (`heldFits`), and the nearer line breaks a tie only of what was held.
 *   When nothing tells the best candidate from the next, or the candidate
 *   reads as what the session was shown at its own number (it may be that
 *   line, and the id's the copy another writer removed), it is not offered
 *   ready to send.
 * - A wrong id on a file exactly as the session viewed it, whose hash no
 *   line within {@link NEAR_MISS} lines has, was mistyped: the line number
 *   is taken, and its real id given (a line farther off with the hash is a
 *   likely coincidence: ~1 in 256 per line). When a line that near has the
 *   hash (an off-by-one number, an id copied from the next line), the
 *   number and the hash disagree about the line: the number is taken only
 *   when the content written there is clearly an edit of that line and not
 *   of the other (a lone `*` `/` near a method is no evidence against the
 *   method); otherwise nothing is sure, and both are shown.
 */

import { type HeldIds, heldAt, heldFits } from "../../policy/held-ids.ts";
import { viewedLineNow } from "../../policy/own-edits.ts";
import type { OwnEdits } from "../../policy/types.ts";
import { formatId } from "../../text/ids.ts";
import { lineSimilarity } from "../../text/similarity.ts";
import type { LineIdRef } from "./parse.ts";
import { type IdCheck, type Lines, RELOCATE_WINDOW, relocate } from "./verify.ts";

/** An id that did not verify, and where it was used. */
export interface BadId {
  readonly opIndex: number;
  readonly field: string;
  readonly check: Exclude<IdCheck, { kind: "ok" }>;
  /** The replacement line written where this id points (a replace's first or last content line), when there is one. */
  readonly writes?: string;
}

/** A line with the wanted hash near a stale id. */
export interface Candidate {
  /** 1-based line now. */
  readonly line: number;
  /** `line` minus the id's line. */
  readonly shift: number;
  /** Whether `shift` explains every stale id of the batch; undefined when the batch has only one. */
  readonly fits?: boolean;
  /** How many lines the session holds around the id read as held `shift` lines away (when the file changed and held lines are known). */
  readonly held?: number;
  /** Whether every one of those lines does. */
  readonly heldAll?: boolean;
}

/** What is known about one bad id. */
export interface IdRepair {
  /** The id to use instead, when sure enough to put it in a call ready to send. */
  readonly fix?: LineIdRef;
  readonly reason?: "bare" | "mistyped" | "shift" | "own-edit";
  /** Lines with the id's hash near it, best first (fitting the batch's shift, then the held lines around it, then nearest). */
  readonly candidates: readonly Candidate[];
  /** The first candidate is not told from another (see the module comment): no operation on it is offered ready to send. */
  readonly unsure?: boolean;
}

/** The repairs of every bad id of a batch. */
export interface BatchRepair {
  /** One shift that explains every stale id (at least two different ones), when there is exactly one. */
  readonly shift?: number;
  readonly ids: ReadonlyMap<BadId, IdRepair>;
}

/** How near a line with the id's hash must be for the hash to count as naming it rather than a typo. */
export const NEAR_MISS = 3;

/** Most candidates shown per id. */
export const CANDIDATE_LIMIT = 3;

function idAt(doc: Lines, line: number): LineIdRef {
  return { line, hash: doc.hashes[line - 1], text: formatId(line, doc.hashes[line - 1]) };
}

/** Work out every bad id of a batch (see the module comment). */
export function repairBatch(doc: Lines, bad: readonly BadId[], changedSinceView: boolean, own?: OwnEdits, held?: HeldIds): BatchRepair {
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
  const shift = distinct >= 2 && common.length === 1 ? common[0] : undefined;

  for (const b of bad) {
    const { id } = b.check;
    if (b.check.kind === "bare") {
      ids.set(b, { fix: id.line <= n ? idAt(doc, id.line) : undefined, reason: "bare", candidates: [] });
      continue;
    }
    const lines = found.get(id.text) ?? [];
    // On a file as viewed nothing moved: what is held is the file, and says nothing of where a line went.
    const fits =
      held && changedSinceView
        ? heldFits(
            held,
            doc.hashes,
            n,
            id.line,
            lines.map((l) => l - id.line),
          )
        : undefined;
    const ranked = lines
      .map((line): Candidate => {
        const s = line - id.line;
        const fit = fits?.scores.get(s) ?? 0;
        const score = fits ? { held: fit, heldAll: fits.probes > 0 && fit === fits.probes } : {};
        return distinct >= 2 ? { line, shift: s, fits: support.get(s) === distinct, ...score } : { line, shift: s, ...score };
      })
      .sort(
        (a, c) =>
          Number(c.fits ?? false) - Number(a.fits ?? false) || (c.held ?? 0) - (a.held ?? 0) || Math.abs(a.shift) - Math.abs(c.shift) || a.line - c.line,
      );
    const candidates = ranked.slice(0, CANDIDATE_LIMIT);
    const unsure = isUnsure(ranked, held && changedSinceView ? held : undefined, id);
    const viewed = ownEditFix(doc, own, id);
    if (viewed !== undefined) {
      ids.set(b, { fix: idAt(doc, viewed), reason: "own-edit", candidates });
    } else if (!changedSinceView && b.check.kind === "stale" && numberStands(doc, b, candidates)) {
      ids.set(b, { fix: idAt(doc, id.line), reason: "mistyped", candidates });
    } else if (shift !== undefined) {
      ids.set(b, { fix: idAt(doc, id.line + shift), reason: "shift", candidates });
    } else {
      ids.set(b, unsure ? { candidates, unsure } : { candidates });
    }
  }
  return { shift, ids };
}

/** Whether the first of `ranked` is not told apart from the next, or may be the line held at its own number (see the module comment). */
function isUnsure(ranked: readonly Candidate[], held: HeldIds | undefined, id: LineIdRef): boolean {
  const [top, ...others] = ranked;
  if (!top) return false;
  if (held && heldAt(held, top.line) === id.hash) return true;
  // One held line more is not enough to go against the nearer line unless every held line fits there: in
  // code of one shape (two functions alike) a line another writer inserted costs the right place one fit.
  const mine = top.held ?? 0;
  const beats = (c: Candidate) => {
    const theirs = c.held ?? 0;
    if ((top.fits ?? false) !== (c.fits ?? false) || mine - theirs >= HELD_MARGIN) return true;
    return (mine > theirs && top.heldAll === true) || (mine >= theirs && Math.abs(top.shift) < Math.abs(c.shift));
  };
  return !others.every(beats);
}

/** How many more held lines must fit around a farther candidate for it to be offered over a nearer one. */
const HELD_MARGIN = 2;

/**
 * Where the line the session viewed as `id` is now, when its own edits moved
 * it there and the hash proves it. Whether the session was since shown line
 * `id.line` with its new id is the caller's question: for an id that fails
 * there it does not matter (it is not the id shown).
 */
export function ownEditFix(doc: Lines, own: OwnEdits | undefined, id: LineIdRef): number | undefined {
  if (!own) return undefined;
  const now = viewedLineNow(own, id.line);
  return now !== undefined && now !== id.line && now <= doc.lines.length && doc.hashes[now - 1] === id.hash ? now : undefined;
}

/** How much more like the numbered line than like any near candidate the written content must be. */
const CLEARLY = 0.3;

/** On a file as viewed: whether a wrong hash is a typo of the numbered line (see the module comment). */
function numberStands(doc: Lines, b: BadId, candidates: readonly Candidate[]): boolean {
  const near = candidates.filter((c) => Math.abs(c.shift) <= NEAR_MISS);
  if (near.length === 0) return true;
  if (b.writes === undefined) return false;
  const numbered = lineSimilarity(b.writes, doc.lines[b.check.id.line - 1]);
  return near.every((c) => numbered - lineSimilarity(b.writes!, doc.lines[c.line - 1]) >= CLEARLY);
}
