/**
 * Counting this process's open descriptors that name something under one
 * directory (files, directories, unlinked files). Counting every descriptor
 * of the test process would also count what other work in it opens or
 * closes meanwhile (servers and child processes of earlier test files).
 */
import { readdirSync, readlinkSync, realpathSync } from "node:fs";

/** Descriptors of this process whose target lies under `dir`. */
export function fdsUnder(dir: string): number {
  const base = `${realpathSync(dir)}/`;
  let count = 0;
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      if (`${readlinkSync(`/proc/self/fd/${fd}`)}/`.startsWith(base)) count++;
    } catch {
      // Closed between the listing and the look.
    }
  }
  return count;
}

/**
 * {@link fdsUnder} once it is at most `want`, or after `tries` yields to the
 * event loop (descriptors closed "later" by a timer are closed by then on
 * any machine; a leak stays open). Returns the last count.
 */
export async function settledFdsUnder(dir: string, want: number, tries = 1000): Promise<number> {
  let count = fdsUnder(dir);
  for (let i = 0; i < tries && count > want; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    count = fdsUnder(dir);
  }
  return count;
}

/** Whether `fd` is open in this process and the kernel names it `path`. */
export function fdNames(fd: number, path: string): boolean {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`) === path;
  } catch {
    return false;
  }
}
