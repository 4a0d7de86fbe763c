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
  HISTORY_ITEM_BYTES,
  type HistoryBounds,
  historyBounds,
  type HistoryStore,
  type NewAuditEntry,
} from "./types.ts";

export { isEntryId } from "./entry-log.ts";

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
/** What a prune brings the log down to, as a share of each bound. */
const LOW_WATER = 7 / 8;
/** Due prunes skipped at most in a row while the log is within its bounds (see `held`). */
const FULL_PRUNE_EVERY = 8;
/** Deletes in flight at once during a prune (one object per entry and per blob on a bucket). */
const DELETE_CONCURRENCY = 8;
/** Blob hashes remembered as stored, per store. */
const KNOWN_BLOBS = 4096;
const BLOBS = "blobs";

/** Bytes of `text` in UTF-8, counted without encoding it (an entry's JSON, at every append). */
export function utf8Bytes(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      // A surrogate pair: 4 bytes for its 2 units.
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** Hex SHA-256 of bytes. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A history store over `storage` (already scoped to one workspace's history). */
export function createStorageHistory(storage: Storage, options: StorageHistoryOptions = {}): HistoryStore & { prune(): Promise<void> } {
  const bounds = historyBounds(options.bounds);
  const blobHash = options.sha256 ?? sha256Hex;
  const now = options.now ?? Date.now;
  const pruneEvery = Math.max(1, options.pruneEvery ?? DEFAULT_PRUNE_EVERY);
  let lastTick = 0;
  // What was appended since the last prune: calls, log bytes, and what new changes would add to the file history.
  let callsSincePrune = 0;
  let logBytesSincePrune = 0;
  let historyBytesSincePrune = 0;
  // The prune under way, if any: one at a time (appends run concurrently where recording is inline).
  let pruning: Promise<void> | undefined;
  // What the log held after the last full prune plus what this store appended since: while it is within
  // every bound, a due prune is skipped (a prune is linear in the log; at every 256 calls that was most of
  // a flood's recording time). Every FULL_PRUNE_EVERY-th is run anyway, for other writers. A prune brings
  // the log down to 7/8 of each bound (`target`), so the next is due only after an eighth more.
  const held = { entries: 0, logBytes: 0, historyBytes: 0, oldest: Number.POSITIVE_INFINITY };
  let skipped = 0;
  const target: HistoryBounds = {
    ...bounds,
    maxBytes: Math.floor(bounds.maxBytes * LOW_WATER),
    maxEntries: Math.floor(bounds.maxEntries * LOW_WATER),
    maxLogBytes: Math.floor(bounds.maxLogBytes * LOW_WATER),
  };
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

  /** What planning needs of an entry. A call that changed nothing needs no principal (see ./prune.ts): only its time and size. */
  const summaryOf = (entry: AuditEntry, size: number): PruneEntry =>
    entry.changes.length
      ? { id: entry.id, time: entry.time, principal: entry.principal, changes: entry.changes, size }
      : { id: entry.id, time: entry.time, principal: "", changes: NO_CHANGES, size };

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
        const json = isEntryId(id) ? await log.read(id) : undefined;
        if (json === undefined) continue;
        summary = summaryOf(JSON.parse(json) as AuditEntry, utf8Bytes(json));
        summaries.set(id, summary);
      }
      out.push(summary);
    }
    return out;
  }

  /** Add what one entry holds to `held`. */
  function hold(entry: PruneEntry): void {
    held.entries++;
    held.oldest = Math.min(held.oldest, Date.parse(entry.time));
    if (entry.changes.length === 0) {
      held.logBytes += entry.size ?? 0;
      return;
    }
    held.historyBytes += (entry.size ?? 0) + HISTORY_ITEM_BYTES;
    for (const change of entry.changes) held.historyBytes += change.after ? change.after.size + HISTORY_ITEM_BYTES : 0;
  }

  /** Whether the log is surely within every bound (then a due prune can wait). */
  function wellWithin(): boolean {
    return (
      held.entries <= bounds.maxEntries && held.logBytes <= bounds.maxLogBytes && held.historyBytes <= bounds.maxBytes && now() - held.oldest <= bounds.maxAgeMs
    );
  }

  /** Apply the bounds: plan over the whole log, then delete what the plan drops. */
  async function runPrune(): Promise<void> {
    const entries = await pruneEntries();
    const plan = planPrune(entries, target, now());
    await log.remove(plan.dropEntries);
    for (const id of plan.dropEntries) summaries.delete(id);
    Object.assign(held, { entries: 0, logBytes: 0, historyBytes: 0, oldest: Number.POSITIVE_INFINITY });
    for (const entry of summaries.values()) hold(entry);
    // Only blobs that entries name: a blob stored for a call still running is named by no entry yet.
    const blobs = [...plan.dropBlobs];
    for (const blob of blobs) stored.delete(blob);
    for (let i = 0; i < blobs.length; i += DELETE_CONCURRENCY) {
      await Promise.all(blobs.slice(i, i + DELETE_CONCURRENCY).map((blob) => storage.delete(`${BLOBS}/${blob}`).catch(() => undefined)));
    }
  }

  /** The prune under way, or a new one: never two at once. */
  function pruneOnce(): Promise<void> {
    if (!pruning) {
      callsSincePrune = 0;
      logBytesSincePrune = 0;
      historyBytesSincePrune = 0;
      pruning = runPrune().finally(() => {
        pruning = undefined;
      });
    }
    return pruning;
  }

  const store = {
    ...(log.cork ? { cork: () => log.cork!() } : {}),

    async append(entry: NewAuditEntry): Promise<AuditEntry> {
      const full: AuditEntry = { id: nextId(), ...entry };
      const json = JSON.stringify(full);
      await log.add(full.id, json);
      // Every call counts, views and failures too: a log that grew by reads alone was never pruned.
      const size = utf8Bytes(json);
      // Planning knows this entry already: a prune reads back only what other processes wrote (a flood of
      // views read back at every prune was tens of MB of garbage per prune).
      const summary = summaryOf(full, size);
      summaries.set(full.id, summary);
      hold(summary);
      callsSincePrune++;
      logBytesSincePrune += size;
      for (const change of full.changes) historyBytesSincePrune += change.after ? change.after.size + HISTORY_ITEM_BYTES : 0;
      if (full.changes.length > 0) historyBytesSincePrune += size + HISTORY_ITEM_BYTES;
      // A prune lists the log: run it every so many calls, or once what was added could fill an eighth of a bound.
      if (
        callsSincePrune >= Math.min(pruneEvery, Math.max(1, bounds.maxEntries / 8)) ||
        logBytesSincePrune >= bounds.maxLogBytes / 8 ||
        historyBytesSincePrune >= bounds.maxBytes / 8
      ) {
        if (skipped < FULL_PRUNE_EVERY && wellWithin()) {
          skipped++;
          callsSincePrune = 0;
          logBytesSincePrune = 0;
          historyBytesSincePrune = 0;
        } else {
          skipped = 0;
          await pruneOnce();
        }
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

    /** Apply the bounds now (after the prune under way, if any): see ./prune.ts. */
    async prune(): Promise<void> {
      while (pruning) await pruning.catch(() => undefined);
      await pruneOnce();
    },
  };
  return store;
}
