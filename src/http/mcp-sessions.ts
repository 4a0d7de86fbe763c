/**
 * The in-memory table of live MCP sessions (stateful mode): forgotten after
 * an idle period, bound to the principal that opened them, and bounded per
 * principal: a principal opening one session more than its share closes its
 * own least recently used one, never another principal's. The table holds
 * at most (principals) x `maxSessionsPerOwner` sessions, and principals are
 * the configured tokens. Expiry is checked on access (no timers), so it runs
 * the same on every runtime and needs no clean-up at shutdown.
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
  /** Most live sessions of one owner; its opening one more closes its least recently used. */
  readonly maxSessionsPerOwner: number;
  /** A session unused this long (ms) is closed on the next access to the table. */
  readonly idleMs: number;
  /** Clock, for tests. Default `Date.now`. */
  readonly now?: () => number;
}

/** Live sessions by id. */
export interface SessionTable<E extends SessionEntry> {
  /** The session if it is live and owned by `owner`; marks it used. */
  get(id: string, owner: string): E | undefined;
  /** Register a session (closing its owner's least recently used one when the owner's share is full). */
  add(id: string, entry: E): void;
  /** Forget (and close) a session. */
  delete(id: string): void;
  /** Forget (and close) every session whose entry matches; how many. */
  deleteWhere(match: (entry: E) => boolean): number;
  readonly size: number;
  /** Live sessions of one owner. */
  sizeOf(owner: string): number;
}

/** Create an empty table. */
export function createSessionTable<E extends SessionEntry>(options: SessionTableOptions): SessionTable<E> {
  if (!(options.maxSessionsPerOwner >= 1)) throw new Error("maxSessionsPerOwner must be at least 1");
  if (!(options.idleMs > 0)) throw new Error("idleMs must be positive");
  const now = options.now ?? Date.now;
  // Insertion order is recency order: touching re-inserts, so the first key is the least recently used.
  // `live` orders all sessions (for expiry); `owned` orders each owner's own (for its share).
  const live = new Map<string, { entry: E; seen: number }>();
  const owned = new Map<string, Set<string>>();

  function remove(id: string): void {
    const slot = live.get(id);
    if (!slot) return;
    live.delete(id);
    const mine = owned.get(slot.entry.owner);
    mine?.delete(id);
    if (mine?.size === 0) owned.delete(slot.entry.owner);
    slot.entry.close();
  }

  function touch(id: string, slot: { entry: E; seen: number }): void {
    live.delete(id);
    live.set(id, slot);
    const mine = owned.get(slot.entry.owner) ?? new Set<string>();
    mine.delete(id);
    mine.add(id);
    owned.set(slot.entry.owner, mine);
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
      touch(id, { entry: slot.entry, seen: now() });
      return slot.entry;
    },
    add(id, entry) {
      expire();
      remove(id);
      const mine = owned.get(entry.owner);
      while (mine && mine.size >= options.maxSessionsPerOwner) remove(mine.values().next().value!);
      touch(id, { entry, seen: now() });
    },
    delete: remove,
    deleteWhere(match) {
      const ids = [...live].filter(([, slot]) => match(slot.entry)).map(([id]) => id);
      for (const id of ids) remove(id);
      return ids.length;
    },
    get size() {
      return live.size;
    },
    sizeOf(owner) {
      return owned.get(owner)?.size ?? 0;
    },
  };
}
