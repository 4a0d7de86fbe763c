/**
 * The directories of hosted workspaces on local storage, capped. Each one
 * costs an inode and a block, and a write makes every missing parent of its
 * path: without a cap, a few files at paths thousands of levels deep (or
 * files written and deleted in ever new directories) would fill the disk
 * inside any byte and file quota. Object stores (R2, S3) and memory have no
 * directories to count.
 *
 * A workspace may hold as many directories as its quota allows files
 * (`maxFiles`). Counts live in this process, like the local ledger's; they
 * start from the same listing as the usage. A write that makes directories
 * runs alone in its workspace (it is rare: most writes land in directories
 * that exist), so two writes making the same directory count it once.
 */
import type { CodedError } from "../../errors.ts";
import { QuotaExceededError } from "./ledger.ts";
import { createKeyedLock } from "../../storage/lock.ts";
import { ancestorPaths } from "../../storage/path.ts";
import type { Storage } from "../../storage/types.ts";

/** Directory counts per workspace. */
export interface DirectoryCounts {
  /** Set the count unless it is already known. */
  init(workspace: string, directories: number): void;
  /** The count, or undefined when never initialised. */
  count(workspace: string): number | undefined;
  /** Add `n` (negative: remove); the count must be known. */
  add(workspace: string, n: number): void;
  /** Forget the count (the workspace was deleted or is counted again). */
  clear(workspace: string): void;
  /** Run `work` after every earlier `exclusive` work of `workspace` ended. */
  exclusive<T>(workspace: string, work: () => Promise<T>): Promise<T>;
}

/** Counts in this process's memory. */
export function createDirectoryCounts(): DirectoryCounts {
  const counts = new Map<string, number>();
  const lock = createKeyedLock();
  return {
    init(workspace, directories) {
      if (!counts.has(workspace)) counts.set(workspace, directories);
    },
    count: (workspace) => counts.get(workspace),
    add(workspace, n) {
      counts.set(workspace, (counts.get(workspace) ?? 0) + n);
    },
    clear(workspace) {
      counts.delete(workspace);
    },
    exclusive: (workspace, work) => lock.run(workspace, work),
  };
}

/** The parents of `path` that do not exist, nearest first ("a/b/c.txt" with no `a`: ["a/b", "a"]). */
export async function missingParents(storage: Storage, path: string): Promise<string[]> {
  const missing: string[] = [];
  for (const dir of ancestorPaths(path).reverse()) {
    if ((await storage.stat(dir)) !== null) break;
    missing.push(dir);
  }
  return missing;
}

/** The LIMIT_EXCEEDED error of a write whose new directories would pass the cap; says nothing was written. */
export function directoriesExceeded(workspace: string, path: string, adding: number, used: number, max: number): CodedError {
  const detail =
    `writing ${path} would make ${adding} new director${adding === 1 ? "y" : "ies"} ` +
    `(${adding} missing parent${adding === 1 ? "" : "s"} of the path) to the ${used} in use, over the limit of ${max} directories ` +
    "(a workspace holds as many directories as files)";
  return new QuotaExceededError(
    `Workspace "${workspace}" is over its quota: ${detail}. Nothing was written. To go on: write into a directory that exists (a shorter path); ` +
      "if the work needs more, tell your user this workspace is full (its quota is raised by whoever hosts it).",
    detail,
  );
}
