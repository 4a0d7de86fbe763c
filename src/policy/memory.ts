import { DEFAULT_OBSERVATION_BYTES_PER_TOKEN, observationBytes, sessionOwner } from "./share.ts";
import type { Observation, ObservationStore } from "./types.ts";

/** Options for {@link createMemoryObservationStore}. */
export interface MemoryObservationOptions {
  /**
   * Most bytes (as `observationBytes` counts them) the sessions of one owner
   * hold together; past it the owner's least recently used observations are
   * forgotten first. Default {@link DEFAULT_OBSERVATION_BYTES_PER_TOKEN}.
   */
  readonly maxBytesPerOwner?: number;
  /**
   * Most owners remembered; one more forgets the least recently active
   * owner's observations. Owners are tokens, so set it at or above the
   * number of tokens (the default, 1024, is for embedders with bare keys).
   */
  readonly maxOwners?: number;
}

interface Remembered {
  readonly observation: Observation;
  readonly bytes: number;
}

interface Share {
  bytes: number;
  /** session + path -> observation, least recently used first (Map order is insertion order; touching re-inserts). */
  readonly entries: Map<string, Remembered>;
}

/** Injective: the session's length says where the path starts. */
function entryKey(session: string, path: string): string {
  return `${session.length}:${session}${path}`;
}

/**
 * Observation state in process memory, for Bun/Deno local mode and tests.
 * Bounded per owner in bytes (see src/policy/share.ts), so a long-running
 * server holds at most owners x `maxBytesPerOwner` of observations however
 * many session ids or paths a client invents.
 */
export function createMemoryObservationStore(options: MemoryObservationOptions = {}): ObservationStore {
  const maxBytes = options.maxBytesPerOwner ?? DEFAULT_OBSERVATION_BYTES_PER_TOKEN;
  const maxOwners = options.maxOwners ?? 1024;
  if (!(maxBytes > 0) || !(maxOwners >= 1)) throw new Error("createMemoryObservationStore: the bounds must be positive");
  const shares = new Map<string, Share>();

  function share(session: string, create: boolean): Share | undefined {
    const owner = sessionOwner(session);
    let found = shares.get(owner);
    if (found) {
      shares.delete(owner);
      shares.set(owner, found);
    } else if (create) {
      found = { bytes: 0, entries: new Map() };
      shares.set(owner, found);
      if (shares.size > maxOwners) shares.delete(shares.keys().next().value!);
    }
    return found;
  }

  function remove(owned: Share, key: string): void {
    const old = owned.entries.get(key);
    if (!old) return;
    owned.entries.delete(key);
    owned.bytes -= old.bytes;
  }

  return {
    get(session, path) {
      const owned = share(session, false);
      const key = entryKey(session, path);
      const found = owned?.entries.get(key);
      if (owned && found) {
        owned.entries.delete(key);
        owned.entries.set(key, found);
      }
      return Promise.resolve(found?.observation);
    },
    set(session, path, observation) {
      const owned = share(session, true)!;
      const key = entryKey(session, path);
      remove(owned, key);
      const bytes = observationBytes(session, path, observation);
      owned.entries.set(key, { observation, bytes });
      owned.bytes += bytes;
      // The newest entry is kept even when it alone is over the share: it is what the next call needs.
      while (owned.bytes > maxBytes && owned.entries.size > 1) remove(owned, owned.entries.keys().next().value!);
      return Promise.resolve();
    },
    forget(session, path) {
      const owned = share(session, false);
      if (owned) remove(owned, entryKey(session, path));
      return Promise.resolve();
    },
  };
}
