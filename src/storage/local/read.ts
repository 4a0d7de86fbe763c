/**
 * Opening a file for reading with proof that what is held is the regular
 * file at a symlink-free path inside the root: O_NOFOLLOW, then either the
 * kernel's name for the open file (./proc-fd.ts) or an inode check against
 * the careful walk's real path.
 */
import * as fsSync from "node:fs";
import { constants } from "node:fs";
import * as fs from "node:fs/promises";
import { basename, dirname, sep } from "node:path";
import { FileTooLargeError, FsError } from "../errors.ts";
import { at, closeDir, openDirAt } from "./dirfd.ts";
import { contentEquals, readAll } from "./io.ts";
import { fsErrorFromNode, nodeErrorCode } from "./node-errors.ts";
import { openFilePath, procFdUsable } from "./proc-fd.ts";
import { joinReal, type LocalContext, notRegular, type Resolved, resolveFile } from "./resolve.ts";
import { type FileStat, fstatFd, lstatPath } from "./stat.ts";

// Absent on Windows; there the final-component symlink check relies on the walk alone.
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
// A FIFO swapped in after the check must not block the open forever.
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
export const READ_FLAGS = constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK;
export const ATTEMPTS = 3;

/** An open file and its stats. */
export interface Held {
  readonly fd: number;
  readonly held: FileStat;
}

/** Refuse what is held unless it is a regular file. */
function checkRegular(held: FileStat, path: string): void {
  if (held.isDirectory()) throw new FsError("FS_IS_DIRECTORY", `is a directory: ${path}`, { path });
  if (!held.isFile()) throw notRegular(path);
}

/**
 * Open the resolved file through its directory, opened from the root
 * without following symlinks (./dirfd.ts): what is held is the file of
 * that name inside the root, whatever a concurrent swap does. Null means
 * a symlink now stands at the name: retry with a fresh resolution.
 */
function openInDir<T>(ctx: LocalContext, resolved: Resolved, path: string, open: (name: string) => T): T | null {
  const dirFd = openDirAt(ctx.rootFd, ctx.realRoot, dirname(resolved.real), path);
  try {
    return open(at(dirFd, basename(resolved.real)));
  } catch (error) {
    if (nodeErrorCode(error) === "ELOOP") return null;
    throw fsErrorFromNode(error, "open", path);
  } finally {
    closeDir(dirFd);
  }
}

/**
 * Whether the file open as `fd` is at `real` now, by the kernel's name for
 * it. The directory opened from the root is proof against a symlink swapped
 * in, not against that directory being renamed out of the root between its
 * open and the file's: the file opened through it is then an outside one.
 * A race showed one in ~50,000 reads, with a local process moving a
 * directory out and an outside file into it in a loop (docs/reliability.md).
 */
function heldAt(fd: number, real: string): boolean {
  try {
    return fsSync.readlinkSync(at(fd)) === real;
  } catch {
    return false;
  }
}

const openForReading = (full: string) => fsSync.openSync(full, READ_FLAGS);

/**
 * The file `resolved` names, opened through its directory (see
 * {@link openInDir}) and still where it was resolved (see {@link heldAt});
 * null means retry. `open` opens the name through the directory (tests
 * move things in between).
 */
export function openProven(ctx: LocalContext, resolved: Resolved, path: string, open: (full: string) => number = openForReading): number | null {
  const fd = openInDir(ctx, resolved, path, open);
  if (fd === null) return null;
  if (heldAt(fd, resolved.real)) return fd;
  fsSync.closeSync(fd);
  return null;
}

/** {@link openProven}, and check it is a regular file; null means retry. */
export function openVerified(ctx: LocalContext, resolved: Resolved, path: string): Held | null {
  const fd = openProven(ctx, resolved, path);
  if (fd === null) return null;
  try {
    const held = fstatFd(fd);
    checkRegular(held, path);
    return { fd, held };
  } catch (error) {
    fsSync.closeSync(fd);
    throw fsErrorFromNode(error, "open", path);
  }
}

/**
 * The path the direct way opens for `path` (see {@link openDirect}), when
 * the kernel can name open files here and an lstat finds a regular file
 * there (never open anything else: a device could act on open).
 */
