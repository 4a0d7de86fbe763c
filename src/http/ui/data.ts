/** What the inspector reads from a workspace's history (the same layer the API answers from). */
import type { AuditEntry, AuditQuery, HistoryStore } from "../../history/mod.ts";

/** Entries matching `query`, keeping only the last `keep` (oldest first); pages through the log with its cursor. */
export async function lastEntries(history: HistoryStore, query: AuditQuery, keep: number): Promise<AuditEntry[]> {
  const out: AuditEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await history.query({ ...query, limit: 1000, ...(cursor ? { cursor } : {}) });
    out.push(...page.entries);
    if (out.length > keep) out.splice(0, out.length - keep);
    cursor = page.cursor;
  } while (cursor);
  return out;
}

/** One feed row, as the page renders it and the event stream sends it. */
export interface FeedRow {
  readonly id: string;
  readonly time: string;
  readonly session: string;
  readonly principal: string;
  readonly tool: string;
  readonly path: string;
  readonly code: string;
  readonly ms: number;
}

export function feedRow(entry: AuditEntry): FeedRow {
  return {
    id: entry.id,
    time: entry.time,
    session: entry.session,
    principal: entry.principal,
    tool: entry.tool,
    path: entry.paths.join(", "),
    code: entry.code,
    ms: entry.ms,
  };
}

/** Per session: calls, principal, last time, and the files it viewed and changed. */
export interface SessionSummary {
  readonly session: string;
  readonly principal: string;
  calls: number;
  last: string;
  readonly viewed: Set<string>;
  readonly changed: Set<string>;
}

/** Sessions from entries (oldest first), most recent first. Reverts (no session) are left out. */
export function summarizeSessions(entries: readonly AuditEntry[]): SessionSummary[] {
  const sessions = new Map<string, SessionSummary>();
  for (const entry of entries) {
    if (entry.session === "") continue;
    let s = sessions.get(entry.session);
    if (!s)
      sessions.set(
        entry.session,
        (s = { session: entry.session, principal: entry.principal, calls: 0, last: entry.time, viewed: new Set(), changed: new Set() }),
      );
    s.calls++;
    s.last = entry.time;
    if (entry.code === "OK") for (const p of entry.paths) s.viewed.add(p);
    for (const change of entry.changes) s.changed.add(change.path);
  }
  return [...sessions.values()].sort((a, b) => (a.last < b.last ? 1 : a.last > b.last ? -1 : 0));
}
