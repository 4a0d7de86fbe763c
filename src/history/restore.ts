/**
 * Put one file back to a version from its history (pure planning): the
 * step a revert applies, compare-and-swap against the version the person
 * saw as current, so a file someone changed since is a conflict, never
 * overwritten.
 */
import type { RevertStep } from "./plan.ts";
import type { AuditEntry, FileState } from "./types.ts";

/** What a restore names: the file, the version wanted, and the version it must still be (null: absent). */
export interface RestoreTarget {
  readonly path: string;
  readonly version: string;
  readonly expect: string | null;
}

/**
 * The step restoring `target.path` to `target.version`, from the entries
 * that changed the path; undefined when that version is not in its history.
 * The expected state's blob is looked up too (for a conflict's diff); a
 * version the log never saw (a change made outside the tools) keeps an
 * empty blob, which only leaves that diff out.
 */
export function restoreStep(entries: readonly AuditEntry[], target: RestoreTarget): RevertStep | undefined {
  const states = entries.flatMap((e) => e.changes.filter((c) => c.path === target.path).flatMap((c) => [c.before, c.after]));
  const restore = states.find((s): s is FileState => s !== null && s.version === target.version);
  if (!restore) return undefined;
  if (target.expect === null) return { path: target.path, restore, expect: null };
  const known = states.find((s): s is FileState => s !== null && s.version === target.expect);
  return { path: target.path, restore, expect: known ?? { version: target.expect, blob: "", size: 0 } };
}
