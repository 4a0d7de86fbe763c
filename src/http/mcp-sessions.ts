/**
 * The in-memory table of live MCP sessions (stateful mode): bounded in
 * number, forgotten after an idle period, and bound to the principal that
 * opened them. Expiry is checked on access (no timers), so it runs the same
 * on every runtime and needs no clean-up at shutdown.
 */

/** One live session. */
export interface SessionEntry {
  /** Id of the principal that opened it; only that principal may use it. */
  readonly owner: string;
  /** Release the session's resources (transport, server). Must not throw. */
  close(): void;
}

/** Options for {@link createSessionTable}. */
export interface SessionTableOptions {
  /** Most live sessions; opening one more closes the least recently used. */
  readonly maxSessions: number;
  /** A session unused this long (ms) is closed on the next access to the table. */
  readonly idleMs: number;
  /** Clock, for tests. Default `Date.now`. */
  readonly now?: () => number;
}

/** Live sessions by id. */
export interface SessionTable<E extends SessionEntry> {
  /** The session if it is live and owned by `owner`; marks it used. */
  get(id: string, owner: string): E | undefined;
  /** Register a session (closing the least recently used one when full). */
  add(id: string, entry: E): void;
  /** Forget (and close) a session. */
  delete(id: string): void;
  readonly size: number;
}

/** Create an empty table. */
export function createSessionTable<E extends SessionEntry>(options: SessionTableOptions): SessionTable<E> {
  if (!(options.maxSessions >= 1)) throw new Error("maxSessions must be at least 1");
  if (!(options.idleMs > 0)) throw new Error("idleMs must be positive");
  const now = options.now ?? Date.now;
  // Insertion order is recency order: touching re-inserts, so the first key is the least recently used.
  const live = new Map<string, { entry: E; seen: number }>();

  function remove(id: string): void {
    const slot = live.get(id);
    if (!slot) return;
    live.delete(id);
    slot.entry.close();
  }

  function expire(): void {
    const cutoff = now() - options.idleMs;
    for (const [id, slot] of live) {
      if (slot.seen > cutoff) break;
      remove(id);
    }
  }

  return {
    get(id, owner) {
      expire();
      const slot = live.get(id);
      // Another principal's session answers exactly like a missing one: ids are not to be probed.
      if (!slot || slot.entry.owner !== owner) return undefined;
      live.delete(id);
      live.set(id, { entry: slot.entry, seen: now() });
      return slot.entry;
    },
    add(id, entry) {
      expire();
      remove(id);
      while (live.size >= options.maxSessions) remove(live.keys().next().value!);
      live.set(id, { entry, seen: now() });
    },
    delete: remove,
    get size() {
      return live.size;
    },
  };
}
