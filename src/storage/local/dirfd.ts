/**
 * Acting inside a proven directory. node:fs has no openat/renameat/linkat/
 * unlinkat, but on Linux `/proc/self/fd/N/name` names the entry `name` of
 * the directory open as N itself: the kernel starts the lookup at that open
 * directory, whatever path now leads to it. So a directory opened one
 * component at a time from the root with O_DIRECTORY|O_NOFOLLOW (a symlink
 * swapped in anywhere makes the open fail) is a proof that cannot be
 * redirected afterwards: every create, rename, link and unlink here names
 * its target through that descriptor.
 *
 * O_PATH: the descriptor only names the directory (no read permission on
 * it is needed, as for a path walk). Where any of this is missing (no
 * /proc, another kernel, Deno without read/write permission on /proc), the
 * local provider refuses to start: see {@link probeDirFds}.
 */
import * as fsSync from "node:fs";
import { constants } from "node:fs";
import { sep } from "node:path";
import { isInside } from "../containment.ts";
import { FsError } from "../errors.ts";
import { fsErrorFromNode, nodeErrorCode } from "./node-errors.ts";
import { openAtNow } from "./openat.ts";

/** Linux O_PATH (the generic value; node:fs does not export it). */
export const O_PATH = 0o10000000;
const DIR_FLAGS = O_PATH | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);

/** The entry `name` of the directory open as `dirFd` (or that directory itself, without a name). */
export function at(dirFd: number, name?: string): string {
  return name === undefined ? `/proc/self/fd/${dirFd}` : `/proc/self/fd/${dirFd}/${name}`;
}

/**
 * Open the entry `name` of `dirFd` with `flags`: by openat(2) itself where
 * the runtime can call it (./openat.ts); else, or when that fails, through
 * /proc, which throws the Node-style error that says why.
 */
export function openEntry(dirFd: number, name: string, flags: number): number {
  const direct = openAtNow()?.(dirFd, name, flags) ?? -1;
  return direct >= 0 ? direct : fsSync.openSync(at(dirFd, name), flags);
}

/** Open the subdirectory `name` of `dirFd` without following a symlink. Node-style errors pass through. */
export function openChildDir(dirFd: number, name: string): number {
  return openEntry(dirFd, name, DIR_FLAGS);
}

/** Close a directory descriptor, ignoring failure (nothing was written through it). */
export function closeDir(fd: number): void {
  try {
    fsSync.closeSync(fd);
  } catch {
    // Already closed or never valid: nothing to release.
  }
}

/**
 * Open the directory at the real (symlink-free) path `real`, inside the
 * root held open as `rootFd` at `realRoot`, one component at a time with
 * O_NOFOLLOW. A component that is no longer a directory (a symlink or a
 * file swapped in since `real` was resolved) is refused with
 * FS_ACCESS_DENIED; nothing has been done at that point.
 */
export function openDirAt(rootFd: number, realRoot: string, real: string, path: string): number {
  if (!isInside(realRoot, real, sep)) {
    throw new FsError("FS_ACCESS_DENIED", `resolves outside the workspace root: ${path}`, { path });
  }
  const rest =
    real === realRoot
      ? []
      : real
          .slice(realRoot.length)
          .split(sep)
          .filter((n) => n !== "");
  let fd = openChildDir(rootFd, ".");
  for (const name of rest) {
    let next: number;
    try {
      next = openChildDir(fd, name);
    } catch (error) {
      const code = nodeErrorCode(error);
      if (code === "ELOOP" || code === "ENOTDIR") {
        throw new FsError("FS_ACCESS_DENIED", `a directory on the path was replaced while acting on it: ${path}`, {
          cause: error,
          path,
        });
      }
      throw fsErrorFromNode(error, "open", path);
    } finally {
      // Runs before `fd = next`: the parent is closed whether or not the child opened.
      closeDir(fd);
    }
    fd = next;
  }
  return fd;
}

/** Whether the directory open as `dirFd` is (still) inside the root, by the kernel's name for it. */
export function dirInside(dirFd: number, realRoot: string): boolean {
  try {
    return isInside(realRoot, fsSync.readlinkSync(at(dirFd)), sep);
  } catch {
    return false;
  }
}

/**
 * Open the root directory and prove that acting through `/proc/self/fd`
 * works here: the kernel names the descriptor, and a lookup through it
 * reaches the root itself. Throws FS_IO_ERROR (naming what is missing)
 * otherwise: serving without it would let a directory swap redirect writes.
 */
export function probeDirFds(realRoot: string): number {
  let fd: number;
  try {
    fd = fsSync.openSync(realRoot, DIR_FLAGS);
  } catch (error) {
    throw fsErrorFromNode(error, "open", realRoot);
  }
  try {
    const named = fsSync.readlinkSync(at(fd));
    const root = fsSync.statSync(realRoot);
    const through = fsSync.statSync(at(fd, "."));
    if (named !== realRoot || through.ino !== root.ino || through.dev !== root.dev) throw new Error("mismatch");
    return fd;
  } catch (error) {
    closeDir(fd);
    throw new FsError(
      "FS_IO_ERROR",
      "local storage needs Linux /proc/self/fd (usable by this process) to act inside proven directories, " +
        "and it is missing or not permitted here, so the workspace is not served (on Deno, run with --allow-all: " +
        "Deno lets only --allow-all use /proc/self)",
      { cause: error, path: realRoot },
    );
  }
}
