/**
 * Observation session keys. A session is what the observation store files
 * reads under: the REST `X-Session-Id`, the MCP session, or else the caller's
 * token. Keys always start with the workspace, so two workspaces can never
 * share observations even when clients pick the same session id.
 */
import type { Principal } from "./auth.ts";

/** Where a session id came from; part of the key so the sources never collide. */
export type SessionSource = "rest" | "mcp" | "token";

/** The REST header naming an observation session. */
export const SESSION_HEADER = "X-Session-Id";

/** Longest accepted client session id. */
export const MAX_SESSION_ID_CHARS = 256;

/**
 * The observation-store key for a session. Injective: the workspace and id
 * are percent-encoded, so no choice of either can forge another's key.
 */
export function sessionKey(workspace: string, source: SessionSource, id: string): string {
  return `${encodeURIComponent(workspace)}/${source}/${encodeURIComponent(id)}`;
}

/** The session of a caller who named none: one per token (the single local one without auth). */
export function principalSession(principal: Principal): string {
  return sessionKey(principal.workspace, "token", principal.id);
}

/**
 * Whether a client-chosen session id is acceptable: 1 to
 * {@link MAX_SESSION_ID_CHARS} visible ASCII characters (the MCP rule for
 * `Mcp-Session-Id`, applied to `X-Session-Id` too).
 */
export function isValidSessionId(id: string): boolean {
  return id.length > 0 && id.length <= MAX_SESSION_ID_CHARS && /^[\x21-\x7e]+$/.test(id);
}
