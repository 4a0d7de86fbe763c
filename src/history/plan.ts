/** Which file states a revert restores (pure). */
import type { AuditEntry, FileState } from "./types.ts";

/** One file of a revert: put back `restore` if the file is still `expect`. */
export interface RevertStep {
  readonly path: string;
  /** The state before the first reverted change (null: the file did not exist). */
  readonly restore: FileState | null;
  /** The state after the last reverted change (null: it was deleted). */
  readonly expect: FileState | null;
}

/**
 * The steps that undo `entries` (any order; sorted by id here): per path,
 * the state before the earliest change and after the latest. A path whose
 * state ends as it began needs no step.
 */
export function planRevert(entries: readonly AuditEntry[]): RevertStep[] {
  const steps = new Map<string, { restore: FileState | null; expect: FileState | null }>();
  for (const entry of [...entries].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    for (const change of entry.changes) {
      const step = steps.get(change.path);
      if (step) step.expect = change.after;
      else steps.set(change.path, { restore: change.before, expect: change.after });
    }
  }
  return [...steps]
    .filter(([, s]) => s.restore?.blob !== s.expect?.blob || (s.restore === null) !== (s.expect === null))
    .map(([path, s]) => ({ path, ...s }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
