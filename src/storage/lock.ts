/**
 * A per-key async mutex: callers with the same key run one at a time, in
 * arrival order; different keys never wait for each other. It serialises
 * read-version -> compare -> replace within ONE process; it is not a file lock.
 */

/** Runs async critical sections one at a time per key. */
export interface KeyedLock {
  /** Run `fn` once every earlier holder of `key` has finished; the lock is released however `fn` ends. */
  run<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /** Number of keys currently held or waited on (0 when idle: no key leaks). */
  readonly size: number;
}

/** Create an empty {@link KeyedLock}. */
export function createKeyedLock(): KeyedLock {
  // Each key maps to the promise that settles when its last queued holder releases.
  const tails = new Map<string, Promise<void>>();
  return {
    async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
      const previous = tails.get(key) ?? Promise.resolve();
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const tail = previous.then(() => released);
      tails.set(key, tail);
      await previous;
      try {
        return await fn();
      } finally {
        release();
        if (tails.get(key) === tail) tails.delete(key);
      }
    },
    get size() {
      return tails.size;
    },
  };
}
