/**
 * `scanFile` for local storage (see `ScanFileOptions`): what a directory
 * search needs of each of thousands of files, at the least cost per file.
 *
 * - Opened through its directory's descriptor, kept for the burst of reads
 *   (./dir-cache.ts), with O_NOFOLLOW: one lookup (openat(2) itself where
 *   the runtime can call it, ./openat.ts). Anything else (a symlink
 *   on the way, a race, an error) takes `read`'s way and proof (./read.ts),
 *   and its precise refusals.
 * - A file up to {@link SYNC_IO_BYTES} is read in one blocking call into one
 *   buffer reused from file to file (the scan and its callbacks run without
 *   a pause in between, so no other scan can touch the buffer meanwhile):
 *   no allocation, no garbage per file.
 * - A larger file: its first bytes are read and judged before anything
 *   else; the rest is read (on the thread pool, like `read`) only when the
 *   head did not end the scan, so a large binary costs one small read.
 *   That read goes into one large buffer kept while reads come (released
 *   {@link LARGE_IDLE_MS} after the last), when no other scan holds it:
 *   fresh memory costs a page fault per 4 KiB, as much as the read.
 * - The version (SHA-256 of the bytes) is computed only when the callback
 *   asks for it: most files of a search match nothing and need none.
 */
import * as fsSync from "node:fs";
import { join } from "node:path";
import { setTimeout } from "node:timers";
import { FileTooLargeError, FsError } from "../errors.ts";
import type { ScanFileOptions } from "../types.ts";
import { localVersion, readAll, readAsync, SYNC_IO_BYTES } from "./io.ts";
import { fsErrorFromNode } from "./node-errors.ts";
import { openEntry } from "./dirfd.ts";
import type { DirCache } from "./dir-cache.ts";
import type { ScanAhead } from "./scan-ahead.ts";
import { ATTEMPTS, type Held, openDirect, openVerified, READ_FLAGS } from "./read.ts";
import { openFilePath } from "./proc-fd.ts";
import { type LocalContext, resolveFile } from "./resolve.ts";
import { fstatFd } from "./stat.ts";

/** Room for a file of {@link SYNC_IO_BYTES} plus the read that finds its end. */
const LENT_BYTES = SYNC_IO_BYTES + 4096;
let lent: Uint8Array | undefined;

/**
 * Read the open file `fd` whole into the shared buffer, or undefined when it
 * holds more than the buffer does (it grew since its size was taken). A
 * read that stops exactly at `size` (the file's size when opened) is taken
 * as the end without a second read to confirm it: bytes appended after that
 * read are as unseen as bytes appended after a confirming one.
 */
function readLent(fd: number, size: number): Uint8Array | undefined {
  const buffer = (lent ??= new Uint8Array(LENT_BYTES));
  let filled = 0;
  for (;;) {
    if (filled === buffer.length) return undefined;
    const n = fsSync.readSync(fd, buffer, filled, buffer.length - filled, filled);
    if (n === 0 || (filled === 0 && n === size)) return buffer.subarray(0, filled + n);
    filled += n;
  }
}

/** The large buffer is let go this long (ms) after its last use. */
export const LARGE_IDLE_MS = 50;

/** One buffer for large files, lent to one scan at a time (its read awaits the thread pool). */
const large = {
  buffer: undefined as Uint8Array | undefined,
  busy: false,
  lastUse: 0,
  timer: false,
};

function releaseLargeLater(): void {
  if (large.timer) return;
  large.timer = true;
  const check = () => {
    if (!large.busy && performance.now() - large.lastUse >= LARGE_IDLE_MS) {
      large.buffer = undefined;
      large.timer = false;
      return;
    }
    (setTimeout(check, LARGE_IDLE_MS) as { unref?: () => void }).unref?.();
  };
  (setTimeout(check, LARGE_IDLE_MS) as { unref?: () => void }).unref?.();
}

/**
 * Read the open file `fd` whole into `buffer` on the thread pool, or
 * undefined when it holds more than the buffer does.
 */
async function readInto(fd: number, buffer: Uint8Array, size: number): Promise<Uint8Array | undefined> {
  let filled = 0;
  for (;;) {
    if (filled === buffer.length) return undefined;
    const n = await readAsync(fd, buffer, filled, buffer.length - filled, filled);
    if (n === 0 || (filled === 0 && n === size)) return buffer.subarray(0, filled + n);
    filled += n;
  }
}

/** Read a large file whole: into the large buffer when it is free (then `lent` is true), else fresh memory. */
async function readLarge(fd: number, size: number): Promise<{ bytes: Uint8Array; lent: boolean }> {
  if (!large.busy) {
    large.busy = true;
    try {
      if (large.buffer === undefined || large.buffer.length < size + 4096) large.buffer = new Uint8Array(size + 4096 + (size >>> 3));
      const bytes = await readInto(fd, large.buffer, size);
      if (bytes !== undefined) return { bytes, lent: true };
    } catch (error) {
      large.busy = false;
      throw error;
    }
    large.busy = false;
  }
  return { bytes: await readAll(fd, size), lent: false };
}

