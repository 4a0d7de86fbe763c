/**
 * Where the lines of the version a session viewed are now, after the
 * session's own edits. Each edit's result says how unchanged lines moved,
 * but models go on naming lines by the ids they viewed: an id from before
 * the edit is then stale, or worse, it still verifies because another line
 * with the same 8-bit hash (a lone `}`, a blank line) now sits at its
 * number. Knowing the moves lets `batch_edit` correct the first exactly and
 * refuse the second. Pure: the tools record it, stores keep it as JSON.
 */

import { mergeSpans } from "./spans.ts";
import { type LineSpan, MAX_OWN_VERSIONS, type OwnEdits } from "./types.ts";

/** One changed region of an edit, 1-based, as results report them (`ChangedRange`). */
export interface LineChange {
  readonly oldStart: number;
  readonly oldCount: number;
  readonly newStart: number;
  readonly newCount: number;
}

/** Most runs of kept lines remembered; past it the moves are no longer followed ({@link UNTRACKED}). */
export const MAX_KEPT_RUNS = 64;
/** Most shown spans remembered; past it the moves are no longer followed rather than guessed. */
export const MAX_SHOWN_SPANS = 64;
/** Open end of a run or span (the file's length is not needed to map a line). */
export const OPEN_END = Number.MAX_SAFE_INTEGER;
/** Unchanged lines a result's diff shows around each change (`renderDiff`'s context). */
export const DIFF_CONTEXT = 2;

export type Segment = readonly [first: number, last: number, now: number];

/** The unchanged stretches of the edited version and where they went. */
export function keptSegments(changes: readonly LineChange[]): Segment[] {
  const out: Segment[] = [];
  let next = 1;
  let delta = 0;
  for (const c of [...changes].sort((a, b) => a.oldStart - b.oldStart)) {
    if (c.oldStart > next) out.push([next, c.oldStart - 1, next + delta]);
    next = Math.max(next, c.oldStart + c.oldCount);
    delta += c.newCount - c.oldCount;
  }
  out.push([next, OPEN_END, next + delta]);
  return out;
}

/** `[first, last]` of the edited version mapped through `segments`: the pieces that survive, in new numbers. */
export function mapSpan(first: number, last: number, segments: readonly Segment[]): [number, number, number][] {
  const out: [number, number, number][] = [];
  for (const [s, e, t] of segments) {
    const lo = Math.max(first, s);
    const hi = Math.min(last, e);
    if (lo <= hi) out.push([lo, hi, t + (lo - s)]);
  }
  return out;
}

function mergeRuns(runs: readonly (readonly [number, number, number])[]): [number, number, number][] {
  const out: [number, number, number][] = [];
  for (const [a, b, c] of runs) {
    const last = out[out.length - 1];
    if (last && last[1] + 1 === a && last[2] + (last[1] - last[0]) + 1 === c) last[1] = b;
    else out.push([a, b, c]);
  }
  return out;
}

/**
 * The record of moves no longer followed (too scattered, or an edit whose
 * changes were not known): no viewed line is known to be anywhere, so
 * nothing is corrected, and an id of a line not shown since is doubted
 * (it may name any line) until the next whole view. Never a fresh start:
 * that would read ids of the version viewed as ids of this one.
 */
export const UNTRACKED: OwnEdits = { kept: [], shown: [] };

/**
 * The record after one more edit made on the version the session knew:
 * `prior` (undefined: the session had just viewed it) composed with the
 * edit's `changes` (undefined: not known); `shown` are the new version's
 * lines the result showed with their ids. Undefined when no viewed line
 * moved (ids cannot mislead); {@link UNTRACKED} past the record's bounds.
 */
export function afterOwnEdit(prior: OwnEdits | undefined, changes: readonly LineChange[] | undefined, shown: readonly LineSpan[]): OwnEdits | undefined {
  if (changes === undefined || (prior !== undefined && prior.kept.length === 0)) return untracked(prior, shown);
  const segments = keptSegments(changes);
  const before = prior?.kept ?? [[1, OPEN_END, 1] as const];
  const kept = mergeRuns(before.flatMap(([a, b, c]) => mapSpan(c, c + (b - a), segments).map(([lo, hi, t]) => [a + (lo - c), a + (hi - c), t] as const)));
  if (kept.every(([a, , c]) => a === c)) return undefined;
  const carried = (prior?.shown ?? []).flatMap(([a, b]) => mapSpan(a, b, segments).map(([lo, hi, t]) => [t, t + (hi - lo)] as LineSpan));
  const spans = mergeSpans([...carried, ...shown]);
  if (kept.length > MAX_KEPT_RUNS || spans.length > MAX_SHOWN_SPANS) return untracked(prior, shown);
  return { kept, shown: spans, ...(prior?.loose ? { loose: true as const } : {}), ...(prior?.versions ? { versions: prior.versions } : {}) };
}

