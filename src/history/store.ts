/**
 * A workspace's audit log and blobs kept in a {@link Storage} that no tool
 * can reach: a local state directory, or a reserved prefix of the bucket
 * that holds the workspace (see `RESERVED_SEGMENT`). Entries go to an
 * {@link EntryLog} (by default one object per entry, `audit/<id>.json`),
 * blobs one object each (`blobs/<sha256>`), so several server instances
 * append without contention.
 */
import type { Storage } from "../storage/types.ts";
import { dropBlobs, getBlob, newBlobStore, putBlob } from "./blobs.ts";
import { type EntryLog, objectEntryLog } from "./entry-log.ts";
import { countAppended, newPruneSchedule, pruneNow } from "./prune-schedule.ts";
import { queryLog, readEntry } from "./query-log.ts";
import { type AuditEntry, type AuditPage, type AuditQuery, type HistoryBounds, historyBounds, type HistoryStore, type NewAuditEntry } from "./types.ts";
import { randomTail } from "./random-tail.ts";

export { isEntryId } from "./entry-log.ts";
export { utf8Bytes } from "./prune-schedule.ts";

/** Options of {@link createStorageHistory}. */
export interface StorageHistoryOptions {
  /** The bounds (see ./prune.ts); those not given are the defaults (`DEFAULT_HISTORY_BOUNDS`). */
  readonly bounds?: Partial<HistoryBounds>;
  /**
   * Prune after this many recorded calls, views and failures included (default 256; 1 prunes at every
   * call), or sooner once new entries reach an eighth of the log's bounds or new versions an eighth of the
   * file history's.
   */
  readonly pruneEvery?: number;
  readonly now?: () => number;
  /** Where entries go (default: one object per entry in the storage). */
  readonly entries?: EntryLog;
  /**
   * Hex SHA-256 that names a blob (default {@link sha256Hex}, Web Crypto). A runtime with a blocking
   * hash passes it: Web Crypto's digest is a round trip through a worker thread for every recorded file.
   */
  readonly sha256?: (bytes: Uint8Array) => string | Promise<string>;
}

/**
 * Default of {@link StorageHistoryOptions.pruneEvery}. Small enough that a prune on a bucket deletes a
 * few hundred objects, not thousands (a Worker's request has a budget of subrequests), and a log's
 * overshoot between prunes stays small; a prune lists the log and reads only the entries new to it.
 */
const DEFAULT_PRUNE_EVERY = 256;

/** Hex SHA-256 of bytes. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A history store over `storage` (already scoped to one workspace's history). */
export function createStorageHistory(storage: Storage, options: StorageHistoryOptions = {}): HistoryStore & { prune(): Promise<void> } {
  const now = options.now ?? Date.now;
  let lastTick = 0;
  // Drawn once: the time part is strictly increasing in this store, so the tail only has to tell stores apart.
  const tail = randomTail();
  /** A sortable id: the time (made strictly increasing in this store) and this store's random tail for other instances. */
  function nextId(): string {
    lastTick = Math.max(now(), lastTick + 1);
    return `${String(lastTick).padStart(15, "0")}-${tail}`;
  }

  const log = options.entries ?? objectEntryLog(storage);
  const blobs = newBlobStore(storage, options.sha256 ?? sha256Hex);
  const schedule = newPruneSchedule({
    log,
    bounds: historyBounds(options.bounds),
    pruneEvery: Math.max(1, options.pruneEvery ?? DEFAULT_PRUNE_EVERY),
    now,
    dropBlobs: (hashes) => dropBlobs(blobs, hashes),
  });

  const store = {
    ...(log.cork ? { cork: () => log.cork!() } : {}),

    async append(entry: NewAuditEntry): Promise<AuditEntry> {
      const full: AuditEntry = { id: nextId(), ...entry };
      const json = JSON.stringify(full);
      await log.add(full.id, json);
      const pruning = countAppended(schedule, full, json);
      if (pruning) await pruning;
      return full;
    },

    query: (query: AuditQuery): Promise<AuditPage> => queryLog(log, query),

    // An id from a request names a file of the store: only the shape nextId makes may reach it (no "../").
    get: (id: string) => readEntry(log, id),

    putBlob: (bytes: Uint8Array, known?: string): Promise<string> => putBlob(blobs, bytes, known),

    getBlob: (hash: string): Promise<Uint8Array | undefined> => getBlob(blobs, hash),

    /** Apply the bounds now (after the prune under way, if any): see ./prune.ts. */
    prune: (): Promise<void> => pruneNow(schedule),
  };
  return store;
}
