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
 * Files announced before their reads start, for storage that reads ahead
 * on its own (`Storage.scanAhead`): the walk runs up to `files` wanted
 * entries ahead, and each batch it adds is announced at once.
 */
export interface Lookahead {
  readonly files: number;
  announce(entries: readonly WalkEntry[]): void;
}

interface Slot<T> {
  entry: WalkEntry;
  mark: WalkMark;
  wanted: boolean;
  read?: Promise<T | { readonly failed: unknown }>;
}

/**
 * The files of `walk` that `wanted` accepts, in order, each with its read
 * started ahead when `shouldRead` says so. Stop consuming at any time; reads
 * still in flight then finish unobserved. With a `lookahead`, the walk runs
 * further ahead than the reads (it is refilled when half of it is used, so
 * announcements come in batches).
 */
export async function* readAhead<T = ReadResult>(
  walk: AsyncIterable<WalkEntry>,
  stats: WalkStats,
  wanted: (entry: WalkEntry) => boolean,
  shouldRead: (entry: WalkEntry) => boolean,
  read: (entry: WalkEntry) => Promise<T>,
  lookahead?: Lookahead,
): AsyncGenerator<AheadItem<T>> {
  const queue: Slot<T>[] = [];
  // queue[0 .. started) have had their reads started (those that want one).
  let started = 0;
  let filesInFlight = 0;
  let bytesInFlight = 0;
  const iterator = walk[Symbol.asyncIterator]();
  let exhausted = false;
  const windowOpen = () => filesInFlight === 0 || (filesInFlight < READ_AHEAD_FILES && bytesInFlight < READ_AHEAD_BYTES);
  try {
    for (;;) {
      const target = lookahead !== undefined && queue.length <= lookahead.files / 2 ? lookahead.files : 0;
      const fresh: WalkEntry[] = [];
      // Fill: at least one item, the read window, and the lookahead when it ran down.
      while (!exhausted && (queue.length === 0 || queue.length < target || (started === queue.length && windowOpen()))) {
        const next = await iterator.next();
        if (next.done) {
          exhausted = true;
          break;
        }
        const entry = next.value;
        if (!wanted(entry)) continue;
        const wants = shouldRead(entry);
        queue.push({ entry, mark: markWalk(stats), wanted: wants });
        if (wants) fresh.push(entry);
        // Without a lookahead, each read starts as its entry comes.
        if (lookahead === undefined) startReads();
      }
      if (fresh.length > 0) lookahead?.announce(fresh);
      startReads();
      const slot = queue.shift();
      if (slot === undefined) return;
      started--;
      if (slot.read) {
        filesInFlight--;
        bytesInFlight -= inFlightBytes(slot.entry.size);
      }
      yield { entry: slot.entry, mark: slot.mark, read: slot.read };
    }
  } finally {
    await iterator.return?.();
  }

  function startReads(): void {
    while (started < queue.length && windowOpen()) {
      const slot = queue[started++]!;
      if (!slot.wanted) continue;
      // The failure is kept as a value: a read nobody awaits must not become an unhandled rejection.
      slot.read = read(slot.entry).catch((failed: unknown) => ({ failed }));
      filesInFlight++;
      bytesInFlight += inFlightBytes(slot.entry.size);
    }
  }
}
