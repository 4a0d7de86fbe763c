/**
 * Observation sessions of hosted workspaces. Each session key also gets its
 * workspace's incarnation (a random id per creation), so deleting a
 * workspace drops every session of it at once, in memory and in Durable
 * Objects alike: a workspace created again under the same name never sees
 * what an agent observed in the old one. The old sessions are never read
 * again and age out (memory: least recently used; Durable Objects: their
 * idle alarm). The suffix goes last, so the key still starts with its owner
 * (src/policy/share.ts).
 */
import type { ObservationStore } from "../../policy/types.ts";
import { sessionWorkspace } from "../sessions.ts";

/** `store` with every session key bound to its workspace's current incarnation. */
export function incarnationSessions(store: ObservationStore, incarnation: (workspace: string) => string | undefined): ObservationStore {
  const key = (session: string) => {
    const workspace = sessionWorkspace(session);
    const epoch = workspace === undefined ? undefined : incarnation(workspace);
    return epoch === undefined ? session : `${session}#${epoch}`;
  };
  return {
    get: (session, path) => store.get(key(session), path),
    set: (session, path, observation) => store.set(key(session), path, observation),
    forget: (session, path) => store.forget(key(session), path),
  };
}
