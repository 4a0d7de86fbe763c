/**
 * The kernel's own name for an open file: `/proc/self/fd/N` on Linux is a
 * link to the path of the file behind descriptor N as it is now (symlinks
 * resolved, " (deleted)" appended once unlinked). Local storage uses it to
 * prove in one call where a file it opened really is, instead of walking
 * the path component by component.
 *
 * Unavailable elsewhere (macOS, Windows), without /proc, or where the
 * runtime may not read it (Deno without read permission there): the first
 * failure turns it off for the process, and callers take their careful path.
 */
import { readlinkSync } from "node:fs";

let usable: boolean | undefined;

/** Whether {@link openFilePath} can answer here (true until it has failed once). */
export function procFdUsable(): boolean {
  return usable !== false;
}

/** The current path of the file open as `fd`, or undefined when the kernel cannot say. */
export function openFilePath(fd: number): string | undefined {
  if (usable === false) return undefined;
  try {
    const path = readlinkSync(`/proc/self/fd/${fd}`);
    usable = true;
    return path;
  } catch {
    // A descriptor we hold always has an entry; no answer means no /proc here.
    usable = false;
    return undefined;
  }
}
