/**
 * How a write's temp file is flushed. On the thread pool, the flush leaves
 * the event loop free and lets the checks before the rename run during it
 * (see ./write.ts); but the hand-off costs two thread wake-ups, 0.1-0.15 ms
 * here, more than the checks it overlaps for a small file. So a small
 * write with no other write of this process under way flushes in place and
 * then runs its checks (the compare-and-swap re-read stays the last thing
 * before the rename); under concurrent writes (which the thread pool
 * lets the disk flush together) or after slow flushes (a disk that takes
 * milliseconds must not stall the loop) it goes to the pool. The price: a
 * flush in place holds the event loop for its length, so a sudden stall of
 * the disk is felt once by every request of the process; the average then
 * keeps flushes on the pool until the disk is quick again.
 */
import * as fsSync from "node:fs";
import { dataSync, SYNC_IO_BYTES } from "./io.ts";

/** A flush in place is for disks that answer in about this long (an SSD's ~0.5 ms). */
export const INLINE_FLUSH_MAX_MS = 2;

/** What the choice looks at. */
export interface FlushState {
  /** Writes of this process checking or flushing their temp file now, this one excluded. */
  readonly others: number;
  readonly bytes: number;
  /** Recent flush time (moving average), ms. */
  readonly recentMs: number;
}

/** Whether to flush in place (pure). */
export function flushInPlace(state: FlushState): boolean {
  return state.others === 0 && state.bytes <= SYNC_IO_BYTES && state.recentMs <= INLINE_FLUSH_MAX_MS;
}

/** Weight of the newest flush in the moving average. */
const NEWEST = 0.25;

/** The moving average after a flush of `ms` (pure). */
export function nextRecentMs(recentMs: number, ms: number): number {
  return recentMs + NEWEST * (ms - recentMs);
}

let writing = 0;
let recentMs = 0;

/**
 * Flush `fd` (`bytes` long; none when `fsync` is off) and run `alongside`:
 * during the flush on the pool, or after the flush in place. Resolves with
 * alongside's refusal, if any, once the flush is done either way: the
 * caller closes the descriptor only then.
 */
export async function flushWith(fd: number, bytes: number, fsync: boolean, alongside: () => Promise<void>): Promise<{ error: unknown } | undefined> {
  const inPlace = fsync && flushInPlace({ others: writing, bytes, recentMs });
  writing++;
  let refusal: { error: unknown } | undefined;
  try {
    if (!fsync) {
      await alongside().catch((error: unknown) => (refusal = { error }));
      return refusal;
    }
    if (inPlace) {
      timed(() => fsSync.fdatasyncSync(fd));
      await alongside().catch((error: unknown) => (refusal = { error }));
      return refusal;
    }
    const started = performance.now();
    // Timed when it ends, not when awaited (a file's checks may outlast it), and only for the files
    // the choice is about: a large file's flush is slow on any disk.
    const small = bytes <= SYNC_IO_BYTES;
    const flushed = dataSync(fd).then(() => {
      if (small) recentMs = nextRecentMs(recentMs, performance.now() - started);
    });
    flushed.catch(() => {}); // awaited below, after alongside
    await alongside().catch((error: unknown) => (refusal = { error }));
    await flushed;
    return refusal;
  } finally {
    writing--;
  }
}

function timed(flush: () => void): void {
  const started = performance.now();
  flush();
  recentMs = nextRecentMs(recentMs, performance.now() - started);
}
