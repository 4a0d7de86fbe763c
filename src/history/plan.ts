/** Which file states a revert restores (pure). */
import type { AuditEntry, FileState } from "./types.ts";

/**
 * Another writer's change between two of the reverted changes of one path:
 * `left` is what the earlier change left, `found` what the next one found
 * (the other writer's work). Only the latest such gap is kept.
 */
export interface Interleaved {
  readonly left: FileState | null;
  readonly found: FileState | null;
  /** The reverted change that left `left`. */
  readonly previous: string;
  /** The reverted changes after the gap: the last unbroken run, which started from `found`. */
  readonly run: readonly string[];
  /** How many such gaps the path's changes have (1 or more). */
  readonly gaps: number;
}

/** One file of a revert: put back `restore` if the file is still `expect`. */
export interface RevertStep {
  readonly path: string;
  /** The state before the first reverted change (null: the file did not exist). */
  readonly restore: FileState | null;
  /** The state after the last reverted change (null: it was deleted). */
  readonly expect: FileState | null;
  /**
   * Set when someone else changed the file between the reverted changes:
   * putting back `restore` would undo their work too, so such a step is
   * never applied, only reported.
   */
  readonly interleaved?: Interleaved;
}

/** The same file state: both absent, or the same bytes (a version may change while the bytes do not). */
function sameState(a: FileState | null, b: FileState | null): boolean {
  return a === null || b === null ? a === b : a.blob === b.blob;
}

interface Chain {
  restore: FileState | null;
  expect: FileState | null;
  lastId: string;
  interleaved?: { left: FileState | null; found: FileState | null; previous: string; run: string[]; gaps: number };
}

/**
 * The steps that undo `entries` (any order; sorted by id here): per path,
 * the state before the earliest change and after the latest. A path whose
 * state ends as it began needs no step. Each change's `before` must be the
 * previous change's `after`; where it is not, another writer (another
 * principal, a shell command) changed the file in between, and the step
 * carries {@link Interleaved} instead of being applied blindly.
 */
export function planRevert(entries: readonly AuditEntry[]): RevertStep[] {
  const chains = new Map<string, Chain>();
  for (const entry of [...entries].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    for (const change of entry.changes) {
      const chain = chains.get(change.path);
      if (!chain) {
        chains.set(change.path, { restore: change.before, expect: change.after, lastId: entry.id });
        continue;
      }
      if (!sameState(chain.expect, change.before)) {
        const gaps = (chain.interleaved?.gaps ?? 0) + 1;
        chain.interleaved = { left: chain.expect, found: change.before, previous: chain.lastId, run: [], gaps };
      }
      chain.interleaved?.run.push(entry.id);
      chain.expect = change.after;
      chain.lastId = entry.id;
    }
  }
  return [...chains]
    .filter(([, s]) => s.interleaved !== undefined || !sameState(s.restore, s.expect))
    .map(([path, s]) => ({ path, restore: s.restore, expect: s.expect, ...(s.interleaved ? { interleaved: s.interleaved } : {}) }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * The order to apply `steps` in: deletions and shrinks first, so that on a
 * workspace near its quota the bytes they free are there before a step that
 * grows a file asks for them. Ties keep path order.
 */
export function applyOrder(steps: readonly RevertStep[]): RevertStep[] {
  const growth = (s: RevertStep) => (s.restore?.size ?? 0) - (s.expect?.size ?? 0);
  return [...steps].sort((a, b) => growth(a) - growth(b));
}
