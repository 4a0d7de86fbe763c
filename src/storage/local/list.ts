/**
 * Listing for local storage: a walk of the resolved directory through
 * descriptors opened from the root without following symlinks (./dirfd.ts),
 * so a directory swapped for a symlink mid-walk cannot list what is outside.
 * Temp files and symlinks that lead outside, dangle or loop are left out; a
 * symlinked directory is listed but never entered; a name no call could
 * address is listed, flagged, and not entered.
 */
import * as fsSync from "node:fs";
import { FsError } from "../errors.ts";
import { childPath } from "../path.ts";
import type { ListEntry } from "../types.ts";
import { at, closeDir, openChildDir } from "./dirfd.ts";
import { pace } from "./io.ts";
import { fsErrorFromNode, nodeErrorCode } from "./node-errors.ts";
import { type Found, isAddressable, type LocalContext, step } from "./resolve.ts";
import { isTempName } from "./temp-name.ts";

/** The directory `path` could not be read for lack of permission (no `r`, or no `x` to look inside). */
function unreadable(path: string, cause: unknown): FsError {
  return new FsError("FS_ACCESS_DENIED", `permission denied: cannot read directory ${path === "" ? "." : path}`, {
    cause,
    path,
    permission: true,
  });
}

/**
 * Append the entries of the directory held open as `dirFd` (workspace path
 * `dirPath`), and below it to `maxDepth`, to `out`. The caller closes `dirFd`.
 */
export async function walk(ctx: LocalContext, dirFd: number, dirPath: string, depth: number, maxDepth: number, out: ListEntry[]): Promise<void> {
  await pace();
  let names: string[];
  try {
    names = fsSync.readdirSync(at(dirFd));
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
  const found = [];
  for (const name of names) {
    await pace();
    if (isTempName(name)) continue;
    const path = childPath(dirPath, name);
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
    if (entry) found.push({ name, path, ...entry, addressable: isAddressable(path) });
  }
  for (const item of found) {
    const symlink = item.real !== item.entry;
    const flags = { ...(symlink ? { symlink } : {}), ...(item.addressable ? {} : { unaddressable: true }) };
    if (item.stats.isDirectory()) {
      out.push({ path: item.path, name: item.name, kind: "directory", size: 0, ...flags });
      // A symlinked directory is listed but not entered: that avoids cycles and duplicates.
      if (!symlink && item.addressable && depth < maxDepth) await walkChild(ctx, dirFd, item, depth + 1, maxDepth, out);
    } else if (item.stats.isFile()) {
      out.push({ path: item.path, name: item.name, kind: "file", size: item.stats.size, ...flags });
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
    await walk(ctx, child, item.path, depth, maxDepth, out);
  } finally {
    closeDir(child);
  }
}
