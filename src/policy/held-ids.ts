/**
 * The line ids a session holds: for each line number, the hash it was last
 * shown there (a view, a search hit, a refusal's excerpt), moved along by
 * the session's own edits but never by another writer's, since the model
 * does not see those. An id proves its line's content, not its place: after
 * another writer inserts lines above, an equal `}` or blank line can sit at
 * the id's number and verify, and a range's inner lines can hold a change
 * the model never saw. Comparing what the session holds around a target with
 * the file tells both apart from a change elsewhere. Pure: the tools record
 * it, stores keep it as JSON (hashes as hex, two characters a line).
 */

import { keptSegments, type LineChange, mapSpan } from "./own-edits.ts";
import type { LineSpan } from "./types.ts";

/**
 * A run of held lines: its first line number, their hashes (two hex digits
 * each), and the version of the file they were shown from, when known: lines
 * shown from the version that is there now cannot have moved since.
 */
export type HeldRun = readonly [first: number, hashes: string, version?: string];
/** Held lines, as runs sorted by line number, never overlapping. */
export type HeldIds = readonly HeldRun[];

/** Most lines held per path; past it the lines farthest from the newest shown are let go (unknown, not checked). */
export const MAX_HELD_LINES = 8192;
/** Held lines either side of a target compared with the file: the context a stale-id excerpt shows. */
export const HELD_NEIGHBOURS = 2;

const HEX = /^(?:[0-9a-f]{2})+$/;
const HEX2 = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

function hex(hashes: ArrayLike<number>, from = 0, to = hashes.length): string {
  let out = "";
  for (let i = from; i < to; i++) out += HEX2[hashes[i] & 0xff];
  return out;
}

const lengthOf = (run: HeldRun) => run[1].length / 2;
/** The hash `run` holds for `line` (inside it). */
const hashIn = (run: HeldRun, line: number) => Number.parseInt(run[1].slice(2 * (line - run[0]), 2 * (line - run[0]) + 2), 16);
const lastOf = (run: HeldRun) => run[0] + run[1].length / 2 - 1;

/** Lines `from..to` (clipped) of `run`, as a run; undefined when none. */
function slice(run: HeldRun, from: number, to: number): HeldRun | undefined {
  const lo = Math.max(from, run[0]);
  const hi = Math.min(to, lastOf(run));
  return lo > hi ? undefined : tagged(lo, run[1].slice(2 * (lo - run[0]), 2 * (hi - run[0] + 1)), run[2]);
}

function tagged(first: number, hashes: string, version: string | undefined): HeldRun {
  return version === undefined ? [first, hashes] : [first, hashes, version];
}

/** Runs sorted, adjacent ones of one version joined. */
function joined(runs: readonly HeldRun[]): HeldRun[] {
  const out: [number, string, string?][] = [];
  for (const [first, hashes, version] of [...runs].sort((a, b) => a[0] - b[0])) {
    const last = out[out.length - 1];
    if (last && last[0] + last[1].length / 2 === first && last[2] === version) last[1] += hashes;
    else out.push(version === undefined ? [first, hashes] : [first, hashes, version]);
  }
  return out;
}

/** `runs` without lines `from..to`. */
function without(runs: readonly HeldRun[], from: number, to: number): HeldRun[] {
  const out: HeldRun[] = [];
  for (const run of runs) {
    const before = slice(run, run[0], from - 1);
    const after = slice(run, to + 1, lastOf(run));
    if (before) out.push(before);
    if (after) out.push(after);
  }
  return out;
}

/** `runs` cut to {@link MAX_HELD_LINES}, letting go of the lines farthest from `near` first. */
function bounded(runs: HeldRun[], near: number): HeldRun[] {
  let total = runs.reduce((n, r) => n + lengthOf(r), 0);
  if (total <= MAX_HELD_LINES) return runs;
  const out = runs.slice();
  while (total > MAX_HELD_LINES) {
    // The run farthest from `near`, trimmed from its far end.
    let far = 0;
    let farthest = -1;
    out.forEach((r, i) => {
      const d = Math.max(Math.abs(r[0] - near), Math.abs(lastOf(r) - near));
      if (d > farthest) [far, farthest] = [i, d];
    });
    const run = out[far];
    const cut = Math.min(total - MAX_HELD_LINES, lengthOf(run));
    const rest = Math.abs(run[0] - near) > Math.abs(lastOf(run) - near) ? slice(run, run[0] + cut, lastOf(run)) : slice(run, run[0], lastOf(run) - cut);
    if (rest) out[far] = rest;
    else out.splice(far, 1);
    total -= cut;
  }
  return out;
}

