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

/** The paths a call names: `path`, and `paths` when a tool takes several. */
export function namedPaths(args: unknown): string[] {
  if (typeof args !== "object" || args === null) return [];
  const out: string[] = [];
  const { path, paths } = args as { path?: unknown; paths?: unknown };
  if (typeof path === "string") out.push(path);
  if (Array.isArray(paths)) for (const p of paths) if (typeof p === "string") out.push(p);
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
