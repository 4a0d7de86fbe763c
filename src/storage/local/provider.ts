/**
 * Local-directory storage (Bun and Deno, through node:fs), Linux only.
 * This file is the thin provider object; the work is split by job:
 * ./resolve.ts (path resolution), ./dirfd.ts (acting inside a proven
 * directory), ./read.ts (opening with proof), ./scan.ts (reads for a search), ./write.ts (temp file and
 * rename/link, owner and mode), ./list.ts (listing), ./clean.ts (start-up
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
 * is atomic (readers see the old bytes or the new, never a mix), but an
 * `ifVersion` check and its rename are not atomic against other processes.
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
import { checkListOptions, finishListing, listDepth } from "../listing.ts";
import { createKeyedLock } from "../lock.ts";
import type {
  ListEntry,
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
import { closeDir, openDirAt, probeDirFds } from "./dirfd.ts";
import { walk } from "./list.ts";
import { ATTEMPTS, closeLater, fileEquals, openDirectHandle, openVerifiedHandle, readFile } from "./read.ts";
import { checkPath, type LocalContext, notRegular, realDirectory, type Resolved, resolve } from "./resolve.ts";
import { createDirCache } from "./dir-cache.ts";
import { loadOpenAt, openAtNow } from "./openat.ts";
import { createScanAhead, type ScanAhead } from "./scan-ahead.ts";
import { poolPossible, scanPool } from "./scan-pool.ts";
import { releaseLargeBuffer, scanLocalFile } from "./scan.ts";
import { handleStream } from "./stream.ts";
import { replaceTarget, unlinkEntry } from "./write.ts";
import { createKnownVersions } from "./known-versions.ts";

/** Options for {@link createLocalStorage}. */
export interface LocalStorageOptions {
  /**
   * Flush each temp file to disk (fdatasync) before renaming it into place,
   * so a power loss leaves the old or the new content, never an empty file.
   * Default true.
   */
  readonly fsync?: boolean;
}

/** Versions of what this process wrote last (see ./known-versions.ts): small files, 16 MiB in all. */
const known = createKnownVersions({ maxEntryBytes: SYNC_IO_BYTES, maxBytes: 16 * 1024 * 1024 });

function stale(path: string): FsError {
  return new FsError("FS_STALE_VERSION", `version mismatch: ${path}`, { path });
}

/**
 * Storage over the directory `root` (resolved with realpath now; it must
 * exist). Paths must already be normalised (use `guardStorage`); the
 * provider re-checks and refuses anything else with FS_INVALID_PATH, and
 * refuses the reserved temp-file names (see `./temp-name.ts`).
 */
