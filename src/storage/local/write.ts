/**
 * Writing for local storage. The target's directory is opened from the
 * root one component at a time without following symlinks (./dirfd.ts);
 * the temp file is created, and renamed or linked into place, through that
 * descriptor, so no swap of a directory for a symlink between the checks
 * and the act can send any of it elsewhere.
 *
 * An overwrite replaces the file (a new inode): it keeps the old file's
 * mode (setuid and setgid cleared, as the kernel does when a file is
 * written to) and, where this process may, its owner and group; a hard
 * link to the old file keeps the old content.
 */
import * as fsSync from "node:fs";
import { constants } from "node:fs";
import { basename, dirname } from "node:path";
import { FsError } from "../errors.ts";
import type { WriteCondition } from "../types.ts";
import { flushWith } from "./flush.ts";
import { writeAll } from "./io.ts";
import { at, closeDir, dirInside, openChildDir, openDirAt } from "./dirfd.ts";
import { fsErrorFromNode, nodeErrorCode } from "./node-errors.ts";
import { READ_FLAGS } from "./read.ts";
import type { LocalContext, Resolved } from "./resolve.ts";
import { type FileStat, fstatFd } from "./stat.ts";
import { lockTarget, type Unlock } from "./target-lock.ts";
import { tempNameFor } from "./temp-name.ts";

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW;

/** Remove an entry of a held directory if it is there; a failure leaves a temp file for `cleanTempFiles`. */
function removeQuietly(dirFd: number, name: string): void {
  try {
    fsSync.unlinkSync(at(dirFd, name));
  } catch {
    // Swept at the next start-up.
  }
}

/**
 * Create the missing directories below the held directory `dirFd`, each
 * made and then opened through its parent's descriptor. Returns the
 * deepest one, open (`dirFd` is closed).
 */
function makeParents(dirFd: number, missing: readonly string[], path: string): number {
  let fd = dirFd;
  for (const name of missing) {
    try {
      fsSync.mkdirSync(at(fd, name));
    } catch (error) {
      // EEXIST: a concurrent creator won; the open below accepts only a real directory.
      if (nodeErrorCode(error) !== "EEXIST") {
        closeDir(fd);
        throw fsErrorFromNode(error, "mkdir", path);
      }
    }
    let next: number;
    try {
      next = openChildDir(fd, name);
    } catch (error) {
      throw new FsError("FS_NOT_DIRECTORY", `not a directory: ${path}`, { cause: error, path });
    } finally {
      closeDir(fd);
    }
    fd = next;
  }
  return fd;
}

/**
 * The mode an overwrite gives the new file: the old one's, with setuid
 * cleared and setgid cleared when group-execute is set (what the kernel
 * does to a file written to by an unprivileged process).
 */
export function modeAfterWrite(mode: number): number {
  let kept = mode & 0o7777 & ~0o4000;
  if (kept & 0o010) kept &= ~0o2000;
  return kept;
}

/**
 * Give the new file (stats `now`) the old file's owner and group, where this process may (root may;
 * others only their own). True when it tried: a chown may clear setuid/setgid, so the mode is set after.
 */
function keepOwner(fd: number, old: FileStat, now: FileStat): boolean {
  if (now.uid === old.uid && now.gid === old.gid) return false;
  try {
    fsSync.fchownSync(fd, old.uid, old.gid);
  } catch (error) {
    const code = nodeErrorCode(error);
    if (code !== "EPERM" && code !== "EINVAL") throw error;
    // Not ours to give away: the file stays the writer's, as a plain copy would.
  }
  return true;
}

/**
 * Write `bytes` to a fresh temp file in the held directory `dirFd`; returns the temp file's name.
 * `alongside` runs while the flush waits on the disk on another thread, or right after a flush in
 * place (./flush.ts); when it throws, the temp file is removed and its error is the write's.
 */
async function writeTemp(
  ctx: LocalContext,
  dirFd: number,
  name: string,
  bytes: Uint8Array,
  old: FileStat | null,
  path: string,
  alongside: () => Promise<void>,
): Promise<string> {
  const tempName = tempNameFor(name);
  let fd: number;
  try {
    fd = fsSync.openSync(at(dirFd, tempName), TEMP_FLAGS, 0o666);
  } catch (error) {
    throw fsErrorFromNode(error, "open", path);
  }
  try {
    await writeAll(fd, bytes);
    if (old) {
      // chown first: it may clear setuid/setgid itself. open() applied the umask; fchmod sets the mode
      // (skipped when the umask already gave it, as it does for the common 0644).
      const now = fstatFd(fd);
      const mode = modeAfterWrite(old.mode);
      if (keepOwner(fd, old, now) || (now.mode & 0o7777) !== mode) fsSync.fchmodSync(fd, mode);
    }
    const refusal = await flushWith(fd, bytes.length, ctx.fsync, alongside);
    if (refusal) throw refusal.error;
  } catch (error) {
    fsSync.closeSync(fd);
    removeQuietly(dirFd, tempName);
    throw fsErrorFromNode(error, "write", path);
  }
  fsSync.closeSync(fd);
  return tempName;
}