/** Let go of the large buffer now unless a scan holds it (a search ended). */
export function releaseLargeBuffer(): void {
  if (!large.busy) large.buffer = undefined;
}

/** Give the large buffer back once `settled` (a version still being hashed from it) is done. */
function returnLarge(settled: Promise<unknown> | undefined): void {
  const free = () => {
    large.busy = false;
    large.lastUse = performance.now();
    releaseLargeLater();
  };
  if (settled) settled.then(free, free);
  else free();
}

/** The first `count` bytes of the open file (fewer when it is shorter). */
function readHead(fd: number, count: number): Uint8Array {
  const head = new Uint8Array(count);
  let filled = 0;
  while (filled < count) {
    const n = fsSync.readSync(fd, head, filled, count - filled, filled);
    if (n === 0) break;
    filled += n;
  }
  return head.subarray(0, filled);
}

/**
 * Open `path` through its directory's cached descriptor: a regular file at
 * that name, not a symlink; null for anything else (the caller's careful
 * way then decides, with its refusals).
 */
function openCached(dirs: DirCache, path: string): Held | null {
  const slash = path.lastIndexOf("/");
  const dirFd = dirs.get(slash === -1 ? "" : path.slice(0, slash));
  if (dirFd === undefined) return null;
  let fd: number;
  try {
    fd = openEntry(dirFd, path.slice(slash + 1), READ_FLAGS);
  } catch {
    return null;
  }
  try {
    const held = fstatFd(fd);
    if (held.isFile()) return { fd, held };
  } catch {
    // The careful way reports what is wrong.
  }
  fsSync.closeSync(fd);
  return null;
}

/**
 * The scan of a file the pool read (./scan-ahead.ts), or undefined when
 * its version was asked for: its content will be shown, and the pool's
 * bytes have no proof of where they were read (the caller reads it again,
 * the way that proves it).
 */
function scanPooled<T>(bytes: Uint8Array, options: ScanFileOptions<T>): { result: T } | undefined {
  const verdict = options.head(bytes.subarray(0, options.headBytes));
  if (verdict !== undefined) return { result: verdict };
  let asked = false;
  const result = options.whole(bytes, () => {
    asked = true;
    return localVersion(bytes);
  });
  return asked ? undefined : { result };
}

/**
 * Scan `path` (checked and normalised by the caller). A small file goes from
 * its read to the callbacks without an `await` (so without a pause in which
 * another scan could refill the shared buffer). One the pool read ahead
 * (`ahead`) is judged from those bytes.
 */
export async function scanLocalFile<T>(ctx: LocalContext, dirs: DirCache, path: string, options: ScanFileOptions<T>, ahead?: ScanAhead): Promise<T> {
  const { maxBytes, headBytes } = options;
  const pooled = ahead?.take(path);
  if (pooled !== undefined) {
    const bytes = await pooled;
    // Over the limit: read again, which refuses it with the size found then.
    const scanned = bytes !== undefined && bytes.length <= maxBytes ? scanPooled(bytes, options) : undefined;
    if (scanned !== undefined) return scanned.result;
  }
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const cached = attempt === 0 ? openCached(dirs, path) : null;
    const opened = cached || (attempt === 0 && openDirect(ctx, path)) || openVerified(ctx, resolveFile(ctx, path), path);
    if (!opened) continue;
    const { fd, held } = opened;
    let lent = false;
    let hashing: Promise<unknown> | undefined;
    try {
      let bytes: Uint8Array | undefined;
      let judged = false;
      try {
        if (held.size > maxBytes) throw new FileTooLargeError(path, held.size, maxBytes);
        if (held.size <= SYNC_IO_BYTES) bytes = readLent(fd, held.size);
        if (bytes === undefined) {
          // Large (or grown past the shared buffer): judge the head before reading the rest.
          const verdict = options.head(readHead(fd, headBytes));
          if (verdict !== undefined) return verdict;
          judged = true;
          ({ bytes, lent } = await readLarge(fd, held.size));
        }
        // Appended to since the fstat: the limit is about what was read.
        if (bytes.length > maxBytes) throw new FileTooLargeError(path, bytes.length, maxBytes);
      } catch (error) {
        throw fsErrorFromNode(error, "read", path);
      }
      const whole = bytes;
      if (!judged) {
        const verdict = options.head(whole.subarray(0, headBytes));
        if (verdict !== undefined) return verdict;
      }
      // The version is asked for only of a file whose content will be shown (a search's match).
      let asked = false;
      const result = options.whole(whole, () => {
        asked = true;
        const version = localVersion(whole);
        if (lent && typeof version !== "string") hashing = version;
        return version;
      });
      // Opened through a kept directory descriptor, a file has no proof of its own: that directory may
      // have left the root since it was reached (renamed out by another process). What is shown must be
      // where it is now inside the root, else it is read again the careful way.
      if (cached && asked && openFilePath(fd) !== join(ctx.realRoot, path)) continue;
      return result;
    } finally {
      fsSync.closeSync(fd);
      // The large buffer is this file's until `whole` returns and any hash of it settles.
      if (lent) returnLarge(hashing);
    }
  }
  throw new FsError("FS_IO_ERROR", `file kept being replaced while opening it: ${path}`, { path });
}
