/**
 * Directory listings over R2 keys. A directory is a key prefix, so a listing
 * pages through the keys below it (`cursor`/`truncated`) and derives the
 * entries: with `delimiter: '/'` for one level, without it (and with the
 * directories rebuilt from each key's ancestors) for a recursive walk.
 *
 * Memory stays bounded by the result: with a `limit`, only about 2x that many
 * entries are held at once, and paging stops as soon as no later key can
 * change the answer (see {@link pathFloor}), instead of walking the whole
 * prefix. Entries are sorted by path in code-unit order like every provider;
 * R2 lists keys in UTF-8 byte (code point) order, which differs from that
 * only for astral characters against U+E000..U+FFFF, and the early stop
 * guards against exactly that case.
 */
import { FsError } from "../errors.ts";
import { compareCodeUnits, finishListing } from "../listing.ts";
import type { R2BucketLike, R2ObjectsLike } from "./bucket.ts";
import type { ListEntry, ListResult } from "../types.ts";

/** What {@link listR2} lists. */
export interface R2ListRequest {
  /** The workspace's key prefix ("ws1/", or "" for the whole bucket). */
  readonly keyPrefix: string;
  /** Normalised workspace path of the directory ("" is the root). */
  readonly dir: string;
  /** Levels below `dir` to report (1 = its children; Infinity = all). */
  readonly maxDepth: number;
  readonly limit?: number;
  /** Keys per list call (R2 allows at most 1000). */
  readonly pageSize: number;
}

/** A listing plus whether any key at all lies below the directory. */
export interface R2ListOutcome extends ListResult {
  /** No key below the prefix: the directory does not exist (unless it is the root). */
  readonly empty: boolean;
}

/** Code units at or above U+D800 sort differently by code unit and by code point. */
const ORDER_SENSITIVE = /[\ud800-\uffff]/;

/** Keeps the smallest entries by path: all of them without a limit, else about 2 x (limit + 1). */
export interface EntryCollector {
  add(entry: ListEntry): void;
  /**
   * True when the first `limit` entries are final and more exist, given that
   * every entry still to come has a path at or above `floor`.
   */
  settledBelow(floor: string): boolean;
  finish(): ListResult;
}

/** A collector for a listing cut at `limit` entries (none: keep everything). */
export function collectEntries(limit: number | undefined): EntryCollector {
  let kept: ListEntry[] = [];
  const keep = limit === undefined ? Number.POSITIVE_INFINITY : limit + 1;
  const compact = () => {
    kept.sort((a, b) => compareCodeUnits(a.path, b.path));
    if (kept.length > keep) kept = kept.slice(0, keep);
  };
  return {
    add(entry) {
      kept.push(entry);
      // Compacting at 2x keeps the sorting cost amortised O(log k) per entry.
      if (kept.length >= 2 * keep + 64) compact();
    },
    settledBelow(floor) {
      if (limit === undefined) return false;
      compact();
      // Only with more than `limit` entries in hand is `truncated` known.
      if (kept.length <= limit) return false;
      if (limit === 0) return true;
      const last = kept[limit - 1].path;
      return !ORDER_SENSITIVE.test(last) && compareCodeUnits(last, floor) < 0;
    },
    finish() {
      return finishListing(kept, limit);
    },
  };
}

/**
 * A lower bound on the path of every entry derived from keys after
 * `relative` (a key below the listed prefix, relative to it).
 *
 * A later key K > k yields K itself or an ancestor directory d of K. If d < k
 * then k must start with d followed by a character below "/" (otherwise K
 * would sort before k, or d would already have come from k): so d is at least
 * k cut before its first character below "/" (after the first character; an
 * entry name is never empty).
 */
export function pathFloor(relative: string): string {
  for (let i = 1; i < relative.length; i++) {
    if (relative.charCodeAt(i) < 0x2f) return relative.slice(0, i);
  }
  return relative;
}

