/**
 * Observation session keys. A session is what the observation store files
 * reads under: the REST `X-Session-Id`, the MCP session, or else the caller's
 * token. Keys start with the caller's principal id (see src/policy/share.ts),
 * then the workspace: a session id sent with another token names another
 * session, and two workspaces never share observations even when clients
 * pick the same session id.
 */
import { ownedSessionKey } from "../policy/share.ts";
import type { Principal } from "./auth.ts";

/** Where a session id came from; part of the key so the sources never collide. */
export type SessionSource = "rest" | "mcp" | "token";

/** The REST header naming an observation session. */
export const SESSION_HEADER = "X-Session-Id";

/** Longest accepted client session id. */
export const MAX_SESSION_ID_CHARS = 256;

/**
 * The observation-store key of session `id` of principal `owner` in
 * `workspace`. Injective: every part is percent-encoded, so no choice of one
 * can forge another's key.
 */
export function sessionKey(owner: string, workspace: string, source: SessionSource, id: string): string {
  return ownedSessionKey(owner, `${encodeURIComponent(workspace)}/${source}/${encodeURIComponent(id)}`);
}

/** The workspace of a key made by {@link sessionKey}; undefined for any other key. */
export function sessionWorkspace(key: string): string | undefined {
  const parts = key.split("/");
  if (parts.length !== 4) return undefined;
  try {
    return decodeURIComponent(parts[1]);
  } catch {
    return undefined;
  }
}

/** The key of a principal's session `id` from `source`. */
export function callerSession(principal: Principal, source: SessionSource, id: string): string {
  return sessionKey(principal.id, principal.workspace, source, id);
}

/** The session of a caller who named none: one per token (the single local one without auth). */
export function principalSession(principal: Principal): string {
  return callerSession(principal, "token", principal.id);
}

/**
 * Whether a client-chosen session id is acceptable: 1 to
 * {@link MAX_SESSION_ID_CHARS} visible ASCII characters (the MCP rule for
 * `Mcp-Session-Id`, applied to `X-Session-Id` too).
 */
export function isValidSessionId(id: string): boolean {
  return id.length > 0 && id.length <= MAX_SESSION_ID_CHARS && /^[\x21-\x7e]+$/.test(id);
}

const encoder = new TextEncoder();

async function ownerTag(owner: string, nonce: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(`${owner}\n${nonce}`)));
  return Array.from(digest.subarray(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * A session id for stateless MCP, where no table remembers who opened a
 * session: a random nonce plus a tag derived from the owner's principal id,
 * so another token's request carrying it can be refused without any state.
 * (The tag is a convenience, not the binding: the key of the session already
 * starts with the owner, so a forged tag could only ever reach the forger's
 * own observations.)
 */
export async function mintOwnedSessionId(owner: string): Promise<string> {
  const nonce = crypto.randomUUID();
  return `${nonce}.${await ownerTag(owner, nonce)}`;
}

/** Whether `id` was minted by {@link mintOwnedSessionId} for `owner`. */
export async function isOwnedSessionId(id: string, owner: string): Promise<boolean> {
  const dot = id.lastIndexOf(".");
  if (dot <= 0) return false;
  return id.slice(dot + 1) === (await ownerTag(owner, id.slice(0, dot)));
}