/** `held` after the session was shown lines `first..` with `hashes` (line ids it now holds), from `version` of the file. */
export function hold(held: HeldIds | undefined, first: number, hashes: ArrayLike<number>, version?: string): HeldIds {
  if (hashes.length === 0) return held ?? [];
  const keep = Math.min(hashes.length, MAX_HELD_LINES);
  const run = tagged(first, hex(hashes, 0, keep), version);
  return bounded(joined([...without(held ?? [], first, first + keep - 1), run]), first);
}

/** `held` after lines `spans` of `version` of a document with `hashes` (0-based by line) were shown. */
export function holdSpans(held: HeldIds | undefined, spans: readonly LineSpan[], hashes: ArrayLike<number>, version?: string): HeldIds | undefined {
  let out = held;
  for (const [a, b] of spans) {
    const to = Math.min(b, hashes.length);
    if (a >= 1 && a <= to)
      out = hold(
        out,
        a,
        Array.from({ length: to - a + 1 }, (_, i) => hashes[a - 1 + i]),
        version,
      );
  }
  return out;
}

/** One changed region of the session's own edit, with the ids of its new lines as its result showed them (`ChangedRange`). */
export interface HeldChange extends LineChange {
  readonly ids?: readonly string[];
  readonly complete?: boolean;
}

/**
 * `held` after the session's own edit with `changes` (the result's changed
 * ranges): unchanged lines move with the edit; the new lines are held with
 * the ids the result showed for them, the ones models chain with. (A line
 * the diff showed as context keeps what was held for it: the same line,
 * moved.)
 */
export function heldAfterEdit(
  held: HeldIds | undefined,
  changes: readonly HeldChange[] | undefined,
  versions: { readonly from?: string; readonly to?: string } = {},
): HeldIds | undefined {
  if (held === undefined || held.length === 0) return held;
  if (changes === undefined) return undefined;
  const segments = keptSegments(changes);
  // Lines shown from the version the edit was applied to are, moved, lines of the version it made.
  const retag = (version: string | undefined) => (version !== undefined && version === versions.from ? versions.to : version);
  const moved: HeldRun[] = [];
  for (const run of held) {
    for (const [lo, hi, now] of mapSpan(run[0], lastOf(run), segments)) moved.push(tagged(now, slice(run, lo, hi)![1], retag(run[2])));
  }
  let out: HeldIds = joined(moved);
  for (const c of changes) {
    const hashes = idHashes(c);
    if (hashes && hashes.length > 0) out = hold(out, c.newStart, hashes, versions.to);
  }
  return out;
}

/** The hashes of a change's new lines from their ids ("N:hh"), when the result listed them all. */
function idHashes(change: HeldChange): number[] | undefined {
  if (!change.ids || change.complete === false || change.ids.length !== change.newCount) return undefined;
  const out: number[] = [];
  for (const id of change.ids) {
    const hash = Number.parseInt(id.slice(id.indexOf(":") + 1), 16);
    if (!Number.isInteger(hash) || hash < 0 || hash > 0xff) return undefined;
    out.push(hash);
  }
  return out;
}

/** The hash held for `line`, if any. */
export function heldAt(held: HeldIds, line: number): number | undefined {
  const run = runAt(held, line);
  return run === undefined ? undefined : hashIn(run, line);
}

/** The hash held for `line` and the version it was shown from (undefined: not known), if any. */
export function heldWithVersion(held: HeldIds, line: number): { readonly hash: number; readonly version?: string } | undefined {
  const run = runAt(held, line);
  return run === undefined ? undefined : { hash: hashIn(run, line), version: run[2] };
}

function runAt(held: HeldIds, line: number): HeldRun | undefined {
  let lo = 0;
  let hi = held.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const run = held[mid];
    if (line < run[0]) hi = mid - 1;
    else if (line > lastOf(run)) lo = mid + 1;
    else return run;
  }
  return undefined;
}

/** Outcome of comparing held ids with the file around one operation's lines. */
export type HeldCheck =
  | { readonly kind: "ok" }
  /** Lines inside the operation's range are not what the session was shown there. */
  | { readonly kind: "changed"; readonly lines: readonly number[] }
  /**
   * The lines around the target fit the file better elsewhere (lines were
   * added or removed above it since the session was shown them), or as well
   * elsewhere after another writer's change (in doubt). `shift`, when one
   * offset fits best, is where they are now (target + shift).
   */
  | { readonly kind: "moved"; readonly shift?: number }
  /**
   * Another writer removed `count` lines at or just below the target that
   * read the same as its last lines: the file is the same whether the copy
   * removed was the one below or the target itself, so a replace or delete
   * may do again what was already done.
   */
  | { readonly kind: "removed"; readonly count: number };

/** Widest reach of held lines compared either side of a target, when nearer ones fit elsewhere as well (repetitive code). */
export const HELD_REACH = 64;

