/**
 * A workspace's audit log and blobs kept in a {@link Storage} that no tool
 * can reach: a local state directory, or a reserved prefix of the bucket
 * that holds the workspace (see `RESERVED_SEGMENT`). Entries go to an
 * {@link EntryLog} (by default one object per entry, `audit/<id>.json`),
 * blobs one object each (`blobs/<sha256>`), so several server instances
 * append without contention.
 */
import { isCodedError } from "../errors.ts";
import type { Storage } from "../storage/types.ts";
import { Cond } from "../storage/types.ts";
import { type EntryLog, isEntryId, objectEntryLog } from "./entry-log.ts";
import { planPrune, type PruneEntry } from "./prune.ts";
import { matchesQuery, pageLimit } from "./query.ts";
import {
  type AuditEntry,
  type AuditPage,
  type AuditQuery,
  DEFAULT_HISTORY_BOUNDS,
  type HistoryBounds,
  type HistoryStore,
  type NewAuditEntry,
} from "./types.ts";

export { isEntryId } from "./entry-log.ts";

/** Options of {@link createStorageHistory}. */
export interface StorageHistoryOptions {
  readonly bounds?: HistoryBounds;
  /** Prune after this many recorded changes (default 1024; 1 prunes at every change), or sooner once new versions add up to an eighth of the byte bound. */
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

/** Default of {@link StorageHistoryOptions.pruneEvery}. */
const DEFAULT_PRUNE_EVERY = 1024;
/** Blob hashes remembered as stored, per store. */
const KNOWN_BLOBS = 4096;
const BLOBS = "blobs";

/** Hex SHA-256 of bytes. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A history store over `storage` (already scoped to one workspace's history). */
export function createStorageHistory(storage: Storage, options: StorageHistoryOptions = {}): HistoryStore & { prune(): Promise<void> } {
  const bounds = options.bounds ?? DEFAULT_HISTORY_BOUNDS;
  const blobHash = options.sha256 ?? sha256Hex;
  const now = options.now ?? Date.now;
  const pruneEvery = Math.max(1, options.pruneEvery ?? DEFAULT_PRUNE_EVERY);
  let lastTick = 0;
  let changesSincePrune = 0;
  let bytesSincePrune = 0;
  // Blobs known to be stored (most recent last), so a kept version costs no storage call the next time.
  const stored = new Set<string>();
  const remember = (hash: string) => {
    stored.add(hash);
    if (stored.size > KNOWN_BLOBS) stored.delete(stored.values().next().value!);
  };
  // Hashes by the name a caller knows the bytes by: a change's "before" is nearly always the "after" of the change before it.
  const named = new Map<string, string>();
  const name = (known: string, hash: string) => {
    named.set(known, hash);
    if (named.size > KNOWN_BLOBS) named.delete(named.keys().next().value!);
  };

  // Drawn once: the time part is strictly increasing in this store, so the tail only has to tell stores apart.
  const tail = Array.from(crypto.getRandomValues(new Uint8Array(4)), (b) => b.toString(16).padStart(2, "0")).join("");
  /** A sortable id: the time (made strictly increasing in this store) and this store's random tail for other instances. */
  function nextId(): string {
    lastTick = Math.max(now(), lastTick + 1);
    return `${String(lastTick).padStart(15, "0")}-${tail}`;
  }

  const log = options.entries ?? objectEntryLog(storage);

  async function readEntry(id: string): Promise<AuditEntry | undefined> {
    // A caller's id must never become a path or an offset: only the shape nextId makes reaches the log.
    if (!isEntryId(id)) return undefined;
    const json = await log.read(id);
    return json === undefined ? undefined : (JSON.parse(json) as AuditEntry);
  }

  const entryIds = () => log.ids();

  // Entries never change once written, so a prune reads each one once and keeps what planning needs:
  // reading the whole log at every prune made each prune cost the log's size (every call adds an entry).
  const summaries = new Map<string, PruneEntry>();
  const NO_CHANGES: AuditEntry["changes"] = [];

  /** Every entry of the log, oldest first, as planning needs it: one listing, and a read of each entry not seen before. */
  async function pruneEntries(): Promise<PruneEntry[]> {
    const ids = await entryIds();
    // Entries another instance's prune removed leave the cache too.
    const listed = new Set(ids);
    for (const id of summaries.keys()) if (!listed.has(id)) summaries.delete(id);
    const out: PruneEntry[] = [];
    for (const id of ids) {
      let summary = summaries.get(id);
      if (!summary) {
        const entry = await readEntry(id);
        if (!entry) continue;
        summary = { id: entry.id, time: entry.time, changes: entry.changes.length ? entry.changes : NO_CHANGES };
        summaries.set(id, summary);
      }
      out.push(summary);
    }
    return out;
  }

  const store = {
    ...(log.cork ? { cork: () => log.cork!() } : {}),

    async append(entry: NewAuditEntry): Promise<AuditEntry> {
      const full: AuditEntry = { id: nextId(), ...entry };
      await log.add(full.id, JSON.stringify(full));
      if (full.changes.length === 0) return full;
      bytesSincePrune += full.changes.reduce((n, c) => n + (c.after?.size ?? 0), 0);
      // A prune reads the whole log: run it after many changes, or once new versions could fill an eighth of the budget.
      if (++changesSincePrune >= pruneEvery || bytesSincePrune >= bounds.maxBytes / 8) {
        changesSincePrune = 0;
        bytesSincePrune = 0;
        await store.prune();
      }
      return full;
    },

    async query(query: AuditQuery): Promise<AuditPage> {
      const limit = pageLimit(query.limit);
      const entries: AuditEntry[] = [];
      let cursor: string | undefined;
      if (query.newest) {
        // Read from the end: a feed of the latest calls costs its own size, not the log's.
        const ids = (await entryIds()).filter((id) => query.cursor === undefined || id > query.cursor);
        for (let i = ids.length - 1; i >= 0 && entries.length < limit; i--) {
          const entry = await readEntry(ids[i]!);
          if (entry && matchesQuery(entry, query)) entries.push(entry);
        }
        return { entries: entries.reverse() };
      }
      for (const id of await entryIds()) {
        if (query.cursor !== undefined && id <= query.cursor) continue;
        const entry = await readEntry(id);
        if (!entry || !matchesQuery(entry, query)) continue;
        if (entries.length === limit) {
          cursor = entries[entries.length - 1]!.id;
          break;
        }
        entries.push(entry);
      }
      return cursor === undefined ? { entries } : { entries, cursor };
    },

    // An id from a request names a file of the store: only the shape nextId makes may reach it (no "../").
    get: (id: string) => readEntry(id),

    async putBlob(bytes: Uint8Array, known?: string): Promise<string> {
      const earlier = known === undefined ? undefined : named.get(known);
      if (earlier !== undefined && stored.has(earlier)) return earlier;
      const hash = await blobHash(bytes);
      if (known !== undefined) name(known, hash);
      // The version a change replaces is nearly always one this store kept as the change before's result.
      if (stored.has(hash)) return hash;
      try {
        await storage.write(`${BLOBS}/${hash}`, bytes, Cond.ifAbsent);
      } catch (error) {
        // Another call stored the same bytes first: content-addressed, so that is the same blob.
        if (!(isCodedError(error) && error.code === "FS_ALREADY_EXISTS")) throw error;
      }
      remember(hash);
      return hash;
    },

    async getBlob(hash: string): Promise<Uint8Array | undefined> {
      if (!/^[0-9a-f]{64}$/.test(hash)) return undefined;
      try {
        return (await storage.read(`${BLOBS}/${hash}`)).bytes;
      } catch (error) {
        if (isCodedError(error) && error.code === "FS_NOT_FOUND") return undefined;
        throw error;
      }
    },

    /** Apply the bounds now: drop what is too old, then the oldest versions over the byte budget. */
    async prune(): Promise<void> {
      const plan = planPrune(await pruneEntries(), bounds, now());
      await log.remove(plan.dropEntries);
      for (const id of plan.dropEntries) summaries.delete(id);
      // Only blobs that dropped entries referenced: a blob stored for a call still running is referenced by no entry yet.
      for (const blob of plan.dropBlobs) {
        stored.delete(blob);
        await storage.delete(`${BLOBS}/${blob}`).catch(() => undefined);
      }
    },
  };
  return store;
}
