/**
 * Local-directory storage (Bun and Deno, through node:fs).
 *
 * Containment. Every operation walks the path one component at a time from
 * the real root; a symlink is followed only when its real path stays inside
 * the root (a dangling or looping symlink is refused outright). Reads open the
 * resolved file with O_NOFOLLOW and then check that the inode they hold is
 * still the one at a symlink-free path inside the root. Where the kernel can
 * name an open file (./proc-fd.ts), a read first tries the direct way: open
 * the path as given and accept the file only if the kernel's name for it is
 * exactly that path (no symlink anywhere on it, inside the root); otherwise
 * the walk decides. Writes create a temp file with a random name next to the
 * target, check that it landed inside, and rename (or link) it into place.
 *
 * Residual TOCTOU window: node:fs has no openat/renameat, so a process that
 * can modify the workspace concurrently can swap a parent directory for a
 * symlink between a check and the syscall that follows it. What it can win
 * that way: a read refused (inode check), an empty directory created outside
 * by the parent-creation step, or a rename aimed at a directory where no file
 * of our random temp name exists (it fails). Reading a file outside needs two
 * precisely timed swaps around the post-open check. The guarantee is
 * therefore against what a caller of this API can do (paths, pre-existing
 * symlinks); it is not a boundary against concurrent local processes (the
 * local `bash` tool already runs with the user's full rights anyway).
 * Hard links are directory entries like any other and are not detected.
 *
 * Concurrency. All writes and deletes of one target (keyed by its real path)
 * run under an in-process lock, so `ifVersion` is a true compare-and-swap
 * among callers of one storage instance. Across processes: `ifAbsent` is
 * atomic (link() fails with EEXIST if anyone created the target), each write
 * is atomic (readers see the old bytes or the new, never a mix), but an
 * `ifVersion` check and its rename are not atomic against other processes.
 *
 * Versions are SHA-256 content hashes (see ./version.ts), so `stat` and the
 * `ifVersion` check read and hash the whole file (~1 ms per MiB).
 *
 * Speed. Path walks, checks and small reads and writes are blocking calls
 * (see ./local-io.ts for why and where the line is), paced so that other
 * requests get a turn every few ms; fdatasync and large content go through
 * the thread pool. A file replaced or deleted is closed after the reply, so
 * freeing its blocks is not part of the write.
 */
import * as fsSync from "node:fs";
import { constants, type Stats } from "node:fs";
import * as fs from "node:fs/promises";
import { basename, dirname, sep } from "node:path";
import { isInside } from "./containment.ts";
import { FileTooLargeError, FsError } from "./errors.ts";
import { checkListOptions, finishListing, listDepth } from "./listing.ts";
import { createKeyedLock } from "./lock.ts";
import { fsErrorFromNode, nodeErrorCode } from "./node-errors.ts";
import { baseName, childPath, normalizeWorkspacePath } from "./path.ts";
import { bytesStream } from "./body-stream.ts";
import { dataSync, localVersion, pace, readAll, SYNC_IO_BYTES, writeAll } from "./local-io.ts";
import { handleStream } from "./local-stream.ts";
import { openFilePath, procFdUsable } from "./proc-fd.ts";
import { isTempName, tempNameFor } from "./temp-name.ts";
import type {
  ListEntry,
  ListOptions,
  ListResult,
  ReadOptions,
  ReadResult,
  ReadStreamResult,
  StatResult,
  Storage,
  Version,
  WriteCondition,
  WriteResult,
} from "./types.ts";

// Absent on Windows; there the final-component symlink check relies on the walk alone.
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
// A FIFO swapped in after the check must not block the open forever.
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const READ_FLAGS = constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK;
const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW;
const ATTEMPTS = 3;

/** Options for {@link createLocalStorage}. */
export interface LocalStorageOptions {
  /**
   * Flush each temp file to disk (fdatasync) before renaming it into place,
   * so a power loss leaves the old or the new content, never an empty file.
   * Default true.
   */
  readonly fsync?: boolean;
}

/** Where a workspace path leads on disk. */
interface Resolved {
  /** Absolute path of the entry the path names, parents resolved (may itself be a symlink). */
  readonly entry: string;
  /** Real path of the target when it exists; `entry` otherwise. */
  readonly real: string;
  /** Stats of the target (symlink followed), or null when it does not exist. */
  readonly stats: Stats | null;
  /** Real path of the deepest existing directory on the way. */
  readonly parent: string;
  /** Names of the missing directories between `parent` and the target. */
  readonly missingDirs: readonly string[];
}

