/**
 * Directory descriptors kept for a burst of reads (a search reads thousands
 * of files, ten or so per directory): each one opened from the root one
 * component at a time without following a symlink (./dirfd.ts), so it is a
 * proof that the directory was reached inside the root with no symlink on
 * the way. A file opened through it (`/proc/self/fd/N/name`, O_NOFOLLOW) is
 * that directory's entry whatever a racing process does to the path since:
 * one lookup instead of lstat, open and the kernel's name of the open file.
 *
 * Bounded: at most {@link MAX_HELD} descriptors (least recently used first
 * out), all closed when the search ends (`endScan`) or, failing that, once
 * no read asked for one for {@link IDLE_MS}, so a directory renamed or
 * swapped meanwhile is not read through an old descriptor after the search
 * (during it, the one read is the directory that was inside).
 */
import { clearTimeout, setTimeout } from "node:timers";
import { closeDir, openChildDir } from "./dirfd.ts";

/** Most directory descriptors held. */
export const MAX_HELD = 128;
/** Descriptors are closed after this long without use (ms). */
export const IDLE_MS = 50;

export interface DirCache {
  /**
   * A descriptor of the workspace directory `dir` (normalised; "" is the
   * root), or undefined when a component is missing, not a directory, a
   * symlink, or not searchable: the caller then takes its careful way.
   * Valid until the next turn of the event loop at least.
   */
  get(dir: string): number | undefined;
  /**
   * As {@link get}, and the descriptor stays open until as many
   * {@link unpin} calls: one let go meanwhile (evicted, idle, cleared) is
   * closed at the last unpin. For work on another thread (./scan-pool.ts),
   * which must never find the number closed and reused under it.
   */
  pin(dir: string): number | undefined;
  unpin(fd: number): void;
  /** Close every descriptor held (the root's is not this cache's; pinned ones close when unpinned). */
  clear(): void;
  /** How many descriptors are held (for tests). */
  readonly size: number;
}

/** A cache of directories below the root held open as `rootFd`. */
export function createDirCache(rootFd: number, maxHeld = MAX_HELD, idleMs = IDLE_MS): DirCache {
  const held = new Map<string, number>();
  // Pins per descriptor, and the pinned ones let go (closed at their last unpin).
  const pins = new Map<number, number>();
  const retired = new Set<number>();
  let lastUse = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const release = (fd: number) => {
    if (pins.has(fd)) retired.add(fd);
    else closeDir(fd);
  };

  const clear = () => {
    for (const fd of held.values()) release(fd);
    held.clear();
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };

  const arm = () => {
    timer = setTimeout(() => {
      timer = undefined;
      if (performance.now() - lastUse >= idleMs) clear();
      else arm();
    }, idleMs);
    // An idle cache must not keep the process alive.
    (timer as { unref?: () => void }).unref?.();
  };

  const keep = (dir: string, fd: number) => {
    held.set(dir, fd);
    if (held.size > maxHeld) {
      const [oldest, oldFd] = held.entries().next().value as [string, number];
      held.delete(oldest);
      release(oldFd);
    }
  };

  function open(dir: string): number | undefined {
    if (dir === "") return rootFd;
    const found = held.get(dir);
    if (found !== undefined) {
      // Most recently used last.
      held.delete(dir);
      held.set(dir, found);
      return found;
    }
    const slash = dir.lastIndexOf("/");
    const parent = open(slash === -1 ? "" : dir.slice(0, slash));
    if (parent === undefined) return undefined;
    let fd: number;
    try {
      fd = openChildDir(parent, dir.slice(slash + 1));
    } catch {
      return undefined;
    }
    keep(dir, fd);
    return fd;
  }

  const get = (dir: string) => {
    lastUse = performance.now();
    if (timer === undefined) arm();
    return open(dir);
  };

  return {
    get,
    pin(dir) {
      const fd = get(dir);
      if (fd !== undefined && fd !== rootFd) pins.set(fd, (pins.get(fd) ?? 0) + 1);
      return fd;
    },
    unpin(fd) {
      const left = (pins.get(fd) ?? 0) - 1;
      if (left > 0) return void pins.set(fd, left);
      pins.delete(fd);
      if (retired.delete(fd)) closeDir(fd);
    },
    clear,
    get size() {
      return held.size;
    },
  };
}
