/**
 * Listing for local storage: a walk of the resolved directory, hiding temp
 * files, names no caller could address, and symlinks that lead outside,
 * dangle or loop. A symlinked directory is listed but never entered.
 */
import * as fsSync from "node:fs";
import { FsError } from "../errors.ts";
import { childPath } from "../path.ts";
import type { ListEntry } from "../types.ts";
import { pace } from "./io.ts";
import { fsErrorFromNode, nodeErrorCode } from "./node-errors.ts";
import { isAddressable, type LocalContext, step } from "./resolve.ts";
import { isTempName } from "./temp-name.ts";

/** Append the entries of the directory at real path `dirReal` (and below, to `maxDepth`) to `out`. */
export async function walk(
  ctx: LocalContext,
  dirReal: string,
  dirPath: string,
  depth: number,
  maxDepth: number,
  out: ListEntry[],
): Promise<void> {
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
      const entry = step(ctx, dirReal, name, path);
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
      if (item.real === item.entry && depth < maxDepth) await walk(ctx, item.real, item.path, depth + 1, maxDepth, out);
    } else if (item.stats.isFile()) {
      out.push({ path: item.path, name: item.name, kind: "file", size: item.stats.size });
    }
  }
}
