/** Build the audit entry of one finished call (pure). */
import { type FileChange, MAX_ARGS_CHARS, MAX_RESULT_CHARS, type NewAuditEntry } from "./types.ts";

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
  /** The text the model received, when there is one (a revert has none). */
  readonly result?: string;
}

/** `text` cut to `max` UTF-16 units with a visible marker saying how long it was. */
export function bounded(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = max;
  // Never split a surrogate pair.
  if (/[\uD800-\uDBFF]/.test(text[cut - 1] ?? "")) cut--;
  return `${text.slice(0, cut)}… [cut: ${text.length} chars in all]`;
}

function argsText(args: unknown): string {
  try {
    return JSON.stringify(args) ?? "null";
  } catch {
    return "(arguments not serialisable)";
  }
}

/** Most named paths an entry keeps, and most characters of each (a real path is at most 4096 bytes). */
export const MAX_NAMED_PATHS = 64;
export const MAX_NAMED_PATH_CHARS = 4096;

/**
 * The paths a call names: `path`, and `paths` when a tool takes several.
 * Bounded: a call is logged even when its arguments are refused, so a
 * request of 8 MiB of "paths" must not become an 8 MiB entry (the log's
 * byte bound would count it, but it should not take the log's room alone).
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
    args: bounded(argsText(call.args), MAX_ARGS_CHARS),
    ...(call.result !== undefined ? { result: bounded(call.result, MAX_RESULT_CHARS) } : {}),
  };
}
