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

import { keptSegments, type LineChange, mapSpan, shownByChanges } from "./own-edits.ts";
import type { LineSpan } from "./types.ts";

/** A run of held lines: its first line number and their hashes, two hex digits each. */
export type HeldRun = readonly [first: number, hashes: string];
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
const lastOf = (run: HeldRun) => run[0] + run[1].length / 2 - 1;

/** Lines `from..to` (clipped) of `run`, as a run; undefined when none. */
function slice(run: HeldRun, from: number, to: number): HeldRun | undefined {
  const lo = Math.max(from, run[0]);
  const hi = Math.min(to, lastOf(run));
  return lo > hi ? undefined : [lo, run[1].slice(2 * (lo - run[0]), 2 * (hi - run[0] + 1))];
}

/** Runs sorted, adjacent ones joined. */
function joined(runs: readonly HeldRun[]): HeldRun[] {
  const out: [number, string][] = [];
  for (const [first, hashes] of [...runs].sort((a, b) => a[0] - b[0])) {
    const last = out[out.length - 1];
    if (last && last[0] + last[1].length / 2 === first) last[1] += hashes;
    else out.push([first, hashes]);
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

/** `held` after the session was shown lines `first..` with `hashes` (line ids it now holds). */
export function hold(held: HeldIds | undefined, first: number, hashes: ArrayLike<number>): HeldIds {
  if (hashes.length === 0) return held ?? [];
  const keep = Math.min(hashes.length, MAX_HELD_LINES);
  const run: HeldRun = [first, hex(hashes, 0, keep)];
  return bounded(joined([...without(held ?? [], first, first + keep - 1), run]), first);
}

/** `held` after lines `spans` of a document with `hashes` (0-based by line) were shown. */
export function holdSpans(held: HeldIds | undefined, spans: readonly LineSpan[], hashes: ArrayLike<number>): HeldIds | undefined {
  let out = held;
  for (const [a, b] of spans) {
    const to = Math.min(b, hashes.length);
    if (a >= 1 && a <= to)
      out = hold(
        out,
        a,
        Array.from({ length: to - a + 1 }, (_, i) => hashes[a - 1 + i]),
      );
  }
  return out;
}

/**
 * `held` after the session's own edit with `changes` (the result's changed
 * ranges): unchanged lines move with the edit; the lines its result showed
 * (changes and their diff context) are let go, since the model was shown
 * them as they are now, which may already differ from what it held.
 */
export function heldAfterEdit(held: HeldIds | undefined, changes: readonly LineChange[] | undefined): HeldIds | undefined {
  if (held === undefined || held.length === 0) return held;
  if (changes === undefined) return undefined;
  const segments = keptSegments(changes);
  let out: HeldRun[] = [];
  for (const run of held) {
    for (const [lo, hi, now] of mapSpan(run[0], lastOf(run), segments)) out.push([now, slice(run, lo, hi)![1]]);
  }
  for (const [a, b] of shownByChanges(changes)) out = without(out, a, b);
  return joined(out);
}

/** The hash held for `line`, if any. */
export function heldAt(held: HeldIds, line: number): number | undefined {
  let lo = 0;
  let hi = held.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const run = held[mid];
    if (line < run[0]) hi = mid - 1;
    else if (line > lastOf(run)) lo = mid + 1;
    else return Number.parseInt(run[1].slice(2 * (line - run[0]), 2 * (line - run[0]) + 2), 16);
  }
  return undefined;
}

/** Outcome of comparing held ids with the file around one operation's lines. */
export type HeldCheck =
  | { readonly kind: "ok" }
  /** Lines inside the operation's range are not what the session was shown there. */
  | { readonly kind: "changed"; readonly lines: readonly number[] }
  /**
   * The lines around the target fit the file better elsewhere: lines were
   * added or removed above it since the session was shown them. `shift`,
   * when one offset fits best, is where they are now (target + shift).
   */
  | { readonly kind: "moved"; readonly shift?: number };

/**
 * Compare the held ids around lines `first..last` (an insert's anchor:
 * `first == last`) with the file's `hashes` (0-based by line, `count`
 * lines; reading outside what the caller loaded may throw, and the caller
 * then decides on the whole file). Lines inside must be as held; a change
 * next to the target is another writer's edit in place, accepted, unless the
 * held neighbours fit at another offset clearly better (by two lines, and at
 * least three): then the target was shifted and an equal line took its place.
 */
export function checkHeld(held: HeldIds, hashes: ArrayLike<number>, count: number, first: number, last: number): HeldCheck {
  const changed: number[] = [];
  for (const run of held) {
    const part = slice(run, first, Math.min(last, count));
    if (!part) continue;
    for (let line = part[0]; line <= lastOf(part); line++) {
      if (hashes[line - 1] !== Number.parseInt(part[1].slice(2 * (line - part[0]), 2 * (line - part[0]) + 2), 16)) changed.push(line);
    }
  }
  if (changed.length > 0) return { kind: "changed", lines: changed };
  const probes: [number, number][] = [];
  const near = new Set<number>();
  for (let line = first - HELD_NEIGHBOURS; line <= last + HELD_NEIGHBOURS; line++) {
    if (line - first > HELD_NEIGHBOURS && last - line > HELD_NEIGHBOURS) line = last - HELD_NEIGHBOURS;
    if (line < 1 || near.has(line)) continue;
    near.add(line);
    const h = heldAt(held, line);
    if (h !== undefined) probes.push([line, h]);
  }
  const fits = (shift: number) => {
    let n = 0;
    for (const [line, h] of probes) if (line + shift >= 1 && line + shift <= count && hashes[line + shift - 1] === h) n++;
    return n;
  };
  const here = fits(0);
  if (here === probes.length) return { kind: "ok" };
  let best = 0;
  let at: number[] = [];
  const lowest = probes.reduce((m, [l]) => Math.min(m, l), Number.POSITIVE_INFINITY);
  const highest = probes.reduce((m, [l]) => Math.max(m, l), 0);
  for (let shift = 1 - lowest; shift <= count - highest; shift++) {
    if (shift === 0) continue;
    const n = fits(shift);
    if (n > best) [best, at] = [n, [shift]];
    else if (n === best) at.push(shift);
  }
  if (best >= here + 2 && best >= 3) return at.length === 1 ? { kind: "moved", shift: at[0] } : { kind: "moved" };
  return { kind: "ok" };
}

/** Whether `value` is a well-formed record (stores read it back from JSON). */
export function isHeldIds(value: unknown): value is HeldIds {
  if (!Array.isArray(value)) return false;
  let total = 0;
  let next = 1;
  for (const run of value) {
    if (!Array.isArray(run) || run.length !== 2) return false;
    const [first, hashes] = run as unknown[];
    if (!Number.isSafeInteger(first) || (first as number) < next || typeof hashes !== "string" || !HEX.test(hashes)) return false;
    total += hashes.length / 2;
    next = (first as number) + hashes.length / 2;
  }
  return total <= MAX_HELD_LINES;
}
