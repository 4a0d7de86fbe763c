/** Audit entries and file states built by hand, for the pure history tests. */
import type { AuditEntry, FileState, NewAuditEntry } from "../../src/history/mod.ts";

/** A file state whose version and blob are named after `blob`. */
export const fileState = (blob: string, size = 10): FileState => ({ version: `v-${blob}`, blob, size });

/** An `edit` entry of principal "p", session "s", with `changes` (and anything in `extra`). */
export function auditEntry(id: string, changes: AuditEntry["changes"], extra: Partial<AuditEntry> = {}): AuditEntry {
  return {
    id,
    time: "2026-12-01T10:00:00.000Z",
    principal: "p",
    session: "s",
    tool: "edit",
    paths: changes.map((c) => c.path),
    code: "OK",
    changes,
    bytes: 0,
    ms: 1,
    ...extra,
  };
}

/** The same entry without its id, as a store's `append` takes it: 20 bytes written to "a" at `time` (and anything in `extra`). */
export function newEntry(changes: AuditEntry["changes"], time = new Date(), extra: Partial<NewAuditEntry> = {}): NewAuditEntry {
  const { id: _, ...entry } = auditEntry("", changes, { time: time.toISOString(), paths: ["a"], bytes: 20, ...extra });
  return entry;
}
