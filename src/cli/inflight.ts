/**
 * Counts requests in flight so a stopping server can let them finish: a
 * write that has started must complete (or fail) on its own terms, not be
 * cut off by the process exiting.
 */

/** See {@link createInflight}. */
export interface Inflight {
  /** Requests running now. */
  readonly size: number;
  /** Run `work`, counted while it runs. */
  track<T>(work: () => Promise<T>): Promise<T>;
  /** Resolves true once nothing is in flight, or false after `timeoutMs` with requests still running. */
  idle(timeoutMs: number): Promise<boolean>;
}

/** A new, empty tracker. */
export function createInflight(): Inflight {
  let size = 0;
  const waiters = new Set<() => void>();
  const settle = () => {
    if (size !== 0) return;
    for (const wake of waiters) wake();
    waiters.clear();
  };
  return {
    get size() {
      return size;
    },
    async track(work) {
      size++;
      try {
        return await work();
      } finally {
        size--;
        settle();
      }
    },
    idle(timeoutMs) {
      if (size === 0) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          waiters.delete(wake);
          resolve(false);
        }, timeoutMs);
        const wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
        waiters.add(wake);
      });
    },
  };
}
