/**
 * The bounded-share contract every observation store follows.
 *
 * Who a session belongs to: every session key starts with its owner,
 * `<owner>/<rest>`, the owner percent-encoded so it holds no `/`. The owner
 * is the caller's principal id (a hash of the token, never the token text).
 *
 * - Binding: a session named by one token is never the session of another,
 *   whatever id a client sends (ids only pick among the caller's own).
 * - Shares: a store bounds each owner's observations on their own, in bytes
 *   as {@link observationBytes} counts them, forgetting the owner's least
 *   recently used first; so one token flooding sessions or paths forgets
 *   only its own observations, and the store holds at most
 *   owners x share bytes. Owners are the configured tokens.
 *
 * A key without `/` is its own owner (tests and embedders may use bare ids).
 * Forgetting is always safe: it costs the model one more `view`, never a
 * wrong write (a forgotten file is "unseen", and writing it is refused).
 */
import type { Observation } from "./types.ts";

/** Default bytes of observations one token may hold: 16 MiB (about 100 000 ordinary paths). */
export const DEFAULT_OBSERVATION_BYTES_PER_TOKEN = 16 * 1024 * 1024;

/**
 * What one remembered observation costs besides its text: the map entry, the
 * record object and the string headers, rounded up from what Bun (JSC) and
 * V8 allocate, so the count errs high.
 */
export const OBSERVATION_OVERHEAD_BYTES = 160;

/** The key of session `rest` owned by `owner`. */
export function ownedSessionKey(owner: string, rest: string): string {
  return `${encodeURIComponent(owner)}/${rest}`;
}

/** The owner part of a session key, as an opaque id (still encoded). */
export function sessionOwner(session: string): string {
  const slash = session.indexOf("/");
  return slash === -1 ? session : session.slice(0, slash);
}

/**
 * What remembering `observation` of `path` in `session` counts against the
 * owner's share: two bytes per character of the session key, the path and
 * the record's JSON (strings may be stored as UTF-16), plus
 * {@link OBSERVATION_OVERHEAD_BYTES}. Counted from the JSON so that any field
 * a record gains counts too.
 */
export function observationBytes(session: string, path: string, observation: Observation): number {
  return 2 * (session.length + path.length + JSON.stringify(observation).length) + OBSERVATION_OVERHEAD_BYTES;
}