export async function createLocalStorage(root: string, options: LocalStorageOptions = {}): Promise<Storage> {
  const realRoot = await realDirectory(root);
  const rootFd = probeDirFds(realRoot);
  await loadOpenAt(rootFd);
  const ctx: LocalContext = { realRoot, rootFd, fsync: options.fsync ?? true };
  const lock = createKeyedLock();
  const dirs = createDirCache(ctx.rootFd);
  // Reads a search announced, on the pool's thread (made at the first announcement where there is a pool).
  let ahead: ScanAhead | undefined;
  const scanAhead = (paths: readonly string[]): void => {
    // Only where the main thread's scans open by openat too (tests switch it off to compare with /proc).
    if (openAtNow() === undefined) return;
    const pool = scanPool();
    if (pool !== undefined) (ahead ??= createScanAhead(dirs, pool)).announce(paths);
  };
  const knownKey = (path: string) => `${realRoot}\0${path}`;
  /** The version of `bytes` just read at `path`: hashed, unless they are what this process last wrote there. */
  const versionOf = (path: string, bytes: Uint8Array) => known.lookup(knownKey(path), bytes) ?? localVersion(bytes);

  /**
   * Run `fn` holding the lock of the path's target (its real path, so
   * aliases through inside symlinks share one lock), with a resolution made
   * under the lock.
   */
  /**
   * Whether the file at `path` (re-read under its lock) is the condition's
   * version. With the bytes the caller read as that version, the file is
   * compared with them in slices (no SHA-256, no second copy): equal bytes
   * are that version. Otherwise, or when they differ, it is read and hashed.
   * `hold` gets the descriptor of the file read, for the caller to close.
   */
  async function holdsVersion(
    path: string,
    condition: { readonly version: Version; readonly bytes?: Uint8Array },
    hold: (fd: number) => void,
  ): Promise<boolean> {
    if (condition.bytes !== undefined) {
      const compared = await fileEquals(ctx, path, condition.bytes);
      if (compared.equal) {
        hold(compared.fd);
        return true;
      }
      closeLater(compared.fd);
    }
    const current = await readFile(ctx, path, Number.POSITIVE_INFINITY, true);
    hold(current.fd!);
    return (await localVersion(current.bytes)) === condition.version;
  }

  async function withTargetLock<T>(path: string, fn: (resolved: Resolved) => Promise<T>): Promise<T> {
    const keyOf = (r: Resolved) => (r.stats ? r.real : r.entry);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const key = keyOf(resolve(ctx, path));
      const outcome = await lock.run(key, async () => {
        const resolved = resolve(ctx, path);
        return keyOf(resolved) === key ? { value: await fn(resolved) } : null;
      });
      if (outcome) return outcome.value;
    }
    throw new FsError("FS_IO_ERROR", `path kept changing while locking it: ${path}`, { path });
  }

  return {
    kind: "local",
    root: realRoot,

    async stat(path: string): Promise<StatResult | null> {
      checkPath(path);
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
      checkPath(path);
      await pace();
      const { bytes } = await readFile(ctx, path, options?.maxBytes);
      return { bytes, version: await versionOf(path, bytes) };
    },

    async readStream(path: string): Promise<ReadStreamResult> {
      checkPath(path);
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
      checkPath(path);
      await pace();
      return scanLocalFile(ctx, dirs, path, options, ahead);
    },

    async write(path: string, bytes: Uint8Array, condition: WriteCondition = { kind: "none" }): Promise<WriteResult> {
      checkPath(path);
      await pace();
      // The version of the new bytes is needed only for the result: it is hashed while the disk
      // flushes the temp file (see beforeRename), or below if the write never got there.
      let version: Promise<Version> | undefined;
      const hashNew = () => {
        version ??= Promise.resolve(localVersion(bytes));
        version.catch(() => {}); // awaited below; a failure before that must not be an unhandled rejection
      };
      return withTargetLock(path, async (resolved) => {
        const existing = resolved.stats;
        if (existing?.isDirectory()) throw new FsError("FS_IS_DIRECTORY", `is a directory: ${path}`, { path });
        if (existing && !existing.isFile()) throw notRegular(path);
        if (condition.kind === "ifAbsent" && existing) {
          throw new FsError("FS_ALREADY_EXISTS", `already exists: ${path}`, { path });
        }
        if (condition.kind === "ifVersion" && !existing) throw stale(path);
        // The file being replaced stays open until after the rename and is closed after the reply
        // (closeLater): the last close of an unlinked file frees its blocks (~110 us on this ext4),
        // work that would otherwise happen inside the rename, before the reply.
        let replaced: number | undefined;
        // Runs while the temp file is flushed, before the rename: the compare-and-swap check (the file
        // re-read under the lock, as close to the rename as it can be) costs no time of its own there.
        const beforeRename = async () => {
          hashNew();
          // Remembered here, off the reply's path: an entry says only that these bytes have this version,
          // true whether or not the rename follows (a failed write's entry is a later miss, nothing worse).
          if (bytes.length <= SYNC_IO_BYTES) known.remember(knownKey(path), bytes, await version!);
          if (condition.kind === "ifVersion" && !(await holdsVersion(path, condition, (fd) => (replaced = fd)))) throw stale(path);
        };
        try {
          const hold = condition.kind !== "ifVersion" && existing !== null;
          const result = await replaceTarget(ctx, path, bytes, condition, resolved, hold, beforeRename);
          replaced ??= result.held;
          hashNew();
          return { version: await version!, created: result.created };
        } finally {
          if (replaced !== undefined) closeLater(replaced);
        }
      });
    },

    async list(path: string, options?: ListOptions): Promise<ListResult> {
      checkPath(path);
      checkListOptions(options);
      // A search's walk (listing without sizes) lists directory after directory: this one is the
      // cache's descriptor, pinned while listed (the same one its files are then opened through; the
      // search lets them go when it ends, see endScan), else resolved (symlinks followed inside) and
      // opened from the root.
      const pinned = options?.sizes === false ? dirs.pin(path) : undefined;
      let dirFd = pinned;
      if (dirFd === undefined) {
        const resolved = resolve(ctx, path);
        if (!resolved.stats) throw new FsError("FS_NOT_FOUND", `not found: ${path}`, { path });
        if (!resolved.stats.isDirectory()) throw new FsError("FS_NOT_DIRECTORY", `not a directory: ${path}`, { path });
        dirFd = openDirAt(ctx.rootFd, ctx.realRoot, resolved.real, path);
      }
      const entries: ListEntry[] = [];
      try {
        await walk(ctx, dirFd, path, 1, listDepth(options), entries, options?.sizes !== false);
      } finally {
        if (pinned !== undefined) dirs.unpin(pinned);
        else closeDir(dirFd);
      }
      return finishListing(entries, options?.limit);
    },

    async delete(path: string, options?: { ifVersion?: Version }): Promise<void> {
      checkPath(path);
      await pace();
      await withTargetLock(path, async (resolved) => {
        const existing = resolved.stats;
        if (existing?.isDirectory()) throw new FsError("FS_IS_DIRECTORY", `is a directory: ${path}`, { path });
        if (!existing) {
          if (options?.ifVersion !== undefined) throw stale(path);
          throw new FsError("FS_NOT_FOUND", `not found: ${path}`, { path });
        }
        if (!existing.isFile()) throw notRegular(path);
        if (options?.ifVersion !== undefined) {
          const current = localVersion((await readFile(ctx, path)).bytes);
          if ((await current) !== options.ifVersion) throw stale(path);
        }
        // As in write: the blocks are freed by a later close, not inside the unlink.
        known.forget(knownKey(path));
        const held = unlinkEntry(ctx, resolved, path, resolved.entry === resolved.real);
        if (held !== undefined) closeLater(held);
      });
    },
  };
}