function directCandidate(ctx: LocalContext, path: string): string | undefined {
  if (!procFdUsable() || sep !== "/") return undefined;
  const full = joinReal(ctx.realRoot, path);
  try {
    return lstatPath(full).isFile() ? full : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the open file with stats `held` is proven to be the regular file at `full`. */
function provenAt(fd: number, held: FileStat, full: string): boolean {
  return held.isFile() && openFilePath(fd) === full;
}

/**
 * The fast way to open `path` for reading: lstat, open, fstat, and the
 * kernel's name for the open file, which must be exactly the path opened.
 * That proves what is held is a regular file at a symlink-free path inside
 * the root, in 4 syscalls where the careful walk takes one per path
 * component plus a realpath. Null for anything else (a symlink on the
 * way, a race, an error, no /proc): the careful walk then decides, with
 * its precise refusals.
 */
export function openDirect(ctx: LocalContext, path: string): Held | null {
  const full = directCandidate(ctx, path);
  if (full === undefined) return null;
  let fd: number;
  try {
    fd = fsSync.openSync(full, READ_FLAGS);
  } catch {
    return null;
  }
  try {
    const held = fstatFd(fd);
    if (provenAt(fd, held, full)) return { fd, held };
  } catch {
    // The careful walk reports what is wrong.
  }
  fsSync.closeSync(fd);
  return null;
}

/** {@link openDirect} for a stream: the same proof, on a FileHandle. */
export async function openDirectHandle(ctx: LocalContext, path: string): Promise<{ handle: fs.FileHandle; held: FileStat } | null> {
  const full = directCandidate(ctx, path);
  if (full === undefined) return null;
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(full, READ_FLAGS);
  } catch {
    return null;
  }
  try {
    const held = await handle.stat();
    if (provenAt(handle.fd, held, full)) return { handle, held };
  } catch {
    // As in openDirect.
  }
  await handle.close();
  return null;
}

/** Open `path` for streaming with the careful walk's proof (after {@link openDirectHandle} said no). */
export async function openVerifiedHandle(ctx: LocalContext, path: string): Promise<{ handle: fs.FileHandle; held: FileStat }> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const fd = openProven(ctx, resolveFile(ctx, path), path);
    if (fd === null) continue;
    let handle: fs.FileHandle;
    try {
      // The same open file, as a FileHandle: through its own kernel name (a magic link, so no O_NOFOLLOW).
      handle = await fs.open(at(fd), constants.O_RDONLY | O_NONBLOCK);
    } finally {
      fsSync.closeSync(fd);
    }
    try {
      const held = await handle.stat();
      checkRegular(held, path);
      return { handle, held };
    } catch (error) {
      await handle.close();
      throw fsErrorFromNode(error, "open", path);
    }
  }
  throw new FsError("FS_IO_ERROR", `file kept being replaced while opening it: ${path}`, { path });
}

/**
 * The bytes of `path`. With `keep`, the file stays open and its descriptor
 * is returned for the caller to close (see {@link closeLater}).
 */
export async function readFile(
  ctx: LocalContext,
  path: string,
  maxBytes = Number.POSITIVE_INFINITY,
  keep = false,
): Promise<{ bytes: Uint8Array; mtimeMs: number; fd?: number }> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const opened = (attempt === 0 && openDirect(ctx, path)) || openVerified(ctx, resolveFile(ctx, path), path);
    if (!opened) continue;
    const { fd, held } = opened;
    let kept = false;
    try {
      if (held.size > maxBytes) throw new FileTooLargeError(path, held.size, maxBytes);
      const bytes = await readAll(fd, held.size);
      // Appended to since the fstat: the limit is about what was read.
      if (bytes.length > maxBytes) throw new FileTooLargeError(path, bytes.length, maxBytes);
      kept = keep;
      return { bytes, mtimeMs: held.mtimeMs, fd: keep ? fd : undefined };
    } catch (error) {
      throw fsErrorFromNode(error, "read", path);
    } finally {
      if (!kept) fsSync.closeSync(fd);
    }
  }
  throw new FsError("FS_IO_ERROR", `file kept being replaced while opening it: ${path}`, { path });
}

/**
 * Whether `path` holds exactly `expected` (compared in slices, see
 * `contentEquals`), opened with the same proofs as {@link readFile}. The
 * file stays open and its descriptor is returned for the caller to close,
 * as with readFile's `keep`.
 */
export async function fileEquals(ctx: LocalContext, path: string, expected: Uint8Array): Promise<{ equal: boolean; fd: number }> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const opened = (attempt === 0 && openDirect(ctx, path)) || openVerified(ctx, resolveFile(ctx, path), path);
    if (!opened) continue;
    const { fd, held } = opened;
    try {
      return { equal: held.size === expected.length && (await contentEquals(fd, expected)), fd };
    } catch (error) {
      fsSync.closeSync(fd);
      throw fsErrorFromNode(error, "read", path);
    }
  }
  throw new FsError("FS_IO_ERROR", `file kept being replaced while opening it: ${path}`, { path });
}

/**
 * Close `fd` once the current work is done (the reply sent), ignoring
 * failure: nothing waits for it. The last close of a replaced file frees
 * its blocks (~100 us here); with a callback, Node, Deno and Bun (1.4: 17
 * us on the calling thread) do that on a thread pool, and the timer puts
 * even the hand-off after the reply.
 */
export function closeLater(fd: number): void {
  setTimeout(() => fsSync.close(fd, () => {}), 0);
}