/**
 * Compare the held ids around lines `first..last` (an insert's anchor:
 * `first == last`) with the file's `hashes` (0-based by line, `count`
 * lines; reading outside what the caller loaded may throw, and the caller
 * then decides on the whole file). Lines inside must be as held; a change
 * next to the target is another writer's edit in place, accepted, unless the
 * held neighbours fit at another offset clearly better (by two lines, and at
 * least three): then the target was shifted and an equal line took its place.
 * Repetitive code (getters of one shape, runs of `}`) fits several offsets
 * about as well: the comparison then reaches farther out, up to
 * {@link HELD_REACH} lines, until one offset stands out. Unless
 * `changedSinceView`, a full fit in place is taken at once (nothing else
 * wrote the file, so nothing moved).
 */
export function checkHeld(
  held: HeldIds,
  hashes: ArrayLike<number>,
  count: number,
  first: number,
  last: number,
  options: { readonly changedSinceView?: boolean; readonly version?: string; readonly removes?: boolean } = {},
): HeldCheck {
  const placed = checkPlace(held, hashes, count, first, last, options);
  // Only a replace or delete can repeat a removal: an insert next to the one copy left adds its lines all the same.
  if (placed.kind !== "ok" || !options.removes || options.changedSinceView === false) return placed;
  if (options.version !== undefined && shownNowAround(held, hashes, count, first, last, options.version)) return placed;
  const removed = removedAtTarget(held, hashes, count, last);
  return removed === undefined ? placed : { kind: "removed", count: removed };
}

function checkPlace(
  held: HeldIds,
  hashes: ArrayLike<number>,
  count: number,
  first: number,
  last: number,
  options: { readonly changedSinceView?: boolean; readonly version?: string },
): HeldCheck {
  const changedSinceView = options.changedSinceView ?? true;
  const changed: number[] = [];
  for (const run of held) {
    const part = slice(run, first, Math.min(last, count));
    if (!part) continue;
    for (let line = part[0]; line <= lastOf(part); line++) {
      if (hashes[line - 1] !== hashIn(part, line)) changed.push(line);
    }
  }
  if (changed.length > 0) return { kind: "changed", lines: changed };
  // Lines shown from the version there now, at their place: nothing can have moved them since.
  if (options.version !== undefined && shownNowAround(held, hashes, count, first, last, options.version)) return { kind: "ok" };
  let shifts: number[] | undefined; // the offsets still in the running (all, at first)
  for (let reach = HELD_NEIGHBOURS; ; reach *= 2) {
    const probes = probesAround(held, first, last, reach);
    const fits = (shift: number) => {
      let n = 0;
      for (const [line, h] of probes) if (line + shift >= 1 && line + shift <= count && hashes[line + shift - 1] === h) n++;
      return n;
    };
    if (probes.length === 0) return { kind: "ok" }; // nothing held near it: no evidence either way
    const here = fits(0);
    // The file as the session knows it: what it holds fits, and no one else can have moved a line.
    if (here === probes.length && reach === HELD_NEIGHBOURS && !changedSinceView) return { kind: "ok" };
    const lowest = probes.reduce((m, [l]) => Math.min(m, l), Number.POSITIVE_INFINITY);
    const highest = probes.reduce((m, [l]) => Math.max(m, l), 0);
    const scored: [number, number][] = [];
    for (const shift of shifts ?? range(1 - lowest, count - highest)) if (shift !== 0) scored.push([shift, fits(shift)]);
    const best = scored.reduce((m, [, n]) => Math.max(m, n), 0);
    if (best >= here + 2 && best >= 3) {
      const at = scored.filter(([, n]) => n === best);
      return at.length === 1 ? { kind: "moved", shift: at[0][0] } : { kind: "moved" };
    }
    if (best < here) return { kind: "ok" }; // clearly here
    const wider = probesAround(held, first, last, reach * 2).length > probes.length;
    // As good elsewhere as here (three lines or more: repetitive code, not the noise of 8-bit hashes), after
    // another writer's change, with nothing farther to tell: in doubt (the refusal shows the lines as they
    // are now, which then count as shown from this version, so sending it again is taken as meant).
    if (reach * 2 > HELD_REACH || !wider) {
      if (best >= 3 && (best > here || changedSinceView)) return { kind: "moved" };
      // Next to nothing held around it (a search hit without context) and other lines read the same: which one
      // the id meant cannot be told once another writer has changed the file.
      const thin = probes.length - (last - first + 1) < 2;
      return changedSinceView && thin && best >= here ? { kind: "moved" } : { kind: "ok" };
    }
    shifts = scored.filter(([, n]) => n >= here - 1).map(([shift]) => shift);
  }
}

