/**
 * `write` and `delete` for local storage: each runs under the in-process
 * lock of its target (see ./provider.ts, Concurrency), checks its condition
 * there, and keeps the process's known versions (./known-versions.ts) in
 * step. The temp file, rename, link and unlink themselves are ./write.ts.
 */
import { FsError } from "../errors.ts";
import type { KeyedLock } from "../lock.ts";
import type { Version, WriteCondition, WriteResult } from "../types.ts";
import { localVersion, pace, SYNC_IO_BYTES } from "./io.ts";
import { type KnownVersions, knownKey } from "./known-versions.ts";
import { ATTEMPTS, closeLater, fileEquals, readFile } from "./read.ts";
import { checkPath, type LocalContext, notRegular, type Resolved, resolve } from "./resolve.ts";
import { replaceTarget, unlinkEntry } from "./write.ts";

/** What a local storage instance's writes and deletes share. */
export interface UpdateContext {
  readonly ctx: LocalContext;
  /** The instance's lock, keyed by a target's real path. */
  readonly lock: KeyedLock;
  /** The process's versions of what it last wrote. */
  readonly known: KnownVersions;
}

function stale(path: string): FsError {
  return new FsError("FS_STALE_VERSION", `version mismatch: ${path}`, { path });
}

/**
 * Whether the file at `path` (re-read under its lock) is the condition's
 * version. With the bytes the caller read as that version, the file is
 * compared with them in slices (no SHA-256, no second copy): equal bytes
 * are that version. Otherwise, or when they differ, it is read and hashed.
 * `hold` gets the descriptor of the file read, for the caller to close.
 */
async function holdsVersion(
  ctx: LocalContext,
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

/**
 * Run `fn` holding the lock of the path's target (its real path, so
 * aliases through inside symlinks share one lock), with a resolution made
 * under the lock.
 */
async function withTargetLock<T>(u: UpdateContext, path: string, fn: (resolved: Resolved) => Promise<T>): Promise<T> {
  const keyOf = (r: Resolved) => (r.stats ? r.real : r.entry);
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const key = keyOf(resolve(u.ctx, path));
    const outcome = await u.lock.run(key, async () => {
      const resolved = resolve(u.ctx, path);
      return keyOf(resolved) === key ? { value: await fn(resolved) } : null;
    });
    if (outcome) return outcome.value;
  }
  throw new FsError("FS_IO_ERROR", `path kept changing while locking it: ${path}`, { path });
}

/** `Storage.write` for local storage. */
export async function writeLocal(u: UpdateContext, path: string, bytes: Uint8Array, condition: WriteCondition = { kind: "none" }): Promise<WriteResult> {
  checkPath(path, u.ctx.realRoot);
  await pace();
  // The version of the new bytes is needed only for the result: it is hashed while the disk
  // flushes the temp file (see beforeRename), or below if the write never got there.
  let version: Promise<Version> | undefined;
  const hashNew = () => {
    version ??= Promise.resolve(localVersion(bytes));
    version.catch(() => {}); // awaited below; a failure before that must not be an unhandled rejection
  };
  return withTargetLock(u, path, async (resolved) => {
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
      if (bytes.length <= SYNC_IO_BYTES) u.known.remember(knownKey(u.ctx.realRoot, path), bytes, await version!);
      if (condition.kind === "ifVersion" && !(await holdsVersion(u.ctx, path, condition, (fd) => (replaced = fd)))) throw stale(path);
    };
    try {
      const hold = condition.kind !== "ifVersion" && existing !== null;
      const result = await replaceTarget(u.ctx, path, bytes, condition, resolved, hold, beforeRename);
      replaced ??= result.held;
      hashNew();
      return { version: await version!, created: result.created };
    } finally {
      if (replaced !== undefined) closeLater(replaced);
    }
  });
}

/** `Storage.delete` for local storage. */
export async function deleteLocal(u: UpdateContext, path: string, options?: { ifVersion?: Version }): Promise<void> {
  checkPath(path, u.ctx.realRoot);
  await pace();
  await withTargetLock(u, path, async (resolved) => {
    const existing = resolved.stats;
    if (existing?.isDirectory()) throw new FsError("FS_IS_DIRECTORY", `is a directory: ${path}`, { path });
    if (!existing) {
      if (options?.ifVersion !== undefined) throw stale(path);
      throw new FsError("FS_NOT_FOUND", `not found: ${path}`, { path });
    }
    if (!existing.isFile()) throw notRegular(path);
    const ifVersion = options?.ifVersion;
    const check =
      ifVersion === undefined
        ? undefined
        : async () => {
            if ((await localVersion((await readFile(u.ctx, path)).bytes)) !== ifVersion) throw stale(path);
          };
    // As in write: the blocks are freed by a later close, not inside the unlink.
    u.known.forget(knownKey(u.ctx.realRoot, path));
    const held = await unlinkEntry(u.ctx, resolved, path, resolved.entry === resolved.real, check);
    if (held !== undefined) closeLater(held);
  });
}
