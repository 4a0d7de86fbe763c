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
export const MAX_HELD = 32;
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
  /** Close every descriptor held (the root's is not this cache's). */
  clear(): void;
  /** How many descriptors are held (for tests). */
  readonly size: number;
}

/** A cache of directories below the root held open as `rootFd`. */
export function createDirCache(rootFd: number, maxHeld = MAX_HELD, idleMs = IDLE_MS): DirCache {
  const held = new Map<string, number>();
  let lastUse = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const clear = () => {
    for (const fd of held.values()) closeDir(fd);
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
      closeDir(oldFd);
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

  return {
    get(dir) {
      lastUse = performance.now();
      if (timer === undefined) arm();
      return open(dir);
    },
    clear,
    get size() {
      return held.size;
    },
  };
}

/**
 * A descriptor of its own (the caller closes it) for the workspace
 * directory `dir`, opened through its parent's cached descriptor without
 * following a symlink; undefined when that does not work (the caller's
 * careful way then decides). Not the cached descriptor itself: a caller
 * that awaits while holding it would otherwise see it closed when idle.
 */
export function openThroughCache(dirs: DirCache, dir: string): number | undefined {
  const slash = dir.lastIndexOf("/");
  const parent = dirs.get(dir === "" ? "" : slash === -1 ? "" : dir.slice(0, slash));
  if (parent === undefined) return undefined;
  try {
    return openChildDir(parent, dir === "" ? "." : dir.slice(slash + 1));
  } catch {
    return undefined;
  }
}
