/**
 * What a workspace's history drops (pure). Entries older than the age bound
 * go, with their versions. Of the rest, versions are kept newest first until
 * their unique bytes reach the byte bound; every older version is dropped
 * (its entry stays in the log, marked by a blob that is no longer there).
 */
import type { AuditEntry, HistoryBounds } from "./types.ts";

/** What planning reads of an entry. */
export type PruneEntry = Pick<AuditEntry, "id" | "time" | "changes">;

export interface PrunePlan {
  /** Entry ids to delete (older than the age bound). */
  readonly dropEntries: string[];
  /** Blobs no kept version needs. */
  readonly dropBlobs: Set<string>;
  /** Blobs kept. */
  readonly keepBlobs: Set<string>;
}

/** Plan a prune of `entries` (oldest first) at time `nowMs`. */
export function planPrune(entries: readonly PruneEntry[], bounds: HistoryBounds, nowMs: number): PrunePlan {
  const cutoff = nowMs - bounds.maxAgeMs;
  const dropEntries: string[] = [];
  const live: PruneEntry[] = [];
  for (const entry of entries) {
    if (Date.parse(entry.time) < cutoff) dropEntries.push(entry.id);
    else live.push(entry);
  }

  const keepBlobs = new Set<string>();
  const dropBlobs = new Set<string>();
  let bytes = 0;
  let full = false;
  for (let i = live.length - 1; i >= 0; i--) {
    for (const change of live[i]!.changes) {
      for (const state of [change.after, change.before]) {
        if (!state || keepBlobs.has(state.blob) || dropBlobs.has(state.blob)) continue;
        if (!full && bytes + state.size <= bounds.maxBytes) {
          keepBlobs.add(state.blob);
          bytes += state.size;
        } else {
          full = true;
          dropBlobs.add(state.blob);
        }
      }
    }
  }
  for (const entry of dropEntries.length ? entries : []) {
    if (Date.parse(entry.time) >= cutoff) continue;
    for (const change of entry.changes) {
      for (const state of [change.before, change.after]) if (state && !keepBlobs.has(state.blob)) dropBlobs.add(state.blob);
    }
  }
  return { dropEntries, dropBlobs, keepBlobs };
}