function joinReal(dir: string, name: string): string {
  return dir.endsWith(sep) ? dir + name : dir + sep + name;
}

function notRegular(path: string): FsError {
  return new FsError("FS_ACCESS_DENIED", `not a regular file or directory: ${path}`, { path });
}

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
  const fsync = options.fsync ?? true;
  const lock = createKeyedLock();

  function check(path: string): void {
    if (normalizeWorkspacePath(path) !== path) {
      throw new FsError("FS_INVALID_PATH", `invalid path: not normalised: ${path}`, { path });
    }
    if (path.split("/").some(isTempName)) {
      throw new FsError("FS_INVALID_PATH", `invalid path: reserved temp-file name: ${path}`, { path });
    }
  }

  /**
   * Look up one directory entry. Resolves null when it does not exist; a
   * symlink is followed only to a real path inside the root.
   */
  function step(dir: string, name: string, path: string) {
    const entry = joinReal(dir, name);
    let stats: Stats;
    try {
      stats = fsSync.lstatSync(entry);
    } catch (error) {
      if (nodeErrorCode(error) === "ENOENT") return null;
      throw fsErrorFromNode(error, "lstat", path);
    }
    if (!stats.isSymbolicLink()) return { entry, real: entry, stats };
    let real: string;
    try {
      real = fsSync.realpathSync(entry);
    } catch (error) {
      // Never follow a dangling link: creating its target could land anywhere.
      throw new FsError("FS_ACCESS_DENIED", `symlink is dangling or loops: ${path}`, { cause: error, path });
    }
    if (!isInside(realRoot, real, sep)) {
      throw new FsError("FS_ACCESS_DENIED", `symlink resolves outside the workspace root: ${path}`, { path });
    }
    try {
      stats = fsSync.statSync(real);
    } catch (error) {
      throw fsErrorFromNode(error, "stat", path);
    }
    return { entry, real, stats };
  }

  function resolve(path: string): Resolved {
    if (path === "") {
      return { entry: realRoot, real: realRoot, stats: fsSync.statSync(realRoot), parent: realRoot, missingDirs: [] };
    }
    const names = path.split("/");
    let dir = realRoot;
    for (let i = 0; i < names.length; i++) {
      const here = names.slice(0, i + 1).join("/");
      const found = step(dir, names[i], here);
      if (!found) {
        const entry = names.slice(i).reduce(joinReal, dir);
        return { entry, real: entry, stats: null, parent: dir, missingDirs: names.slice(i, -1) };
      }
      if (i === names.length - 1) return { ...found, parent: dir, missingDirs: [] };
      if (!found.stats.isDirectory()) {
        throw new FsError("FS_NOT_DIRECTORY", `not a directory: ${here}`, { path });
      }
      dir = found.real;
    }
    throw new Error("unreachable");
  }

  /**
   * Whether the open file whose stats are `held` is a regular file that is
   * still the one at the symlink-free real path of `resolved`, inside the
   * root. False means it changed under us (renamed over, removed): retry.
   */
  function stillThere(resolved: Resolved, held: Stats, path: string): boolean {
    if (held.isDirectory()) throw new FsError("FS_IS_DIRECTORY", `is a directory: ${path}`, { path });
    if (!held.isFile()) throw notRegular(path);
    try {
      const realNow = fsSync.realpathSync(resolved.real);
      const there = fsSync.statSync(realNow);
      return isInside(realRoot, realNow, sep) && there.dev === held.dev && there.ino === held.ino;
    } catch (error) {
      // The file we hold was renamed over (a concurrent write) or removed since the open: Bun's
      // realpath then fails with ENOENT although a file is at the path. Look again, like a mismatch.
      if (nodeErrorCode(error) === "ENOENT") return false;
      throw error;
    }
  }

  /** Resolve `path` to an existing regular file, or throw the refusal `read` gives. */
  function resolveFile(path: string): Resolved {
    const resolved = resolve(path);
    if (!resolved.stats) throw new FsError("FS_NOT_FOUND", `not found: ${path}`, { path });
    if (resolved.stats.isDirectory()) throw new FsError("FS_IS_DIRECTORY", `is a directory: ${path}`, { path });
    if (!resolved.stats.isFile()) throw notRegular(path);
    return resolved;
  }

  /** Open a resolved file (O_NOFOLLOW) and prove it is still there; null means retry. */
  function openVerified(resolved: Resolved, path: string): { fd: number; held: Stats } | null {
    let fd: number;
    try {
      fd = fsSync.openSync(resolved.real, READ_FLAGS);
    } catch (error) {
      throw fsErrorFromNode(error, "open", path);
    }
    try {
      const held = fsSync.fstatSync(fd);
      if (stillThere(resolved, held, path)) return { fd, held };
    } catch (error) {
      fsSync.closeSync(fd);
      throw fsErrorFromNode(error, "open", path);
    }
    fsSync.closeSync(fd);
    return null;
  }

  /**
   * The path the direct way opens for `path` (see {@link openDirect}), when
   * the kernel can name open files here and an lstat finds a regular file
   * there (never open anything else: a device could act on open).
   */
  function directCandidate(path: string): string | undefined {
    if (!procFdUsable() || sep !== "/") return undefined;
    const full = joinReal(realRoot, path);
    try {
      return fsSync.lstatSync(full).isFile() ? full : undefined;
    } catch {
      return undefined;
    }
  }

  /** Whether the open file with stats `held` is proven to be the regular file at `full`. */
  function provenAt(fd: number, held: Stats, full: string): boolean {
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
  function openDirect(path: string): { fd: number; held: Stats } | null {
    const full = directCandidate(path);
    if (full === undefined) return null;
    let fd: number;
    try {
      fd = fsSync.openSync(full, READ_FLAGS);
    } catch {
      return null;
    }
    try {
      const held = fsSync.fstatSync(fd);
      if (provenAt(fd, held, full)) return { fd, held };
    } catch {
      // The careful walk reports what is wrong.
    }
    fsSync.closeSync(fd);
    return null;
  }

  /** {@link openDirect} for a stream: the same proof, on a FileHandle. */
  async function openDirectHandle(path: string): Promise<{ handle: fs.FileHandle; held: Stats } | null> {
    const full = directCandidate(path);
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

  /**
   * The bytes of `path`. With `keep`, the file stays open and its descriptor
   * is returned for the caller to close (see {@link closeLater}).
   */
  async function readFile(
    path: string,
    maxBytes = Number.POSITIVE_INFINITY,
    keep = false,
  ): Promise<{ bytes: Uint8Array; mtimeMs: number; fd?: number }> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const opened = (attempt === 0 && openDirect(path)) || openVerified(resolveFile(path), path);
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

  /** The file at a resolved real path, open only to be held (undefined if it cannot be opened). */
  function holdOpen(real: string): number | undefined {
    try {
      return fsSync.openSync(real, READ_FLAGS);
    } catch {
      return undefined;
    }
  }

  /**
   * Run `fn` holding the lock of the path's target (its real path, so
   * aliases through inside symlinks share one lock), with a resolution made
   * under the lock.
   */
  async function withTargetLock<T>(path: string, fn: (resolved: Resolved) => Promise<T>): Promise<T> {
    const keyOf = (r: Resolved) => (r.stats ? r.real : r.entry);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const key = keyOf(resolve(path));
      const outcome = await lock.run(key, async () => {
        const resolved = resolve(path);
        return keyOf(resolved) === key ? { value: await fn(resolved) } : null;
      });
      if (outcome) return outcome.value;
    }
    throw new FsError("FS_IO_ERROR", `path kept changing while locking it: ${path}`, { path });
  }

  /** Create the missing parent directories one at a time, each checked to be inside. */
  function makeParents(resolved: Resolved, path: string): string {
    let dir = resolved.parent;
    for (const name of resolved.missingDirs) {
      const next = joinReal(dir, name);
      try {
        fsSync.mkdirSync(next);
        dir = next;
      } catch (error) {
        if (nodeErrorCode(error) !== "EEXIST") throw fsErrorFromNode(error, "mkdir", path);
        // A concurrent creator won: accept it only if it is a directory inside.
        const found = step(dir, name, path);
        if (!found?.stats.isDirectory()) throw new FsError("FS_NOT_DIRECTORY", `not a directory: ${path}`, { path });
        dir = found.real;
      }
    }
    return dir;
  }

  /** Write `bytes` to a fresh temp file in `dir` and prove it landed inside the root. */
  async function writeTemp(dir: string, name: string, bytes: Uint8Array, mode: number | undefined, path: string) {
    const tempName = tempNameFor(name);
    const temp = joinReal(dir, tempName);
    let fd: number;
    try {
      fd = fsSync.openSync(temp, TEMP_FLAGS, mode ?? 0o666);
    } catch (error) {
      throw fsErrorFromNode(error, "open", path);
    }
    try {
      await writeAll(fd, bytes);
      // open() applied the umask; an overwrite keeps the old file's exact mode.
      if (mode !== undefined) fsSync.fchmodSync(fd, mode);
      if (fsync) await dataSync(fd);
      // The kernel's name for the temp file, when it is exactly where it was created (`dir` is a real
      // path inside the root), proves it in one call; otherwise check the directory the long way.
      if (openFilePath(fd) !== temp) {
        const held = fsSync.fstatSync(fd);
        const realDir = fsSync.realpathSync(dir);
        const there = fsSync.lstatSync(joinReal(realDir, tempName));
        if (!isInside(realRoot, realDir, sep) || there.dev !== held.dev || there.ino !== held.ino) {
          throw new FsError("FS_ACCESS_DENIED", `directory changed during the write: ${path}`, { path });
        }
      }
    } catch (error) {
      fsSync.closeSync(fd);
      removeQuietly(temp);
      throw fsErrorFromNode(error, "write", path);
    }
    fsSync.closeSync(fd);
    return temp;
  }

  async function currentVersion(path: string): Promise<Version> {
    return localVersion((await readFile(path)).bytes);
  }

  /**
   * Put `bytes` in place of the resolved target (under its lock, condition
   * already checked): temp file, then rename over it or link it into place.
   */
  async function replaceTarget(
    path: string,
    bytes: Uint8Array,
    condition: WriteCondition,
    resolved: Resolved,
    version: Version,
  ): Promise<WriteResult> {
    const existing = resolved.stats;
    if (existing) {
      // A read-only file stays read-only: the rename below would not ask permission.
      try {
        fsSync.accessSync(resolved.real, constants.W_OK);
      } catch (error) {
        throw fsErrorFromNode(error, "access", path);
      }
    }
    const dir = existing ? dirname(resolved.real) : makeParents(resolved, path);
    const target = existing ? resolved.real : joinReal(dir, baseName(path));
    const temp = await writeTemp(dir, basename(target), bytes, existing ? existing.mode & 0o7777 : undefined, path);
    try {
      if (condition.kind === "ifAbsent") {
        // link() never replaces: it fails with EEXIST if anyone, in any process, created the target.
        fsSync.linkSync(temp, target);
      } else {
        fsSync.renameSync(temp, target);
      }
    } catch (error) {
      if (nodeErrorCode(error) === "EEXIST") {
        throw new FsError("FS_ALREADY_EXISTS", `already exists: ${path}`, { cause: error, path });
      }
      throw fsErrorFromNode(error, condition.kind === "ifAbsent" ? "link" : "rename", path);
    } finally {
      if (condition.kind === "ifAbsent") removeQuietly(temp);
    }
    return { version, created: !existing };
  }

  async function walk(dirReal: string, dirPath: string, depth: number, maxDepth: number, out: ListEntry[]) {
    await pace();
    let names: string[];
    try {
      names = fsSync.readdirSync(dirReal);
    } catch (error) {
      if (depth > 1 && nodeErrorCode(error) === "ENOENT") return;
      throw fsErrorFromNode(error, "readdir", dirPath);
    }
    const found = [];
    for (const name of names) {
      await pace();
      const path = childPath(dirPath, name);
      // Unaddressable names (backslash, control characters, ...) would only invite refused calls.
      if (isTempName(name) || !isAddressable(path)) continue;
      try {
        const entry = step(dirReal, name, path);
        if (entry) found.push({ name, path, ...entry });
      } catch (error) {
        // Symlinks leading outside, dangling or looping are left out of listings.
        if (error instanceof FsError && error.code === "FS_ACCESS_DENIED") continue;
        throw error;
      }
    }
    for (const item of found) {
      if (item.stats.isDirectory()) {
        out.push({ path: item.path, name: item.name, kind: "directory", size: 0 });
        // A symlinked directory is listed but not entered: that avoids cycles and duplicates.
        if (item.real === item.entry && depth < maxDepth) await walk(item.real, item.path, depth + 1, maxDepth, out);
      } else if (item.stats.isFile()) {
        out.push({ path: item.path, name: item.name, kind: "file", size: item.stats.size });
      }
    }
  }

  return {
    kind: "local",
    root: realRoot,

    async stat(path: string): Promise<StatResult | null> {
      check(path);
      await pace();
      let resolved: Resolved;
      try {
        resolved = resolve(path);
      } catch (error) {
        if (error instanceof FsError && (error.code === "FS_NOT_FOUND" || error.code === "FS_NOT_DIRECTORY")) return null;
        throw error;
      }
      const stats = resolved.stats;
      if (!stats) return null;
      if (stats.isDirectory()) return { path, kind: "directory", size: 0, mtimeMs: stats.mtimeMs };
      if (!stats.isFile()) throw notRegular(path);
      const { bytes, mtimeMs } = await readFile(path);
      return { path, kind: "file", size: bytes.length, version: await localVersion(bytes), mtimeMs };
    },

    async read(path: string, options?: ReadOptions): Promise<ReadResult> {
      check(path);
      await pace();
      const { bytes } = await readFile(path, options?.maxBytes);
      return { bytes, version: await localVersion(bytes) };
    },

    async readStream(path: string): Promise<ReadStreamResult> {
      check(path);
      await pace();
      // A small file is read now, in one blocking call, and streamed from memory: an async file
      // handle costs several thread-pool round trips (open, stat, reads, close) for what one blocking
      // read does in microseconds, and small views are the commonest call there is.
      const small = await readFile(path, SYNC_IO_BYTES).catch((error: unknown) => {
        if (error instanceof FileTooLargeError) return undefined;
        throw error;
      });
      if (small) {
        const version = await localVersion(small.bytes);
        return { stream: bytesStream(small.bytes), size: small.bytes.length, version: Promise.resolve(version) };
      }
      // The same resolution and proofs as `read`; the handle then streams (see ./local-stream.ts).
      const direct = await openDirectHandle(path);
      if (direct) return handleStream(direct.handle, path, direct.held.size);
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const resolved = resolveFile(path);
        let handle: fs.FileHandle;
        try {
          handle = await fs.open(resolved.real, READ_FLAGS);
        } catch (error) {
          throw fsErrorFromNode(error, "open", path);
        }
        let held: Stats;
        try {
          held = await handle.stat();
          if (stillThere(resolved, held, path)) return handleStream(handle, path, held.size);
        } catch (error) {
          await handle.close();
          throw fsErrorFromNode(error, "open", path);
        }
        await handle.close();
      }
      throw new FsError("FS_IO_ERROR", `file kept being replaced while opening it: ${path}`, { path });
    },

    async write(path: string, bytes: Uint8Array, condition: WriteCondition = { kind: "none" }): Promise<WriteResult> {
      check(path);
      await pace();
      const version = await localVersion(bytes);
      return withTargetLock(path, async (resolved) => {
        const existing = resolved.stats;
        if (existing?.isDirectory()) throw new FsError("FS_IS_DIRECTORY", `is a directory: ${path}`, { path });
        if (existing && !existing.isFile()) throw notRegular(path);
        if (condition.kind === "ifAbsent" && existing) {
          throw new FsError("FS_ALREADY_EXISTS", `already exists: ${path}`, { path });
        }
        // The file being replaced stays open until after the rename and is closed after the reply
        // (closeLater): the last close of an unlinked file frees its blocks (~110 us on this ext4),
        // work that would otherwise happen inside the rename, before the reply.
        let replaced: number | undefined;
        try {
          if (condition.kind === "ifVersion") {
            if (!existing) throw stale(path);
            const current = await readFile(path, Number.POSITIVE_INFINITY, true);
            replaced = current.fd;
            if ((await localVersion(current.bytes)) !== condition.version) throw stale(path);
          } else if (existing) {
            replaced = holdOpen(resolved.real);
          }
          return await replaceTarget(path, bytes, condition, resolved, version);
        } finally {
          if (replaced !== undefined) closeLater(replaced);
        }
      });
    },

    async list(path: string, options?: ListOptions): Promise<ListResult> {
      check(path);
      checkListOptions(options);
      const resolved = resolve(path);
      if (!resolved.stats) throw new FsError("FS_NOT_FOUND", `not found: ${path}`, { path });
      if (!resolved.stats.isDirectory()) throw new FsError("FS_NOT_DIRECTORY", `not a directory: ${path}`, { path });
      const entries: ListEntry[] = [];
      await walk(resolved.real, path, 1, listDepth(options), entries);
      return finishListing(entries, options?.limit);
    },

    async delete(path: string, options?: { ifVersion?: Version }): Promise<void> {
      check(path);
      await pace();
      await withTargetLock(path, async (resolved) => {
        const existing = resolved.stats;
        if (existing?.isDirectory()) throw new FsError("FS_IS_DIRECTORY", `is a directory: ${path}`, { path });
        if (!existing) {
          if (options?.ifVersion !== undefined) throw stale(path);
          throw new FsError("FS_NOT_FOUND", `not found: ${path}`, { path });
        }
        if (!existing.isFile()) throw notRegular(path);
        if (options?.ifVersion !== undefined && (await currentVersion(path)) !== options.ifVersion) throw stale(path);
        // As in write: the blocks are freed by a later close, not inside the unlink.
        const held = resolved.entry === resolved.real ? holdOpen(resolved.real) : undefined;
        try {
          // The entry itself: deleting a symlink removes the link, like rm.
          fsSync.unlinkSync(resolved.entry);
        } catch (error) {
          throw fsErrorFromNode(error, "unlink", path);
        } finally {
          if (held !== undefined) closeLater(held);
        }
      });
    },
  };
}

