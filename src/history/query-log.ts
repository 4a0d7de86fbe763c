/** Reading a history store's entries back from its {@link EntryLog}: one by id, and a page of an audit query. */
import { type EntryLog, isEntryId } from "./entry-log.ts";
import { matchesQuery, pageLimit } from "./query.ts";
import type { AuditEntry, AuditPage, AuditQuery } from "./types.ts";

/** Entry `id` of `log`, or undefined when there is none. */
export async function readEntry(log: EntryLog, id: string): Promise<AuditEntry | undefined> {
  // A caller's id must never become a path or an offset: only the shape nextId makes reaches the log.
  if (!isEntryId(id)) return undefined;
  const json = await log.read(id);
  return json === undefined ? undefined : (JSON.parse(json) as AuditEntry);
}

/** One page of the entries of `log` that match `query` (see HistoryStore.query). */
export async function queryLog(log: EntryLog, query: AuditQuery): Promise<AuditPage> {
  const limit = pageLimit(query.limit);
  const entries: AuditEntry[] = [];
  let cursor: string | undefined;
  if (query.newest) {
    // Read from the end: a feed of the latest calls costs its own size, not the log's.
    const ids = (await log.ids()).filter((id) => query.cursor === undefined || id > query.cursor);
    for (let i = ids.length - 1; i >= 0 && entries.length < limit; i--) {
      const entry = await readEntry(log, ids[i]!);
      if (entry && matchesQuery(entry, query)) entries.push(entry);
    }
    return { entries: entries.reverse() };
  }
  for (const id of await log.ids()) {
    if (query.cursor !== undefined && id <= query.cursor) continue;
    const entry = await readEntry(log, id);
    if (!entry || !matchesQuery(entry, query)) continue;
    if (entries.length === limit) {
      cursor = entries[entries.length - 1]!.id;
      break;
    }
    entries.push(entry);
  }
  return cursor === undefined ? { entries } : { entries, cursor };
}
