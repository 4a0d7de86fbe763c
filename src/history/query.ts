/** Audit query filters (pure). */
import type { AuditEntry, AuditQuery } from "./types.ts";

/** Default and largest page sizes of an audit query. */
export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 1000;

/** The page size a query asks for, within bounds. */
export function pageLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_PAGE;
  return Math.min(MAX_PAGE, Math.max(1, Math.floor(limit)));
}

/** True when `entry` passes every filter of `query` (the cursor is the caller's). */
export function matchesQuery(entry: AuditEntry, query: AuditQuery): boolean {
  if (query.since !== undefined && Date.parse(entry.time) < Date.parse(query.since)) return false;
  if (query.session !== undefined && entry.session !== query.session) return false;
  if (query.principal !== undefined && entry.principal !== query.principal) return false;
  if (query.changesOnly && entry.changes.length === 0) return false;
  if (query.path !== undefined) {
    const p = query.path;
    if (!entry.paths.includes(p) && !entry.changes.some((c) => c.path === p)) return false;
  }
  return true;
}
