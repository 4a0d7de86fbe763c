/**
 * Reads that run ahead of a directory search: while one file is searched,
 * the next few are already being read, so a tree of small files is not one
 * storage round trip after another (on local disk a read is ~10 syscalls; 8
 * to 16 reads in flight made a 10,000-file search 3.5-4.5x faster).
 *
 * Files still come out in walk order, one at a time, so the search and its
 * output are exactly those of reading one file after another. The walk
 * itself runs ahead by the window; each item carries a snapshot of the walk's
 * counts at the moment it was reached, for a search that stops at that item
 * to report what a one-at-a-time search would have.
 */

import type { ReadResult } from "../../storage/types.ts";
import type { WalkEntry, WalkStats } from "./walk.ts";

/** Most reads in flight. */
export const READ_AHEAD_FILES = 16;
/** Most bytes (by listed size) in flight; one file is always allowed, whatever its size. */
export const READ_AHEAD_BYTES = 8 * 1024 * 1024;

/**
 * Bytes a read is counted as while in flight: its listed size, or the whole
 * window when the listing gave none (-1), so a file of unknown size is read
 * alone. (Storage that lists without sizes, local, reads small files in
 * blocking calls anyway: there is nothing to overlap.)
 */
export function inFlightBytes(size: number): number {
  return size >= 0 ? size : READ_AHEAD_BYTES;
}

/** A walk's counts at one moment. */
export interface WalkMark {
  readonly visited: number;
  readonly hidden: number;
  readonly ignored: number;
  readonly unexpanded: number;
  readonly unreadable: number;
  readonly complete: boolean;
}

/** Take a {@link WalkMark}. */
export function markWalk(stats: WalkStats): WalkMark {
  return {
    visited: stats.visited,
    hidden: stats.hidden,
    ignored: stats.ignored,
    unexpanded: stats.unexpanded.length,
    unreadable: stats.unreadable.length,
    complete: stats.complete,
  };
}

/** Put `stats` back to what they were at `mark` (the walk ran ahead of a search that stopped). */
export function rewindWalk(stats: WalkStats, mark: WalkMark): void {
  stats.visited = mark.visited;
  stats.hidden = mark.hidden;
  stats.ignored = mark.ignored;
  stats.unexpanded.length = mark.unexpanded;
  stats.unreadable.length = mark.unreadable;
  stats.complete = mark.complete;
}

/** One file of the walk, with its read started (or not, when `read` was not wanted). */
export interface AheadItem<T = ReadResult> {
  readonly entry: WalkEntry;
  readonly mark: WalkMark;
  /** Settles with the read or the error it failed with; undefined when no read was started. */
  readonly read: Promise<T | { readonly failed: unknown }> | undefined;
}

/**
 * The files of `walk` that `wanted` accepts, in order, each with its read
 * started ahead when `shouldRead` says so. Stop consuming at any time; reads
 * still in flight then finish unobserved.
 */
export async function* readAhead<T = ReadResult>(
  walk: AsyncIterable<WalkEntry>,
  stats: WalkStats,
  wanted: (entry: WalkEntry) => boolean,
  shouldRead: (entry: WalkEntry) => boolean,
  read: (entry: WalkEntry) => Promise<T>,
): AsyncGenerator<AheadItem<T>> {
  const queue: AheadItem<T>[] = [];
  let bytesInFlight = 0;
  const iterator = walk[Symbol.asyncIterator]();
  let exhausted = false;
  try {
    for (;;) {
      // Fill the window: files and bytes in flight, always at least one item ready.
      while (!exhausted && (queue.length === 0 || (queue.length < READ_AHEAD_FILES && bytesInFlight < READ_AHEAD_BYTES))) {
        const next = await iterator.next();
        if (next.done) {
          exhausted = true;
          break;
        }
        const entry = next.value;
        if (!wanted(entry)) continue;
        const started = shouldRead(entry);
        // The failure is kept as a value: a read nobody awaits must not become an unhandled rejection.
        const pending = started ? read(entry).catch((failed: unknown) => ({ failed })) : undefined;
        if (started) bytesInFlight += inFlightBytes(entry.size);
        queue.push({ entry, mark: markWalk(stats), read: pending });
      }
      const item = queue.shift();
      if (item === undefined) return;
      if (item.read) bytesInFlight -= inFlightBytes(item.entry.size);
      yield item;
    }
  } finally {
    await iterator.return?.();
  }
}