/**
 * For a line whose id no longer verifies, how many held lines around it
 * (not the line itself) read in the file `shift` lines away, for each of
 * `shifts` (where lines with its hash are now): the held context of the
 * place the line moved to fits there. Like {@link checkHeld}, the comparison
 * reaches farther out, up to {@link HELD_REACH} lines, while the best shift
 * is tied; `probes` is how many held lines the scores are out of. Reading
 * outside what the caller loaded may throw.
 */
export function heldFits(
  held: HeldIds,
  hashes: ArrayLike<number>,
  count: number,
  line: number,
  shifts: readonly number[],
): { readonly scores: Map<number, number>; readonly probes: number } {
  const around = (reach: number) => probesAround(held, line, line, reach).filter(([l]) => l !== line);
  const fit = (probes: [number, number][], shift: number) =>
    probes.filter(([l, h]) => l + shift >= 1 && l + shift <= count && hashes[l + shift - 1] === h).length;
  let probes = around(HELD_NEIGHBOURS);
  for (let reach = HELD_NEIGHBOURS; ; reach *= 2) {
    const scores = new Map(shifts.map((shift) => [shift, fit(probes, shift)]));
    const best = Math.max(0, ...scores.values());
    if ([...scores.values()].filter((n) => n === best).length <= 1 || reach * 2 > HELD_REACH) return { scores, probes: probes.length };
    const wider = around(reach * 2);
    if (wider.length === probes.length) return { scores, probes: probes.length };
    probes = wider;
  }
}

/** Most lines a removal at a target is looked for: a doubled line, a small block. */
export const REMOVED_MAX = 8;

/**
 * The number of lines another writer removed right below `last` (the
 * target's last line), when those read the same as the lines that end the
 * target: held line `last + k` has `last`'s hash, and the held lines below
 * `last` all fit the file `k` lines up, at least two of them (or one at the
 * file's end) not at their place. Then removing the target's own lines gives
 * the same file, and which copy is left cannot be told. A removal below lines
 * that read otherwise is a change next to the target, not a doubt.
 */
export function removedAtTarget(held: HeldIds, hashes: ArrayLike<number>, count: number, last: number): number | undefined {
  const own = heldAt(held, last);
  if (own === undefined) return undefined;
  for (let k = 1; k <= REMOVED_MAX; k++) {
    if (heldAt(held, last + k) !== own) continue;
    let moved = 0; // held lines below that fit k lines up but not at their place
    let reached = 0; // the file's line the last held line checked fits at
    for (let line = last + 1; line <= last + HELD_REACH && moved < 2; line++) {
      const h = heldAt(held, line);
      if (h === undefined) break;
      if (line - k < 1 || line - k > count || hashes[line - k - 1] !== h) {
        moved = -1;
        break;
      }
      if (line > count || hashes[line - 1] !== h) moved++;
      reached = line - k;
    }
    if (moved >= 2 || (moved === 1 && reached === count)) return k;
  }
  return undefined;
}

/** Whether every line of `first..last` was shown from `version` (the file there now) and still reads so. */
function shownNowAround(held: HeldIds, hashes: ArrayLike<number>, count: number, first: number, last: number, version: string): boolean {
  if (last > count) return false;
  let shown = 0;
  for (const run of held) {
    if (run[2] !== version) continue;
    const part = slice(run, first, last);
    if (!part) continue;
    for (let line = part[0]; line <= lastOf(part); line++) {
      if (hashes[line - 1] !== hashIn(part, line)) return false;
      shown++;
    }
  }
  return shown === last - first + 1;
}

/** The held lines within `reach` of `first..last` (a long range: around each end), as [line, hash]. */
function probesAround(held: HeldIds, first: number, last: number, reach: number): [number, number][] {
  const probes: [number, number][] = [];
  for (let line = Math.max(1, first - reach); line <= last + reach; line++) {
    if (line - first > reach && last - line > reach) line = last - reach;
    const h = heldAt(held, line);
    if (h !== undefined) probes.push([line, h]);
  }
  return probes;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
}

/** Whether `value` is a well-formed record (stores read it back from JSON). */
export function isHeldIds(value: unknown): value is HeldIds {
  if (!Array.isArray(value)) return false;
  let total = 0;
  let next = 1;
  for (const run of value) {
    if (!Array.isArray(run) || run.length < 2 || run.length > 3) return false;
    const [first, hashes, version] = run as unknown[];
    if (!Number.isSafeInteger(first) || (first as number) < next || typeof hashes !== "string" || !HEX.test(hashes)) return false;
    if (run.length === 3 && typeof version !== "string") return false;
    total += hashes.length / 2;
    next = (first as number) + hashes.length / 2;
  }
  return total <= MAX_HELD_LINES;
}