/**
 * The segments of a relative key, and whether it names only directories.
 * A key ending in "/" is a directory marker (some S3 tools create them); a
 * key with an empty segment ("a//b") cannot be named by a normalised path,
 * so only the directories before the gap show, as they do with a delimiter.
 */
function segmentsOf(relative: string): { segments: string[]; marker: boolean } | undefined {
  const segments = relative.split("/");
  const gap = segments.indexOf("");
  if (gap === 0) return undefined;
  return gap === -1 ? { segments, marker: false } : { segments: segments.slice(0, gap), marker: true };
}

/**
 * Turns keys (in key order) into entries for a recursive listing. A
 * directory is reported once: keys below it are contiguous in key order, so
 * it is new exactly when the previous key's ancestors did not include it.
 */
export function recursiveDeriver(base: string, maxDepth: number): (relative: string, size: number) => ListEntry[] {
  let previous: string[] = [];
  return (relative, size) => {
    const parsed = segmentsOf(relative);
    if (!parsed) return [];
    const { segments, marker } = parsed;
    const dirCount = marker ? segments.length : segments.length - 1;
    const chain: string[] = [];
    const entries: ListEntry[] = [];
    let path = base;
    for (let i = 0; i < segments.length; i++) {
      path = i === 0 ? base + segments[0] : `${path}/${segments[i]}`;
      const depth = i + 1;
      if (i < dirCount) {
        chain.push(path);
        if (depth <= maxDepth && previous[i] !== path) entries.push({ path, name: segments[i], kind: "directory", size: 0 });
      } else if (depth <= maxDepth) {
        entries.push({ path, name: segments[i], kind: "file", size });
      }
    }
    previous = chain;
    return entries;
  };
}

/** The greatest key (or rolled-up prefix) of a page; every later page's keys sort after it. */
function lastKeyOf(page: R2ObjectsLike): string | undefined {
  const object = page.objects.at(-1)?.key;
  const prefix = page.delimitedPrefixes.at(-1);
  if (object === undefined) return prefix;
  if (prefix === undefined) return object;
  // biome-ignore lint/complexity/useMathMinMax: these are strings (the later key in R2's order); Math.max would make them numbers
  return object > prefix ? object : prefix;
}

/** List the directory `request.dir` of a workspace stored under `request.keyPrefix`. */
export async function listR2(bucket: R2BucketLike, request: R2ListRequest): Promise<R2ListOutcome> {
  const base = request.dir === "" ? "" : `${request.dir}/`;
  const prefix = request.keyPrefix + base;
  const oneLevel = request.maxDepth <= 1;
  const collector = collectEntries(request.limit);
  const derive = recursiveDeriver(base, request.maxDepth);
  let empty = true;
  let cursor: string | undefined;
  for (;;) {
    const page = await bucket.list({
      prefix,
      limit: request.pageSize,
      ...(oneLevel ? { delimiter: "/" } : {}),
      ...(cursor === undefined ? {} : { cursor }),
    });
    if (page.objects.length > 0 || page.delimitedPrefixes.length > 0) empty = false;
    for (const object of page.objects) {
      const relative = object.key.slice(prefix.length);
      if (!oneLevel) {
        for (const entry of derive(relative, object.size)) collector.add(entry);
      } else if (relative !== "" && !relative.includes("/")) {
        collector.add({ path: base + relative, name: relative, kind: "file", size: object.size });
      }
    }
    for (const rolledUp of page.delimitedPrefixes) {
      const name = rolledUp.slice(prefix.length, -1);
      if (name !== "" && !name.includes("/")) collector.add({ path: base + name, name, kind: "directory", size: 0 });
    }
    if (!page.truncated) break;
    if (!page.cursor) throw new FsError("FS_IO_ERROR", "R2 list reported more keys but no cursor", { path: request.dir });
    const last = lastKeyOf(page);
    if (last !== undefined && collector.settledBelow(base + pathFloor(last.slice(prefix.length)))) break;
    cursor = page.cursor;
  }
  return { ...collector.finish(), empty };
}
