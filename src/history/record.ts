/** Build the audit entry of one finished call (pure). */
import type { FileChange, NewAuditEntry } from "./types.ts";

export interface FinishedCall {
  readonly principal: string;
  readonly session: string;
  readonly tool: string;
  readonly args: unknown;
  /** Undefined for success. */
  readonly code?: string;
  readonly changes: readonly FileChange[];
  readonly bytes: number;
  readonly ms: number;
  readonly time: Date;
  /** For a revert: the entries it reverted. */
  readonly reverts?: readonly string[];
}

/** Most named paths an entry keeps, and most characters of each (a real path is at most 4096 bytes). */
export const MAX_NAMED_PATHS = 64;
export const MAX_NAMED_PATH_CHARS = 4096;

/**
 * The paths a call names: `path`, and `paths` when a tool takes several.
 * Bounded: a call is logged even when its arguments are refused, and the
 * history's bounds count versions, not entries, so a request of 8 MiB of
 * "paths" must not become an 8 MiB entry kept for 30 days.
 */
export function namedPaths(args: unknown): string[] {
  if (typeof args !== "object" || args === null) return [];
  const out: string[] = [];
  const { path, paths } = args as { path?: unknown; paths?: unknown };
  const add = (p: unknown) => {
    if (typeof p === "string" && out.length < MAX_NAMED_PATHS) out.push(p.length > MAX_NAMED_PATH_CHARS ? `${p.slice(0, MAX_NAMED_PATH_CHARS)}…` : p);
  };
  add(path);
  if (Array.isArray(paths)) for (const p of paths.slice(0, MAX_NAMED_PATHS)) add(p);
  return out;
}

export function auditEntryOf(call: FinishedCall): NewAuditEntry {
  const paths = namedPaths(call.args);
  for (const change of call.changes) if (!paths.includes(change.path)) paths.push(change.path);
  return {
    time: call.time.toISOString(),
    principal: call.principal,
    session: call.session,
    tool: call.tool,
    paths,
    code: call.code ?? "OK",
    changes: call.changes,
    bytes: call.bytes,
    ms: Math.round(call.ms * 100) / 100,
    ...(call.reverts ? { reverts: call.reverts } : {}),
  };
}