/**
 * Put `bytes` in place of the resolved target (under its lock, condition
 * already checked): temp file, then rename over it or link it into place,
 * all inside the target's held directory. With `hold`, the file being
 * replaced is opened first and its descriptor returned, for the caller to
 * close after the reply (freeing its blocks is then not part of the write).
 * `beforeRename` is the caller's last check (the compare-and-swap): it runs, with
 * the target's own checks, while the temp file is flushed (see writeTemp).
 */
export async function replaceTarget(
  ctx: LocalContext,
  path: string,
  bytes: Uint8Array,
  condition: WriteCondition,
  resolved: Resolved,
  hold: boolean,
  beforeRename: () => Promise<void>,
): Promise<{ created: boolean; held?: number }> {
  const existing = resolved.stats;
  const dirReal = existing ? dirname(resolved.real) : resolved.parent;
  const name = existing ? basename(resolved.real) : basename(resolved.entry);
  let dirFd = openDirAt(ctx.rootFd, ctx.realRoot, dirReal, path);
  let held: number | undefined;
  let unlock: Unlock | undefined;
  try {
    if (!existing) {
      // makeParents owns the descriptor from here (it closes it, even when it fails): never close it twice,
      // since a closed number may already name another open file.
      const parent = dirFd;
      dirFd = -1;
      dirFd = makeParents(parent, resolved.missingDirs, path);
    }
    const inDir = dirFd;
    const checks = async () => {
      if (existing) {
        // A read-only file stays read-only: the rename below would not ask permission.
        try {
          fsSync.accessSync(at(inDir, name), constants.W_OK);
        } catch (error) {
          throw fsErrorFromNode(error, "access", path);
        }
        if (hold) held = holdEntry(inDir, name);
      }
      // Another server's check and rename of this file must not fall between ours (see ./target-lock.ts);
      // link() below needs no lock: it never replaces.
      if (condition.kind !== "ifAbsent") unlock = await lockTarget(inDir, name, path);
      await beforeRename();
    };
    const temp = await writeTemp(ctx, dirFd, name, bytes, existing, path, checks);
    try {
      // A directory moved out of the root (not swapped: renamed) while we wrote is not written into.
      if (!dirInside(dirFd, ctx.realRoot)) {
        throw new FsError("FS_ACCESS_DENIED", `the directory was moved out of the workspace during the write: ${path}`, {
          path,
        });
      }
      if (condition.kind === "ifAbsent") {
        // link() never replaces: it fails with EEXIST if anyone, in any process, created the target.
        fsSync.linkSync(at(dirFd, temp), at(dirFd, name));
      } else {
        fsSync.renameSync(at(dirFd, temp), at(dirFd, name));
      }
    } catch (error) {
      if (condition.kind !== "ifAbsent") removeQuietly(dirFd, temp);
      if (nodeErrorCode(error) === "EEXIST") {
        throw new FsError("FS_ALREADY_EXISTS", `already exists: ${path}`, { cause: error, path });
      }
      throw fsErrorFromNode(error, condition.kind === "ifAbsent" ? "link" : "rename", path);
    } finally {
      if (condition.kind === "ifAbsent") removeQuietly(dirFd, temp);
    }
  } catch (error) {
    if (held !== undefined) fsSync.closeSync(held);
    throw error;
  } finally {
    unlock?.();
    if (dirFd !== -1) closeDir(dirFd);
  }
  return { created: !existing, held };
}

/** The entry `name` of a held directory, open only to be held (undefined if it cannot be opened). */
function holdEntry(dirFd: number, name: string): number | undefined {
  try {
    return fsSync.openSync(at(dirFd, name), READ_FLAGS);
  } catch {
    return undefined;
  }
}

/**
 * Unlink the entry named by `resolved` (a symlink itself, not its target,
 * like rm) through its held parent directory. With `hold`, the file is
 * opened first and returned for a later close. `check` (a compare-and-swap)
 * runs just before, holding the entry's lock across processes.
 */
export async function unlinkEntry(
  ctx: LocalContext,
  resolved: Resolved,
  path: string,
  hold: boolean,
  check?: () => Promise<void>,
): Promise<number | undefined> {
  const dirFd = openDirAt(ctx.rootFd, ctx.realRoot, resolved.parent, path);
  const name = basename(resolved.entry);
  let unlock: Unlock | undefined;
  let held: number | undefined;
  try {
    if (check) {
      unlock = await lockTarget(dirFd, name, path);
      await check();
    }
    held = hold ? holdEntry(dirFd, name) : undefined;
    fsSync.unlinkSync(at(dirFd, name));
    return held;
  } catch (error) {
    if (held !== undefined) fsSync.closeSync(held);
    throw fsErrorFromNode(error, "unlink", path);
  } finally {
    unlock?.();
    closeDir(dirFd);
  }
}
