/**
 * A fence over storage handles: every operation through a fenced handle is
 * counted while it runs, and once the fence is closed a new one is refused
 * before it reaches the storage. So whoever closes it can wait for the
 * operations already past the check (`drained`), and after that nothing
 * more comes through: a write already on its way to a bucket has landed
 * (or failed) by then, and none starts later. Handles whose owner goes away
 * (a deleted workspace, a directory descriptor to be closed) are fenced so
 * that a call still holding one can never act on what replaced it.
 */
import type { ScanFileOptions, Storage } from "./types.ts";

/** See {@link createFence}. */
export interface Fence {
  readonly closed: boolean;
  /** Operations running now. */
  readonly inflight: number;
  /** Run `op`, counted while it runs; once closed, reject with `refused()` and never start it. */
  run<T>(op: () => Promise<T>, refused: () => Error): Promise<T>;
  /** Refuse every operation from now on. */
  close(): void;
  /** Resolves once the fence is closed and no operation runs. */
  readonly drained: Promise<void>;
}

/** A new, open fence. */
export function createFence(): Fence {
  let inflight = 0;
  let closed = false;
  let wake: (() => void) | undefined;
  const drained = new Promise<void>((resolve) => (wake = resolve));
  const settle = () => {
    if (closed && inflight === 0) wake?.();
  };
  return {
    get closed() {
      return closed;
    },
    get inflight() {
      return inflight;
    },
    async run(op, refused) {
      // Checked and counted in one step: nothing can close the fence between the two.
      if (closed) throw refused();
      inflight++;
      try {
        return await op();
      } finally {
        inflight--;
        settle();
      }
    },
    close() {
      closed = true;
      settle();
    },
    drained,
  };
}

/** What a refused operation was going to do, for its error: "was not written", "could not be read", ... */
export type FencedOperation = "was not written" | "was not deleted" | "could not be read" | "could not be listed";

/** `storage` with every operation run through `fence`; a refused one rejects with `refused(path, what)`. */
export function fencedStorage(storage: Storage, fence: Fence, refused: (path: string, what: FencedOperation) => Error): Storage {
  const guard = <T>(path: string, what: FencedOperation, op: () => Promise<T>) => fence.run(op, () => refused(path, what));
  return {
    kind: storage.kind,
    ...(storage.root !== undefined ? { root: storage.root } : {}),
    stat: (path) => guard(path, "could not be read", () => storage.stat(path)),
    read: (path, options) => guard(path, "could not be read", () => storage.read(path, options)),
    ...(storage.readStream ? { readStream: (path: string) => guard(path, "could not be read", () => storage.readStream!(path)) } : {}),
    ...(storage.scanFile
      ? { scanFile: <T>(path: string, options: ScanFileOptions<T>) => guard(path, "could not be read", () => storage.scanFile!(path, options)) }
      : {}),
    // A hint that starts reads now, in this turn: never once the fence is closed.
    ...(storage.scanAhead ? { scanAhead: (paths: readonly string[]) => (fence.closed ? undefined : storage.scanAhead!(paths)) } : {}),
    // Only lets go of what a search kept: always allowed.
    ...(storage.endScan ? { endScan: () => storage.endScan!() } : {}),
    write: (path, bytes, condition) => guard(path, "was not written", () => storage.write(path, bytes, condition)),
    list: (path, options) => guard(path || ".", "could not be listed", () => storage.list(path, options)),
    delete: (path, options) => guard(path, "was not deleted", () => storage.delete(path, options)),
  };
}
