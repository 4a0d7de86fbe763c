/**
 * Start-up sweep of temp files left by a crash between write and rename.
 */
import type { Dirent } from "node:fs";
import * as fs from "node:fs/promises";
import { fsErrorFromNode, nodeErrorCode } from "./node-errors.ts";
import { joinReal, realDirectory } from "./resolve.ts";
import { isTempName } from "./temp-name.ts";

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
    let entries: Dirent[];
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (error) {
      const code = nodeErrorCode(error);
      // Gone, or not ours to read (no write in it could have left a temp file either): nothing to sweep.
      if (code === "ENOENT" || ((code === "EACCES" || code === "EPERM") && dir !== realRoot)) return;
      // Deeper than the system can name (made before paths were held to that): skipped, never fatal, so one
      // workspace's tree cannot keep a server from starting.
      if (code === "ENAMETOOLONG" && dir !== realRoot) return;
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
          const code = nodeErrorCode(error);
          if (code !== "ENOENT" && code !== "ENAMETOOLONG") throw fsErrorFromNode(error, "unlink", full);
        }
      }
    }
  }
  await sweep(realRoot);
  return removed;
}