/** Remove a temp file if it is there; a failure leaves it for `cleanTempFiles`. */
function removeQuietly(path: string): void {
  try {
    fsSync.rmSync(path, { force: true });
  } catch {
    // Swept at the next start-up.
  }
}

/**
 * Close `fd` once the current work is done (the reply sent), ignoring
 * failure: nothing waits for it. Deno closes on its thread pool; Bun's
 * close blocks (~100 us for a replaced file) even with a callback, so it
 * is deferred with a timer rather than run inside the write.
 */
function closeLater(fd: number): void {
  setTimeout(() => fsSync.close(fd, () => {}), 0);
}

function isAddressable(path: string): boolean {
  try {
    return normalizeWorkspacePath(path) === path;
  } catch {
    return false;
  }
}

async function realDirectory(root: string): Promise<string> {
  let real: string;
  try {
    real = await fs.realpath(root);
  } catch (error) {
    throw fsErrorFromNode(error, "realpath", root);
  }
  if (!(await fs.stat(real)).isDirectory()) {
    throw new FsError("FS_NOT_DIRECTORY", `storage root is not a directory: ${root}`, { path: root });
  }
  return real;
}

/**
 * Delete leftover temp files (`.<name>.tw-<random>.tmp`, from a crash between
 * write and rename) anywhere under `root`, without following symlinks. Call
 * it at start-up: a temp file younger than `olderThanMs` (default 0, i.e.
 * all) may belong to a write in flight in another process. Resolves the
 * number of files removed.
 */
export async function cleanTempFiles(root: string, options: { olderThanMs?: number } = {}): Promise<number> {
  const realRoot = await realDirectory(root);
  const cutoff = Date.now() - (options.olderThanMs ?? 0);
  let removed = 0;
  async function sweep(dir: string): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (nodeErrorCode(error) === "ENOENT") return;
      throw fsErrorFromNode(error, "readdir", dir);
    }
    for (const entry of entries) {
      const full = joinReal(dir, entry.name);
      // Dirent kinds come from lstat: a symlinked directory is not a directory here.
      if (entry.isDirectory()) {
        await sweep(full);
      } else if (entry.isFile() && isTempName(entry.name)) {
        try {
          if ((await fs.lstat(full)).mtimeMs > cutoff) continue;
          await fs.unlink(full);
          removed++;
        } catch (error) {
          if (nodeErrorCode(error) !== "ENOENT") throw fsErrorFromNode(error, "unlink", full);
        }
      }
    }
  }
  await sweep(realRoot);
  return removed;
}
