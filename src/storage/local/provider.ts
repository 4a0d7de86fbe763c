/**
 * Local-directory storage (Bun and Deno, through node:fs), Linux only.
 * This file is the thin provider object; the work is split by job:
 * ./resolve.ts (path resolution), ./dirfd.ts (acting inside a proven
 * directory), ./read.ts (opening with proof), ./scan.ts (reads for a search), ./write.ts (temp file and
 * rename/link, owner and mode), ./update.ts (write and delete under the
 * target's lock, with their conditions), ./list.ts (listing), ./clean.ts (start-up
 * sweep), ./io.ts (blocking vs thread-pool I/O), ./stream.ts (readStream).
 *
 * Containment. A path is resolved one component at a time from the real
 * root; a symlink is followed only when its real path stays inside the
 * root (a dangling or looping one is refused outright). That decides what
 * a path means. Acting on it never re-resolves a path string: the target's
 * directory is opened from the root, one component at a time, with
 * O_PATH|O_DIRECTORY|O_NOFOLLOW, and every create, rename, link, unlink
 * and careful read goes through `/proc/self/fd/N/name` (./dirfd.ts). A
 * directory swapped for a symlink between the resolution and the act makes
 * the open fail (refused, FS_ACCESS_DENIED) or is too late to matter (the
 * held directory is the real one, wherever it is now named inside the
 * root). Temp files are created, renamed and removed in that same held
 * directory, so none is ever left outside. Without /proc/self/fd (another
 * kernel, Deno without --allow-all) the provider refuses to start.
 *
 * What a race can still win: a process that *renames* a workspace
 * directory out of the root (or exchanges it with a directory outside, on
 * the same filesystem) while a write is in flight gets that write in the
 * moved directory; a check of the held directory's kernel name just before
 * the rename or link narrows that to microseconds. A swap by symlink, the
 * attack a workspace's own contents make possible, wins nothing: measured
 * by test/reliability/swap-race.test.ts. Hard links are directory entries
 * like any other and are not detected; an overwrite replaces the file (a
 * new inode), so another link to it keeps the old content.
 *
 * Concurrency. All writes and deletes of one target (keyed by its real path)
 * run under an in-process lock, so `ifVersion` is a true compare-and-swap
 * among callers of one storage instance. Across processes: `ifAbsent` is
 * atomic (link() fails with EEXIST if anyone created the target), each write
 * is atomic (readers see the old bytes or the new, never a mix), and a
 * check and its rename or unlink hold a lock file beside the target
 * (./target-lock.ts), so toolwarden processes on one machine cannot
 * interleave them.
 *
 * Versions are SHA-256 content hashes (see ../version.ts), so `stat` and the
 * `ifVersion` check read and hash the whole file (~1 ms per MiB).
 *
 * Speed. Path walks, checks and small reads and writes are blocking calls
 * (see ./io.ts for why and where the line is), paced so that other
 * requests get a turn every few ms; fdatasync and large content go through
 * the thread pool. A file replaced or deleted is closed after the reply, so
 * freeing its blocks is not part of the write.
 */
import { bytesStream } from "../body-stream.ts";
import { FileTooLargeError, FsError } from "../errors.ts";
import { createKeyedLock } from "../lock.ts";
import type {
  ListOptions,
  ListResult,
  ReadOptions,
  ReadResult,
  ReadStreamResult,
  ScanFileOptions,
  StatResult,
  Storage,
  Version,
  WriteCondition,
  WriteResult,
} from "../types.ts";
import { localVersion, pace, SYNC_IO_BYTES } from "./io.ts";
import { closeDir, probeDirFds } from "./dirfd.ts";
import { listDirectory } from "./list.ts";
import { openDirectHandle, openVerifiedHandle, readFile } from "./read.ts";
import { checkPath, type LocalContext, notRegular, realDirectory, type Resolved, resolve } from "./resolve.ts";
import { createDirCache } from "./dir-cache.ts";
import { loadOpenAt, openAtNow } from "./openat.ts";
import { createScanAhead, type ScanAhead } from "./scan-ahead.ts";
import { poolPossible, scanPool } from "./scan-pool.ts";
import { releaseLargeBuffer, scanLocalFile } from "./scan.ts";
import { handleStream } from "./stream.ts";
import { deleteLocal, type UpdateContext, writeLocal } from "./update.ts";
import { createKnownVersions, knownKey } from "./known-versions.ts";

/** Options for {@link createLocalStorage}. */
export interface LocalStorageOptions {
  /**
   * Flush each temp file to disk (fdatasync) before renaming it into place,
   * so a power loss leaves the old or the new content, never an empty file.
   * Default true.
   */
  readonly fsync?: boolean;
}

/**
 * A local storage that can let go of its descriptors. `close` is for an
 * owner that knows no call is in flight and none will come: a descriptor
 * number closed under a call could be reused by another open, and the call
 * would then act in whatever directory that is.
 */
