/**
 * Recording after the reply. A call's change is durable once its write has
 * landed; storing its before/after bytes and appending its audit entry is
 * bookkeeping that need not hold up the answer (on local disk it cost more
 * than the edit's own flushed write). Recordings run one at a time in call
 * order; every read of the history waits for those queued before it, so a
 * reader in this process never misses a finished call. The queue is
 * bounded: past `maxPending` recordings, a call waits for room.
 *
 * For a process that outlives its replies (a local server): a Worker's
 * isolate may stop once the response is sent, so it records inline.
 */
import type { AuditEntry, AuditPage, AuditQuery, HistoryStore, NewAuditEntry } from "./types.ts";

/** A history store that can record finished calls after the reply. */
export interface DeferringHistory extends HistoryStore {
  /**
   * Queue `task` (given the underlying store) after the recordings queued
   * before it. Resolves at once, or once there is room when the queue is full.
   * A failing task is reported to `onError` and does not stop the queue.
   */
  later(task: (store: HistoryStore) => Promise<void>): Promise<void>;
  /** Resolves once every recording queued so far has finished. */
  settled(): Promise<void>;
}

/** Options of {@link deferRecording}. */
export interface DeferOptions {
  /** Most recordings waiting at once before a call waits for room (default 32). */
  readonly maxPending?: number;
  readonly onError?: (error: unknown) => void;
  /** Resolves on a later turn of the event loop (default: `setImmediate`, else `setTimeout(0)`). */
  readonly nextTurn?: () => Promise<void>;
}

/** Whether `history` takes recordings after the reply. */
export function defersRecording(history: HistoryStore): history is DeferringHistory {
  return typeof (history as Partial<DeferringHistory>).later === "function";
}

/**
 * A later turn of the event loop: a recording queued while a call returns
 * must not start in the same turn, or its hashing and writes run before the
 * server has written the reply (they did: a 4.9 MB edit's reply waited
 * ~20 ms for its own recording). `setImmediate` where the runtime has it
 * (a few µs); `setTimeout(0)` waits 1-2 ms, which capped recordings, and so
 * a server's calls, at ~800 a second.
 */
function defaultNextTurn(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (f: () => void) => unknown }).setImmediate;
  return new Promise<void>((resolve) => (immediate ? immediate(resolve) : setTimeout(resolve, 0)));
}

/** A recording waiting for its turn, and how to say it finished. */
interface Queued {
  readonly task: (store: HistoryStore) => Promise<void>;
  readonly done: () => void;
}

/** Wrap `store` so recordings run after the reply; see the module comment. */
export function deferRecording(store: HistoryStore, options: DeferOptions = {}): DeferringHistory {
  const maxPending = Math.max(1, options.maxPending ?? 32);
  const nextTurn = options.nextTurn ?? defaultNextTurn;
  let tail: Promise<void> = Promise.resolve();
  let pending = 0;
  // Recordings queued since the last turn began: they all run on the next one, one after another.
  let batch: Queued[] | undefined;

  function report(error: unknown): void {
    try {
      options.onError?.(error);
    } catch {
      // A log hook's failure must not stall the queue.
    }
  }

  async function run(task: (store: HistoryStore) => Promise<void>): Promise<void> {
    try {
      await task(store);
    } catch (error) {
      report(error);
    } finally {
      pending--;
    }
  }

  /**
   * Cork the store (where it can) for a batch: its entries go to the log in one write, when the
   * batch ends or at the next turn of the event loop, whichever comes first. A batch that waits on
   * I/O (a large blob) or never finishes must not keep the entries of recordings already done in
   * memory only. Returns the release (idempotent; a failed write is reported).
   */
  function holdEntries(): () => void {
    let uncork: (() => void) | undefined;
    try {
      uncork = store.cork?.();
    } catch (error) {
      report(error);
    }
    if (!uncork) return () => {};
    const release = () => {
      const u = uncork;
      uncork = undefined;
      try {
        u?.();
      } catch (error) {
        report(error);
      }
    };
    void nextTurn().then(release, release);
    return release;
  }

  const settled = () => tail;
  return {
    later(task) {
      pending++;
      let done!: () => void;
      const finished = new Promise<void>((resolve) => (done = resolve));
      if (batch) batch.push({ task, done });
      else {
        // One turn per batch, not per recording: under load a turn per call was a scheduler round trip each.
        const mine: Queued[] = [{ task, done }];
        batch = mine;
        tail = tail
          .then(() => nextTurn().catch(report))
          .then(async () => {
            if (batch === mine) batch = undefined;
            const release = holdEntries();
            try {
              for (const queued of mine) await run(queued.task);
            } finally {
              release();
              for (const queued of mine) queued.done();
            }
          });
      }
      const previous = tail;
      tail = previous.then(() => finished);
      return pending > maxPending ? finished : Promise.resolve();
    },
    settled,
    async append(entry: NewAuditEntry): Promise<AuditEntry> {
      await settled();
      return store.append(entry);
    },
    async query(query: AuditQuery): Promise<AuditPage> {
      await settled();
      return store.query(query);
    },
    async get(id: string): Promise<AuditEntry | undefined> {
      await settled();
      return store.get(id);
    },
    putBlob: (bytes, known) => store.putBlob(bytes, known),
    async getBlob(hash: string): Promise<Uint8Array | undefined> {
      await settled();
      return store.getBlob(hash);
    },
  };
}
