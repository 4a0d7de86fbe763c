/**
 * Observation sessions of hosted workspaces. Session keys start with the
 * workspace name (see ../sessions.ts); here each key also gets the
 * workspace's incarnation (a random id per creation), so deleting a workspace drops
 * every session of it at once, in memory and in Durable Objects alike: a
 * workspace created again under the same name never sees what an agent
 * observed in the old one. The old sessions are never read again and age
 * out (memory: least recently used; Durable Objects: their idle alarm).
 */
import type { ObservationStore } from "../../policy/types.ts";

/** `store` with every session key bound to its workspace's current incarnation. */
export function incarnationSessions(store: ObservationStore, incarnation: (workspace: string) => string | undefined): ObservationStore {
  const key = (session: string) => {
    const slash = session.indexOf("/");
    const workspace = decodeURIComponent(slash === -1 ? session : session.slice(0, slash));
    const epoch = incarnation(workspace);
    return epoch === undefined ? session : `${session}#${epoch}`;
  };
  return {
    get: (session, path) => store.get(key(session), path),
    set: (session, path, observation) => store.set(key(session), path, observation),
    forget: (session, path) => store.forget(key(session), path),
  };
}
