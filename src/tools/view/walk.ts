/**
 * The directory walk behind listings and directory searches: depth-first,
 * siblings in name order (so a directory's contents follow it), one `list`
 * call per directory, never entering what is hidden, gitignored, beyond the
 * depth, a symlink, or one of the bulk directories below. Counts what it left out so
 * the output can say so.
 */

import { needsEscape } from "../../storage/path.ts";
import type { ListEntry, Storage } from "../../storage/types.ts";
import { type IgnoreLayer, ignoreLayer, isIgnored } from "./gitignore.ts";

/**
 * Directories whose contents are not walked unless named as the path, or
 * unless `gitignore: false` asks for everything: VCS metadata and installed
 * dependencies are huge and rarely what a model is looking for. They are
 * still listed (and marked) so their existence is not hidden.
 */
export const UNEXPANDED_DIRS: ReadonlySet<string> = new Set([".git", "node_modules"]);

/** What the walk may enter and show. */
export interface WalkOptions {
  /** Levels below the root to report (1 = the root's own entries). */
  readonly depth: number;
  readonly hidden: boolean;
  readonly gitignore: boolean;
  /** Stop after looking at this many entries (shown or not). */
  readonly maxVisited: number;
  readonly signal?: AbortSignal;
  /** False when file sizes are not needed (see `ListOptions.sizes`: a file's size may then be -1). */
  readonly sizes?: boolean;
}

/** One entry the walk reached. */
export interface WalkEntry extends ListEntry {
  /** 1 for the root's own entries. */
  readonly depth: number;
  /** A directory the walk would have entered but did not (see {@link UNEXPANDED_DIRS}). */
  readonly unexpanded: boolean;
}

/** What the walk left out, filled in as it goes. */
export interface WalkStats {
  visited: number;
  hidden: number;
  ignored: number;
  /** Directories reached but not entered (see {@link UNEXPANDED_DIRS}). */
  readonly unexpanded: string[];
  /** Directories the walk tried to enter but may not read (file permissions). */
  readonly unreadable: string[];
  /** False when `maxVisited` or the abort signal stopped the walk early. */
  complete: boolean;
}

/** A fresh {@link WalkStats}. */
export function walkStats(): WalkStats {
  return { visited: 0, hidden: 0, ignored: 0, unexpanded: [], unreadable: [], complete: true };
}

const decoder = new TextDecoder();

async function readIgnoreFile(storage: Storage, dir: string): Promise<IgnoreLayer | undefined> {
  const path = dir === "" ? ".gitignore" : `${dir}/.gitignore`;
  try {
    const { bytes } = await storage.read(path);
    return ignoreLayer(dir, decoder.decode(bytes));
  } catch {
    // No .gitignore (or an unreadable one) means no rules from here, as for git.
    return undefined;
  }
}

/**
 * The .gitignore layers that apply inside `root` from the directories above
 * it, shallowest first. Empty when `root` is itself excluded by them: naming
 * an ignored directory is asking to see it.
 */
async function ancestorLayers(storage: Storage, root: string): Promise<IgnoreLayer[]> {
  if (root === "") return [];
  const layers: IgnoreLayer[] = [];
  const parts = root.split("/");
  for (let i = 0; i < parts.length; i++) {
    const layer = await readIgnoreFile(storage, parts.slice(0, i).join("/"));
    if (layer) layers.push(layer);
  }
  return isIgnored(layers, root, true) ? [] : layers;
}

/**
 * Walk the directory `root` (normalised; must exist). Yields entries in
 * tree order; `stats` counts what was left out. Storage errors below the
 * root (a directory removed mid-walk) skip that directory.
 */
export async function* walkTree(storage: Storage, root: string, options: WalkOptions, stats: WalkStats): AsyncGenerator<WalkEntry> {
  const layers = options.gitignore ? await ancestorLayers(storage, root) : [];

  /** One directory being walked: its entries, the next one's index, and whether it added an ignore layer. */
  interface Frame {
    readonly entries: ListEntry[];
    next: number;
    readonly depth: number;
    readonly pushed: boolean;
  }

  /** List `dir` (and take its .gitignore); undefined when there is nothing to walk there. */
  async function open(dir: string, depth: number): Promise<Frame | undefined> {
    if (options.signal?.aborted) {
      stats.complete = false;
      return undefined;
    }
    let entries: ListEntry[];
    try {
      const limit = Math.max(1, options.maxVisited - stats.visited + 1);
      ({ entries } = await storage.list(dir, options.sizes === false ? { limit, sizes: false } : { limit }));
    } catch (error) {
      if (dir === root) throw error;
      // Unreadable is not empty: the listing says so. Anything else (removed mid-walk) is skipped.
      if ((error as { permission?: boolean }).permission) stats.unreadable.push(dir);
      return undefined;
    }
    let pushed = false;
    if (options.gitignore && entries.some((e) => e.name === ".gitignore" && e.kind === "file")) {
      const layer = await readIgnoreFile(storage, dir);
      if (layer) {
        layers.push(layer);
        pushed = true;
      }
    }
    return { entries, next: 0, depth, pushed };
  }

  // Depth first with an explicit stack rather than nested generators: each level of `yield*`
  // costs every entry below it another hop (a walk of node_modules is 5-10 levels deep).
  const stack: Frame[] = [];
  const first = await open(root, 1);
  if (first) stack.push(first);
  try {
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      if (frame.next >= frame.entries.length) {
        stack.pop();
        if (frame.pushed) layers.pop();
        continue;
      }
      const entry = frame.entries[frame.next++]!;
      if (stats.visited >= options.maxVisited) {
        stats.complete = false;
        return;
      }
      stats.visited++;
      if (!options.hidden && entry.name.startsWith(".")) {
        stats.hidden++;
        continue;
      }
      const isDir = entry.kind === "directory";
      if (options.gitignore && isIgnored(layers, entry.path, isDir)) {
        stats.ignored++;
        continue;
      }
      // A symlinked directory is listed, never entered (as ripgrep does): `l -> .` would repeat
      // the tree without end. A name no call can address is listed (escaped), never entered.
      // Any provider may hold such a name (a key another client wrote): flag it here too.
      const unaddressable = entry.unaddressable === true || needsEscape(entry.name);
      const enter = isDir && frame.depth < options.depth && !entry.symlink && !unaddressable;
      const unexpanded = enter && options.gitignore && UNEXPANDED_DIRS.has(entry.name);
      if (unexpanded) stats.unexpanded.push(entry.path);
      yield { ...entry, depth: frame.depth, unexpanded, ...(unaddressable ? { unaddressable } : {}) };
      if (enter && !unexpanded) {
        const child = await open(entry.path, frame.depth + 1);
        if (child) stack.push(child);
      }
      if (!stats.complete) return;
    }
  } finally {
    for (const frame of stack) if (frame.pushed) layers.pop();
  }
}
