/**
 * Listing for local storage: a walk of the resolved directory through
 * descriptors opened from the root without following symlinks (./dirfd.ts),
 * so a directory swapped for a symlink mid-walk cannot list what is outside.
 * Temp files and symlinks that lead outside, dangle or loop are left out; a
 * symlinked directory is listed but never entered; a name no call could
 * address is listed, flagged, and not entered.
 */
import * as fsSync from "node:fs";
import { constants } from "node:fs";
import { FsError } from "../errors.ts";
import { checkListOptions, finishListing, listDepth } from "../listing.ts";
import { childPath } from "../path.ts";
import type { ListEntry, ListOptions, ListResult } from "../types.ts";
import type { DirCache } from "./dir-cache.ts";
import { at, closeDir, O_PATH, openChildDir, openDirAt, openEntry } from "./dirfd.ts";
import { pace } from "./io.ts";
import { fsErrorFromNode, nodeErrorCode } from "./node-errors.ts";
import { checkPath, type Found, isAddressable, type LocalContext, resolve, step } from "./resolve.ts";
import { isTempName } from "./temp-name.ts";

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** The directory `path` could not be read for lack of permission (no `r`, or no `x` to look inside). */
function unreadable(path: string, cause: unknown): FsError {
  return new FsError("FS_ACCESS_DENIED", `permission denied: cannot read directory ${path === "" ? "." : path}`, {
    cause,
    path,
    permission: true,
  });
}

/** What the directory's own listing says of an entry: a plain file or directory, or look closer. */
type Kind = "file" | "directory" | undefined;

/**
 * Names of the directory held open as `dirFd`, each with its kind when the
 * listing tells it and `kinds` asks for it (a symlink, or a filesystem that
 * does not say, is looked at closer by {@link step}).
 */
function readNames(dirFd: number, kinds: boolean): { names: string[]; kinds?: Kind[] } {
  if (!kinds) return { names: fsSync.readdirSync(at(dirFd)) };
  const dirents = fsSync.readdirSync(at(dirFd), { withFileTypes: true });
  return {
    names: dirents.map((d) => d.name),
    kinds: dirents.map((d) => (d.isFile() ? "file" : d.isDirectory() ? "directory" : undefined)),
  };
}

/**
 * Whether the entry `name` of the directory open as `dirFd` can be looked
 * up (false: it is gone): an O_PATH open of it, not followed, closed at
 * once. One openat where the runtime has it, against an lstat through
 * /proc. Other failures throw the Node-style error.
 */
function lookUp(dirFd: number, name: string): boolean {
  try {
    closeDir(openEntry(dirFd, name, O_PATH | O_NOFOLLOW));
    return true;
  } catch (error) {
    if (nodeErrorCode(error) === "ENOENT") return false;
    throw error;
  }
}

/**
 * Append the entries of the directory held open as `dirFd` (workspace path
 * `dirPath`), and below it to `maxDepth`, to `out`. The caller closes `dirFd`.
 * Without `sizes`, a plain file or directory is taken from the listing as
 * it is (a file's size is then -1): no lookup per entry.
 */
export async function walk(ctx: LocalContext, dirFd: number, dirPath: string, depth: number, maxDepth: number, out: ListEntry[], sizes = true): Promise<void> {
  await pace();
  let names: string[];
  let kinds: Kind[] | undefined;
  try {
    ({ names, kinds } = readNames(dirFd, !sizes));
  } catch (error) {
    if (depth > 1 && nodeErrorCode(error) === "ENOENT") return;
    const code = nodeErrorCode(error);
    if (code === "EACCES" || code === "EPERM") {
      // Asked for by name: say so. Below it (a recursive listing), the directory is listed and left.
      if (depth === 1) throw unreadable(dirPath, error);
      return;
    }
    throw fsErrorFromNode(error, "readdir", dirPath);
  }
  const here = at(dirFd);
  const found: { name: string; path: string; kind: "file" | "directory"; size?: number; symlink?: boolean; addressable: boolean }[] = [];
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    await pace();
    if (isTempName(name)) continue;
    const path = childPath(dirPath, name);
    const kind = kinds?.[i];
    if (kind !== undefined) {
      // The first entry is looked up: without `x` on the directory that fails, and the directory
      // is reported unreadable exactly as with sizes.
      if (found.length === 0) {
        let there: boolean;
        try {
          there = lookUp(dirFd, name);
        } catch (error) {
          const code = nodeErrorCode(error);
          if (code !== "EACCES" && code !== "EPERM") throw fsErrorFromNode(error, "lstat", path);
          if (depth === 1) throw unreadable(dirPath, error);
          return;
        }
        if (!there) continue;
      }
      found.push({ name, path, kind, addressable: isAddressable(path) });
      continue;
    }
    let entry: Found | null;
    try {
      entry = step(ctx, here, name, path);
    } catch (error) {
      // No `x` on the directory: its names can be read but nothing about them. Unreadable, not empty.
      const code = nodeErrorCode((error as { cause?: unknown }).cause);
      if (code === "EACCES" || code === "EPERM") {
        if (depth === 1) throw unreadable(dirPath, error);
        return;
      }
      // Symlinks leading outside, dangling or looping are left out of listings.
      if (error instanceof FsError && error.code === "FS_ACCESS_DENIED") continue;
      throw error;
    }
    if (!entry) continue;
    const { stats } = entry;
    const looked = stats.isDirectory() ? "directory" : stats.isFile() ? "file" : undefined;
    if (looked === undefined) continue;
    const symlink = entry.real !== entry.entry;
    found.push({ name, path, kind: looked, size: looked === "file" ? stats.size : 0, symlink, addressable: isAddressable(path) });
  }
  for (const item of found) {
    const symlink = item.symlink === true;
    const flags = { ...(symlink ? { symlink } : {}), ...(item.addressable ? {} : { unaddressable: true }) };
    if (item.kind === "directory") {
      out.push({ path: item.path, name: item.name, kind: "directory", size: 0, ...flags });
      // A symlinked directory is listed but not entered: that avoids cycles and duplicates.
      if (!symlink && item.addressable && depth < maxDepth) await walkChild(ctx, dirFd, item, depth + 1, maxDepth, out, sizes);
    } else {
      out.push({ path: item.path, name: item.name, kind: "file", size: item.size ?? -1, ...flags });
    }
  }
}

/** Walk one subdirectory, opened through its parent's descriptor (a swapped-in symlink is skipped). */
async function walkChild(
  ctx: LocalContext,
  dirFd: number,
  item: { name: string; path: string },
  depth: number,
  maxDepth: number,
  out: ListEntry[],
  sizes: boolean,
): Promise<void> {
  let child: number;
  try {
    child = openChildDir(dirFd, item.name);
  } catch (error) {
    // Gone, or replaced by a symlink or a file since it was looked at: nothing to walk.
    const code = nodeErrorCode(error);
    if (code === "ENOENT" || code === "ELOOP" || code === "ENOTDIR") return;
    if (code === "EACCES" || code === "EPERM") return;
    throw fsErrorFromNode(error, "open", item.path);
  }
  try {
    await walk(ctx, child, item.path, depth, maxDepth, out, sizes);
  } finally {
    closeDir(child);
  }
}

/** `Storage.list` for local storage; a search's walk (no sizes) lists through `dirs`. */
export async function listDirectory(ctx: LocalContext, dirs: DirCache, path: string, options?: ListOptions): Promise<ListResult> {
  checkPath(path, ctx.realRoot);
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
}
