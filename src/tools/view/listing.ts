/**
 * The text of a directory listing (pure): a bracketed head with what was
 * counted, what was left out and why, one row per entry (a path that can be
 * pasted into the next call, directories ending in "/", files with size and
 * what they hold), and how to narrow a cut listing.
 */
import { escapeName } from "../../storage/path.ts";
import { utf8Length } from "../../text/render.ts";
import { hasHiddenCharacters, showHidden } from "../support/lookalike-names.ts";
import { asciiJson } from "../support/paths.ts";
import { shownPath } from "../support/remedy.ts";
import { formatSize, plural, quoteArg, viewCall } from "./format.ts";
import type { WalkEntry } from "./walk.ts";

/** Most entries one walk looks at before it stops and says the count is a lower bound. */
export const MAX_WALK_ENTRIES = 20_000;
/** Files up to this size get a line count; larger ones are not read just to count. */
export const LINE_COUNT_MAX_BYTES = 1024 * 1024;

/** One row of a listing: the entry, what the file holds, and whether it could not be read. */
export interface ListedEntry {
  readonly entry: WalkEntry;
  /** "12 lines", "binary", "empty"...; absent when not counted. */
  readonly detail?: string;
  readonly unreadable: boolean;
}

/** What a listing found: the model {@link renderListing} prints. */
export interface Listing {
  /** The listed directory, normalised ("" is the root). */
  readonly path: string;
  readonly depth: number;
  readonly pattern?: string;
  /** The entries shown, in tree order. */
  readonly entries: readonly ListedEntry[];
  /** Entries that passed the pattern (shown or not), and how many were directories and files. */
  readonly matched: number;
  readonly dirs: number;
  readonly files: number;
  /** False when the walk stopped early: the counts are lower bounds. */
  readonly complete: boolean;
  readonly hidden: number;
  readonly ignored: number;
  /** Files whose lines were not counted (too large, or past the reading budget). */
  readonly uncounted: number;
  /** A directory the listing walked into: listing it alone is a narrower view. */
  readonly firstDir?: string;
}

/** Render `listing` with `notes`, its rows within `budget` bytes. */
export function renderListing(listing: Listing, notes: readonly string[], budget: number): string {
  const rows: string[] = [];
  let bytes = 0;
  for (const { entry, detail, unreadable } of listing.entries) {
    const row = renderEntry(entry, detail, unreadable);
    bytes += utf8Length(row) + 1;
    if (bytes > budget && rows.length > 0) break;
    rows.push(row);
  }
  const out = [head(listing)];
  const skipped: string[] = [];
  if (listing.hidden > 0) skipped.push(`${listing.hidden} hidden (add "hidden": true)`);
  if (listing.ignored > 0) skipped.push(`${listing.ignored} gitignored (add "gitignore": false)`);
  if (skipped.length > 0) out.push(`[not shown: ${skipped.join(", ")}]`);
  if (notes.length > 0) out.push(`[note: ${notes.join("; ")}]`);
  out.push(...rows);
  if (listing.uncounted > 0) {
    out.push(`[line counts left out for ${plural(listing.uncounted, "file")} over ${formatSize(LINE_COUNT_MAX_BYTES)} or past the reading budget]`);
  }
  const atLeast = listing.complete ? "" : "at least ";
  if (rows.length < listing.matched) {
    const left = listing.matched - rows.length;
    const suggestions = [
      listing.firstDir !== undefined ? `one subdirectory (${viewCall(listing.firstDir)})` : undefined,
      listing.depth > 1 ? `a smaller "depth"` : undefined,
      listing.pattern === undefined ? `a "pattern" such as "**/*.ts"` : `a narrower "pattern"`,
    ].filter((s) => s !== undefined);
    out.push(
      `[cut: showing ${rows.length} of ${atLeast}${listing.matched} entries, ${atLeast}${left} not shown. ` + `Narrow it with ${suggestions.join(", or ")}]`,
    );
  } else if (!listing.complete) {
    out.push(`[the walk stopped after ${MAX_WALK_ENTRIES} entries; list a subdirectory or use a "pattern" to see the rest]`);
  }
  return out.join("\n");
}

function head(listing: Listing): string {
  const { matched, pattern } = listing;
  const name = listing.path === "" ? "./" : `${listing.path}/`;
  const parts: string[] = [];
  if (listing.dirs > 0) parts.push(plural(listing.dirs, "directory", "directories"));
  if (listing.files > 0) parts.push(plural(listing.files, "file"));
  const counts = `${listing.complete ? "" : "at least "}${parts.join(", ")}`;
  const scope = listing.depth === 1 ? "" : ` (depth ${listing.depth})`;
  if (pattern !== undefined) {
    const verb = matched === 1 ? "matches" : "match";
    return matched === 0 ? `[${name}: nothing matches ${quoteArg(pattern)}${scope}]` : `[${name}: ${counts} ${verb} ${quoteArg(pattern)}${scope}]`;
  }
  if (matched === 0) return `[${name}: ${listing.hidden + listing.ignored > 0 ? "nothing to show" : "empty directory"}]`;
  return `[${name}: ${counts}${scope}]`;
}

function renderEntry(entry: WalkEntry, detail: string | undefined, unreadable: boolean): string {
  // Invisible characters and end spaces are escaped too, or two look-alike rows read the same; the JSON path still addresses it.
  const hidden = !entry.unaddressable && hasHiddenCharacters(entry.path);
  const name = entry.unaddressable ? escapeName(entry.path) : hidden ? showHidden(shownPath(entry.path)) : shownPath(entry.path);
  const notes: string[] = [];
  if (entry.symlink) notes.push("symlink");
  if (entry.unaddressable) notes.push("name has characters no path may use; shown escaped, rename it to use it");
  if (hidden) notes.push(`name has invisible characters or spaces at an end, shown escaped; its path as JSON: ${asciiJson(shownPath(entry.path))}`);
  if (unreadable) notes.push("unreadable: permission denied");
  if (entry.kind === "directory") {
    if (entry.unexpanded) notes.push("not walked; view it by path to list it");
    return notes.length > 0 ? `${name}/  (${notes.join("; ")})` : `${name}/`;
  }
  const facts = [formatSize(entry.size), ...(detail ? [detail] : []), ...notes];
  return `${name}  ${facts.join(", ")}`;
}
