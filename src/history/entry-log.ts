/**
 * Where a history store keeps its audit entries: the JSON of each, by id.
 * On a bucket, one object per entry (`audit/<id>.json`): several instances
 * append without contention, and listing order is time order. A local state
 * directory appends them to segment files instead (./segment-log.ts): a new
 * file per call cost more than the call itself there.
 */
import { isCodedError } from "../errors.ts";
import type { Storage } from "../storage/types.ts";
import { Cond } from "../storage/types.ts";

/** What {@link nextEntryId} makes: 15 digits of time, "-", 8 hex digits. Nothing else names an entry. */
const ENTRY_ID = /^\d{15}-[0-9a-f]{8}$/;

/** True when `id` has the form of an entry id (so it is safe to turn into a key or a file offset). */
export function isEntryId(id: string): boolean {
  return ENTRY_ID.test(id);
}

/** The entries of one workspace's audit log. */
export interface EntryLog {
  /** Keep `json` (one line: no "\n") as entry `id`, a new id of {@link isEntryId}'s form. */
  add(id: string, json: string): Promise<void>;
  /** Every entry id, ascending (time order). */
  ids(): Promise<string[]>;
  /** The JSON of entry `id`, or undefined when there is none. */
  read(id: string): Promise<string | undefined>;
  /** Drop these entries; a missing one is no error. */
  remove(ids: readonly string[]): Promise<void>;
  /**
   * Hold the entries added from now on, whoever adds them, and write them
   * together when the returned function is called (it throws what the write
   * throws: held entries whose lines did not reach the file are lost). Anything
   * read or dropped meanwhile writes them first, so this process never misses
   * one; a cork is for a moment (see ./deferred.ts: at most a turn of
   * the event loop). Optional: a log of one object per entry has nothing to join.
   */
  cork?(): () => void;
}

const ENTRIES = "audit";
/** Deletes in flight at once when entries are dropped. */
const DELETE_CONCURRENCY = 8;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** One object per entry, `audit/<id>.json`, in `storage` (already scoped to one workspace's history). */
export function objectEntryLog(storage: Storage): EntryLog {
  return {
    async add(id, json) {
      await storage.write(`${ENTRIES}/${id}.json`, encoder.encode(json), Cond.ifAbsent);
    },
    async ids() {
      let names: string[];
      try {
        const listing = await storage.list(ENTRIES);
        names = listing.entries.filter((e) => e.kind === "file").map((e) => e.name);
      } catch (error) {
        if (isCodedError(error) && error.code === "FS_NOT_FOUND") return [];
        throw error;
      }
      return names
        .filter((n) => n.endsWith(".json"))
        .map((n) => n.slice(0, -5))
        .filter(isEntryId)
        .sort();
    },
    async read(id) {
      // A caller's id must never become a path: "../../ws/evil" would read any .json as an entry.
      if (!isEntryId(id)) return undefined;
      try {
        return decoder.decode((await storage.read(`${ENTRIES}/${id}.json`)).bytes);
      } catch (error) {
        if (isCodedError(error) && error.code === "FS_NOT_FOUND") return undefined;
        throw error;
      }
    },
    async remove(ids) {
      // A few at once: a prune may drop hundreds, each a request on a bucket.
      const names = ids.filter(isEntryId).map((id) => `${ENTRIES}/${id}.json`);
      for (let i = 0; i < names.length; i += DELETE_CONCURRENCY) {
        await Promise.all(names.slice(i, i + DELETE_CONCURRENCY).map((name) => storage.delete(name).catch(() => undefined)));
      }
    },
  };
}
