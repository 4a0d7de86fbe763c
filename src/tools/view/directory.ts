/**
 * `view` of a directory: one entry per line in tree order, each a
 * workspace-relative path (directories end with "/") so it can be pasted
 * into the next call, files with their size and what they hold (a line
 * count, or binary / not UTF-8 / empty). Bracketed meta lines say what was
 * counted, what was left out and why, and how to narrow a cut listing.
 */

import { ok, type ToolResult } from "../../result.ts";
import { decodeText } from "../../text/document.ts";
import type { ToolContext } from "../types.ts";
import { MAX_DEPTH } from "./schema.ts";
import { invalidArgument } from "./messages.ts";
import { plural } from "./format.ts";
import { LINE_COUNT_MAX_BYTES, type Listing, MAX_WALK_ENTRIES, renderListing } from "./listing.ts";
import { compileGlob } from "./glob.ts";
import { type WalkEntry, walkStats, walkTree } from "./walk.ts";

/** Most entries one listing shows. */
export const MAX_LIST_ENTRIES = 500;
export { LINE_COUNT_MAX_BYTES, MAX_WALK_ENTRIES };
/** Total bytes one listing reads to count lines. */
const LINE_COUNT_BUDGET_BYTES = 32 * 1024 * 1024;
/** Reads in flight at once while counting (hides per-request latency on object stores). */
const COUNT_CONCURRENCY = 8;
const META_RESERVE_BYTES = 1024;

/** Listing arguments, as given. */
export interface ListArgs {
  readonly depth?: number;
  readonly pattern?: string;
  readonly hidden?: boolean;
  readonly gitignore?: boolean;
}

/** What a file holds, as a listing says it. */
export function describeContent(bytes: Uint8Array): string {
  if (bytes.length === 0) return "empty";
  const decoded = decodeText(bytes);
  if (!decoded.ok) return decoded.reason === "binary" ? "binary" : "not UTF-8";
  const text = decoded.text;
  if (text === "") return "empty";
  let lines = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines++;
  if (!text.endsWith("\n")) lines++;
  return plural(lines, "line");
}

/**
 * Build a filter for entries under `root` from a glob that may be written
 * relative to the workspace or to `root` ("lib/*.ts" while listing "src").
 */
export function entryFilter(pattern: string, root: string) {
  const glob = compileGlob(pattern);
  if (!glob.ok) return glob;
  const prefix = root === "" ? "" : `${root}/`;
  return {
    ok: true as const,
    test: (path: string) => glob.test(path) || (prefix !== "" && glob.test(path.slice(prefix.length))),
  };
}

async function mapPool<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** List the directory at `path` (normalised, known to be a directory). */
export async function listDirectory(ctx: ToolContext, path: string, args: ListArgs, notes: readonly string[] = []): Promise<ToolResult> {
  const filter = args.pattern !== undefined ? entryFilter(args.pattern, path) : undefined;
  if (filter && !filter.ok) return invalidArgument(filter.message);
  const listing = await collectListing(ctx, path, args, filter);
  const budget = Math.max(1, ctx.limits.maxOutputBytes - Math.min(META_RESERVE_BYTES, Math.floor(ctx.limits.maxOutputBytes / 4)));
  return ok(renderListing(listing, notes, budget));
}

/** Walk the directory and describe what a listing shows (the model the renderer prints). */
async function collectListing(ctx: ToolContext, path: string, args: ListArgs, filter: { test(path: string): boolean } | undefined): Promise<Listing> {
  const depth = args.depth ?? (args.pattern !== undefined ? MAX_DEPTH : 1);
  const stats = walkStats();
  const shown: WalkEntry[] = [];
  let matched = 0;
  let dirs = 0;
  let files = 0;
  // A directory whose contents this listing walked: listing it alone is a narrower view.
  let firstDir: string | undefined;
  const walk = walkTree(
    ctx.storage,
    path,
    { depth, hidden: args.hidden ?? false, gitignore: args.gitignore ?? true, maxVisited: MAX_WALK_ENTRIES, signal: ctx.signal },
    stats,
  );
  for await (const entry of walk) {
    if (filter && !filter.test(entry.path)) continue;
    matched++;
    if (entry.kind === "directory") {
      dirs++;
      if (firstDir === undefined && !entry.unexpanded && entry.depth < depth) firstDir = entry.path;
    } else files++;
    if (shown.length < MAX_LIST_ENTRIES) shown.push(entry);
  }
  const details = await countLines(ctx, shown);
  return {
    path,
    depth,
    ...(args.pattern !== undefined ? { pattern: args.pattern } : {}),
    entries: shown.map((entry) => ({ entry, detail: details.get(entry.path), unreadable: stats.unreadable.includes(entry.path) })),
    matched,
    dirs,
    files,
    complete: stats.complete,
    hidden: stats.hidden,
    ignored: stats.ignored,
    uncounted: details.uncounted,
    ...(firstDir !== undefined ? { firstDir } : {}),
  };
}

/** Content descriptions of the shown files that are small enough to read, and how many were not. */
async function countLines(ctx: ToolContext, entries: readonly WalkEntry[]): Promise<Map<string, string> & { uncounted: number }> {
  const details = Object.assign(new Map<string, string>(), { uncounted: 0 });
  const wanted: WalkEntry[] = [];
  let budget = LINE_COUNT_BUDGET_BYTES;
  for (const entry of entries) {
    if (entry.kind !== "file" || entry.unaddressable) continue;
    if (entry.size === 0) details.set(entry.path, "empty");
    else if (entry.size > LINE_COUNT_MAX_BYTES || entry.size > budget) details.uncounted++;
    else {
      budget -= entry.size;
      wanted.push(entry);
    }
  }
  await mapPool(wanted, COUNT_CONCURRENCY, async (entry) => {
    try {
      const { bytes } = await ctx.storage.read(entry.path);
      details.set(entry.path, describeContent(bytes));
    } catch {
      details.set(entry.path, "unreadable");
    }
  });
  return details;
}
