/**
 * Path resolution for local storage: a workspace path walked one component
 * at a time from the real root, a symlink followed only when its real path
 * stays inside the root (a dangling or looping one is refused outright).
 */
import * as fsSync from "node:fs";
import type { Stats } from "node:fs";
import * as fs from "node:fs/promises";
import { sep } from "node:path";
import { isInside } from "../containment.ts";
import { FsError } from "../errors.ts";
import { normalizeWorkspacePath } from "../path.ts";
import { fsErrorFromNode, nodeErrorCode } from "./node-errors.ts";
import { isTempName } from "./temp-name.ts";

/** What every part of one local storage instance shares. */
export interface LocalContext {
  /** Real path of the root directory. */
  readonly realRoot: string;
  /** The root directory, held open for the storage's lifetime (see ./dirfd.ts). */
  readonly rootFd: number;
  /** Flush temp files before renaming them into place. */
  readonly fsync: boolean;
}

/** Where a workspace path leads on disk. */
export interface Resolved {
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

/** One directory entry found by {@link step}. */
export interface Found {
  readonly entry: string;
  readonly real: string;
  readonly stats: Stats;
}

export function joinReal(dir: string, name: string): string {
  return dir.endsWith(sep) ? dir + name : dir + sep + name;
}

export function notRegular(path: string): FsError {
  return new FsError("FS_ACCESS_DENIED", `not a regular file or directory: ${path}`, { path });
}

const encoder = new TextEncoder();

/** Refuse a path that is not normalised, names a reserved temp file, or (given the root) is too long for the system. */
export function checkPath(path: string, realRoot?: string): void {
  if (normalizeWorkspacePath(path) !== path) {
    throw new FsError("FS_INVALID_PATH", `invalid path: not normalised: ${path}`, { path });
  }
  if (path.split("/").some(isTempName)) {
    throw new FsError("FS_INVALID_PATH", `invalid path: reserved temp-file name: ${path}`, { path });
  }
  if (realRoot !== undefined) checkSystemLength(path, realRoot);
}

/** Longest absolute path the system names (PATH_MAX, 4096 bytes with its final NUL). */
const SYSTEM_PATH_BYTES = 4095;
/** What a temp file's name adds to the last segment (`.` + `.tw-<random>.tmp`), with room to spare. */
const TEMP_NAME_BYTES = 32;

/**
 * The workspace path and the root's own path must together stay within
 * what the system can name: past it, a write made its directories through
 * held descriptors and then failed, leaving them behind, and the start-up
 * sweep could not list them.
 */
function checkSystemLength(path: string, realRoot: string): void {
  // A UTF-16 unit is at most 3 UTF-8 bytes: most calls are decided without encoding anything.
  if (3 * (path.length + realRoot.length) <= SYSTEM_PATH_BYTES - TEMP_NAME_BYTES - 1) return;
  const rootBytes = encoder.encode(realRoot).length;
  const pathBytes = encoder.encode(path).length;
  const most = SYSTEM_PATH_BYTES - TEMP_NAME_BYTES - rootBytes - 1;
  if (pathBytes <= most) return;
  throw new FsError(
    "FS_INVALID_PATH",
    `invalid path: ${pathBytes} bytes, longer than this workspace can hold (${most} bytes here: its directory's own path takes ${rootBytes} ` +
      `of the system's ${SYSTEM_PATH_BYTES}); use a shorter path`,
    { path },
  );
}

/** Whether `path` is a normalised workspace path (what a caller could name). */
export function isAddressable(path: string): boolean {
  try {
    return normalizeWorkspacePath(path) === path;
  } catch {
    return false;
  }
}

/**
 * Look up one directory entry. Resolves null when it does not exist; a
 * symlink is followed only to a real path inside the root.
 */
export function step(ctx: LocalContext, dir: string, name: string, path: string): Found | null {
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
  if (!isInside(ctx.realRoot, real, sep)) {
    throw new FsError("FS_ACCESS_DENIED", `symlink resolves outside the workspace root: ${path}`, { path });
  }
  try {
    stats = fsSync.statSync(real);
  } catch (error) {
    // The target went away since realpath found it: the link is dangling now (a listing leaves it out).
    if (nodeErrorCode(error) === "ENOENT") throw new FsError("FS_ACCESS_DENIED", `symlink is dangling or loops: ${path}`, { cause: error, path });
    throw fsErrorFromNode(error, "stat", path);
  }
  return { entry, real, stats };
}

/** Resolve a normalised workspace path (see {@link Resolved}). */
export function resolve(ctx: LocalContext, path: string): Resolved {
  const root = ctx.realRoot;
  if (path === "") {
    return { entry: root, real: root, stats: fsSync.statSync(root), parent: root, missingDirs: [] };
  }
  const names = path.split("/");
  let dir = root;
  for (let i = 0; i < names.length; i++) {
    const here = names.slice(0, i + 1).join("/");
    const found = step(ctx, dir, names[i], here);
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

/** Resolve `path` to an existing regular file, or throw the refusal `read` gives. */
export function resolveFile(ctx: LocalContext, path: string): Resolved {
  const resolved = resolve(ctx, path);
  if (!resolved.stats) throw new FsError("FS_NOT_FOUND", `not found: ${path}`, { path });
  if (resolved.stats.isDirectory()) throw new FsError("FS_IS_DIRECTORY", `is a directory: ${path}`, { path });
  if (!resolved.stats.isFile()) throw notRegular(path);
  return resolved;
}

/** The real path of the directory `root`, which must exist. */
export async function realDirectory(root: string): Promise<string> {
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
