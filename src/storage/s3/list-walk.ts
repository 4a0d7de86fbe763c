/**
 * Turning ListObjectsV2 pages into a workspace listing, and knowing when a
 * listing cut at `limit` may stop reading pages. Pure.
 *
 * Why stopping needs care: S3 returns keys in UTF-8 byte order, but entries
 * are sorted by path in code-unit order and a directory is an entry of its
 * own. The directory "a" comes from the key "a/x", which S3 sends AFTER
 * "a-b" and "a.txt" (their "-" and "." sort before "/"), yet "a" sorts before
 * both. So the first `limit` keys seen are not the first `limit` entries;
 * {@link isSettled} says when no later key can produce a smaller entry.
 */
import { compareCodeUnits, finishListing } from "../listing.ts";
import { childPath } from "../path.ts";
import type { ListEntry, ListResult } from "../types.ts";

/** The entries gathered so far for one `list` call. */
export interface ListingWalk {
  /** The listed directory (workspace path, "" for the root). */
  readonly dir: string;
  /** Levels below `dir` to report. */
  readonly maxDepth: number;
  /** Path relative to `dir` -> entry. */
  readonly entries: Map<string, ListEntry>;
}

/** Start gathering a listing of `dir`, `maxDepth` levels deep. */
export function startWalk(dir: string, maxDepth: number): ListingWalk {
  return { dir, maxDepth, entries: new Map() };
}

function addEntry(walk: ListingWalk, rel: string, name: string, kind: ListEntry["kind"], size: number): void {
  const existing = walk.entries.get(rel);
  // A key "a" beside keys "a/..." (only other writers can make that): the file wins, as in `stat`.
  if (existing && (existing.kind === "file" || kind === "directory")) return;
  walk.entries.set(rel, { path: childPath(walk.dir, rel), name, kind, size });
}

/**
 * Record one key by its path relative to the listed directory: the
 * directories on the way (within depth) and the file itself (within depth).
 * A key ending in "/" is a folder marker (consoles create them) and adds
 * only directories. A key with an empty, "." or ".." segment cannot be
 * addressed through the workspace, so it is not listed.
 */
export function addObject(walk: ListingWalk, rel: string, size: number): void {
  const marker = rel.endsWith("/");
  const segments = (marker ? rel.slice(0, -1) : rel).split("/");
  if (segments.some((s) => s === "" || s === "." || s === "..")) return;
  let path = "";
  for (let depth = 1; depth <= segments.length && depth <= walk.maxDepth; depth++) {
    const name = segments[depth - 1];
    path = path === "" ? name : `${path}/${name}`;
    const isFile = depth === segments.length && !marker;
    addEntry(walk, path, name, isFile ? "file" : "directory", isFile ? size : 0);
  }
}

/** Record a common prefix (relative, without its trailing "/") of a delimited listing. */
export function addPrefix(walk: ListingWalk, rel: string): void {
  addObject(walk, `${rel}/`, 0);
}

/**
 * Compare in code-point order, which is UTF-8 byte order, which is the order
 * S3 lists keys in. Code-unit order differs only between astral characters
 * (surrogate pairs) and U+E000..U+FFFF; shifting units fixes that up.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return fixUp(x) - fixUp(y);
  }
  return a.length - b.length;
}

function fixUp(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}

/**
 * True when no key after `highWater` (both relative to the listed directory,
 * every key up to `highWater` in S3 order already recorded) can yield an
 * entry that sorts before `entry` in code-unit order.
 *
 * A later key K > highWater yields entries that are either greater than
 * highWater, or a prefix highWater[0..j) where highWater[j] sorts before "/"
 * (the "a" of "a-b" when "a/x" follows). So `entry` must not exceed the
 * shortest such prefix. And since "greater" is in code-point order, the
 * characters `entry` shares with highWater (and the one after) must not be in
 * U+E000..U+FFFF, where code-point and code-unit order disagree; in that rare
 * case the walk just reads on.
 */
export function isSettled(entry: string, highWater: string): boolean {
  let bound = highWater;
  for (let j = 1; j < highWater.length; j++) {
    if (highWater.charCodeAt(j) < 0x2f) {
      bound = highWater.slice(0, j);
      break;
    }
  }
  if (compareCodeUnits(entry, bound) > 0) return false;
  let shared = 0;
  while (shared < entry.length && shared < highWater.length && entry[shared] === highWater[shared]) shared++;
  for (let k = 0; k <= shared && k < highWater.length; k++) {
    if (highWater.charCodeAt(k) >= 0xe000) return false;
  }
  return true;
}

/**
 * Whether a listing cut at `limit` has all it needs: more than `limit`
 * entries (so `truncated` is known to be true) and the `limit`-th smallest
 * settled against `highWater`.
 */
export function canStop(walk: ListingWalk, limit: number | undefined, highWater: string | undefined): boolean {
  if (limit === undefined || walk.entries.size <= limit) return false;
  if (limit === 0) return true;
  if (highWater === undefined) return false;
  const rels = [...walk.entries.keys()].sort(compareCodeUnits);
  return isSettled(rels[limit - 1], highWater);
}

/** The listing result: sorted, cut at `limit`. */
export function finishWalk(walk: ListingWalk, limit: number | undefined): ListResult {
  return finishListing([...walk.entries.values()], limit);
}