/** `own` knowing that `versions` (the version viewed, then the one an own edit made) are of its lineage. */
export function withVersions(own: OwnEdits, ...versions: readonly (string | undefined)[]): OwnEdits {
  if (own.kept.length === 0) return own;
  const known = [...(own.versions ?? [])];
  for (const v of versions) if (v !== undefined && !known.includes(v)) known.push(v);
  return { ...own, versions: known.slice(-MAX_OWN_VERSIONS) };
}

/** The record past its bounds: no move followed, only the lines the last result showed (`shown`) current. */
function untracked(prior: OwnEdits | undefined, shown: readonly LineSpan[]): OwnEdits {
  const spans = mergeSpans(shown);
  return { kept: [], shown: spans.length > MAX_SHOWN_SPANS ? [] : spans, ...(prior?.loose ? { loose: true as const } : {}) };
}

/**
 * The record once another writer's change is known (an edit applied over it,
 * or a view of the version it made): moves are kept as a doubt only, and
 * only `shown` (lines of that version just shown) count as current.
 */
export function loosened(own: OwnEdits, shown: readonly LineSpan[]): OwnEdits {
  return { kept: own.kept, shown: mergeSpans(shown), loose: true, ...(own.versions ? { versions: own.versions } : {}) };
}

/**
 * The lines a result's diff shows for `changes`, with their context, in new
 * numbers. A change the result listed only in part (`complete: false`: the
 * diff was cut) counts only up to its last listed line: the rest was never
 * shown, and an old id there is not one the session read in this version.
 */
export function shownByChanges(changes: readonly (LineChange & { readonly ids?: readonly string[]; readonly complete?: boolean })[]): LineSpan[] {
  return changes.map((c) => {
    const listed = c.complete === false ? Math.min(c.ids?.length ?? 0, c.newCount) : c.newCount;
    const after = listed === c.newCount ? DIFF_CONTEXT : 0;
    return [Math.max(1, c.newStart - DIFF_CONTEXT), c.newStart + listed - 1 + after] as LineSpan;
  });
}

/** `own` with lines `spans` of the current version also shown (a ranged view, a refusal's excerpt). */
export function withShown(own: OwnEdits, spans: readonly LineSpan[]): OwnEdits {
  const shown = mergeSpans([...own.shown, ...spans]);
  // Past the bound the first spans go: those lines are in doubt again, never taken as shown.
  return { ...own, shown: shown.length > MAX_SHOWN_SPANS ? shown.slice(-MAX_SHOWN_SPANS) : shown };
}

/** Where line `line` of the viewed version is now; undefined when the session's edits replaced it. */
export function viewedLineNow(own: OwnEdits, line: number): number | undefined {
  for (const [a, b, c] of own.kept) if (line >= a && line <= b) return c + (line - a);
  return undefined;
}

/** Whether the session was shown line `line` of the current version with its current id. */
export function shownNow(own: OwnEdits, line: number): boolean {
  return own.shown.some(([a, b]) => line >= a && line <= b);
}

/** Whether `value` is a well-formed record (stores read it back from JSON). */
export function isOwnEdits(value: unknown): value is OwnEdits {
  if (typeof value !== "object" || value === null) return false;
  const { kept, shown, loose, versions } = value as { kept?: unknown; shown?: unknown; loose?: unknown; versions?: unknown };
  const ints = (x: unknown, n: number) => Array.isArray(x) && x.length === n && x.every((i) => Number.isSafeInteger(i) && i >= 1);
  return (
    (loose === undefined || loose === true) &&
    (versions === undefined || (Array.isArray(versions) && versions.length <= MAX_OWN_VERSIONS && versions.every((v) => typeof v === "string"))) &&
    Array.isArray(kept) &&
    Array.isArray(shown) &&
    kept.length <= MAX_KEPT_RUNS &&
    shown.length <= MAX_SHOWN_SPANS &&
    kept.every((r) => ints(r, 3)) &&
    shown.every((s) => ints(s, 2))
  );
}