export interface LocalStorage extends Storage {
  /** Close the root's descriptor and every one cached; the storage must not be used after. */
  close(): void;
}

/** Versions of what this process wrote last (see ./known-versions.ts): small files, 16 MiB in all. */
const known = createKnownVersions({ maxEntryBytes: SYNC_IO_BYTES, maxBytes: 16 * 1024 * 1024 });

/**
 * Storage over the directory `root` (resolved with realpath now; it must
 * exist). Paths must already be normalised (use `guardStorage`); the
 * provider re-checks and refuses anything else with FS_INVALID_PATH, and
 * refuses the reserved temp-file names (see `./temp-name.ts`).
 */
export async function createLocalStorage(root: string, options: LocalStorageOptions = {}): Promise<LocalStorage> {
  const realRoot = await realDirectory(root);
  const rootFd = probeDirFds(realRoot);
  await loadOpenAt(rootFd);
  const ctx: LocalContext = { realRoot, rootFd, fsync: options.fsync ?? true };
  const dirs = createDirCache(ctx.rootFd);
  const updates: UpdateContext = { ctx, lock: createKeyedLock(), known };
  // Reads a search announced, on the pool's thread (made at the first announcement where there is a pool).
  let ahead: ScanAhead | undefined;
  const scanAhead = (paths: readonly string[]): void => {
    // Only where the main thread's scans open by openat too (tests switch it off to compare with /proc).
    if (openAtNow() === undefined) return;
    const pool = scanPool();
    if (pool !== undefined) (ahead ??= createScanAhead(dirs, pool)).announce(paths);
  };
  /** The version of `bytes` just read at `path`: hashed, unless they are what this process last wrote there. */
  const versionOf = (path: string, bytes: Uint8Array) => known.lookup(knownKey(realRoot, path), bytes) ?? localVersion(bytes);

  return {
    kind: "local",
    root: realRoot,

    async stat(path: string): Promise<StatResult | null> {
      checkPath(path, realRoot);
      await pace();
      let resolved: Resolved;
      try {
        resolved = resolve(ctx, path);
      } catch (error) {
        if (error instanceof FsError && (error.code === "FS_NOT_FOUND" || error.code === "FS_NOT_DIRECTORY")) return null;
        throw error;
      }
      const stats = resolved.stats;
      if (!stats) return null;
      if (stats.isDirectory()) return { path, kind: "directory", size: 0, mtimeMs: stats.mtimeMs };
      if (!stats.isFile()) throw notRegular(path);
      const { bytes, mtimeMs } = await readFile(ctx, path);
      return { path, kind: "file", size: bytes.length, version: await versionOf(path, bytes), mtimeMs };
    },

    async read(path: string, options?: ReadOptions): Promise<ReadResult> {
      checkPath(path, realRoot);
      await pace();
      const { bytes } = await readFile(ctx, path, options?.maxBytes);
      return { bytes, version: await versionOf(path, bytes) };
    },

    async readStream(path: string): Promise<ReadStreamResult> {
      checkPath(path, realRoot);
      await pace();
      // A small file is read now, in one blocking call, and streamed from memory: an async file
      // handle costs several thread-pool round trips (open, stat, reads, close) for what one blocking
      // read does in microseconds, and small views are the commonest call there is.
      const small = await readFile(ctx, path, SYNC_IO_BYTES).catch((error: unknown) => {
        if (error instanceof FileTooLargeError) return undefined;
        throw error;
      });
      if (small) {
        const version = await versionOf(path, small.bytes);
        return { stream: bytesStream(small.bytes), size: small.bytes.length, version: Promise.resolve(version) };
      }
      // The same resolution and proofs as `read`; the handle then streams (see ./stream.ts).
      const opened = (await openDirectHandle(ctx, path)) ?? (await openVerifiedHandle(ctx, path));
      return handleStream(opened.handle, path, opened.held.size);
    },

    // Only where there can be a pool: elsewhere a search need not announce anything.
    ...(poolPossible() ? { scanAhead } : {}),

    endScan(): void {
      ahead?.clear();
      dirs.clear();
      releaseLargeBuffer();
    },

    async scanFile<T>(path: string, options: ScanFileOptions<T>): Promise<T> {
      checkPath(path, realRoot);
      await pace();
      return scanLocalFile(ctx, dirs, path, options, ahead);
    },

    write(path: string, bytes: Uint8Array, condition?: WriteCondition): Promise<WriteResult> {
      return writeLocal(updates, path, bytes, condition);
    },

    list(path: string, options?: ListOptions): Promise<ListResult> {
      return listDirectory(ctx, dirs, path, options);
    },

    delete(path: string, options?: { ifVersion?: Version }): Promise<void> {
      return deleteLocal(updates, path, options);
    },

    close(): void {
      ahead?.clear();
      dirs.clear();
      closeDir(rootFd);
    },
  };
}
