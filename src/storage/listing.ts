/**
 * Listing rules shared by every provider, so that `list` means the same thing
 * whatever holds the bytes: which depth a call walks to, the sort order, and
 * how `limit` cuts the result.
 */
import { CodedError } from "../errors.ts";
import type { ListEntry, ListOptions, ListResult } from "./types.ts";

/**
 * How many levels below the listed directory to report: 1 without
 * `recursive`, else `depth` (unbounded when absent).
 */
export function listDepth(options: ListOptions | undefined): number {
  if (!options?.recursive) return 1;
  return options.depth ?? Number.POSITIVE_INFINITY;
}

/**
 * Refuse list options no provider could honour (a negative or fractional
 * `limit`, a `depth` below 1) with INVALID_ARGUMENT, rather than guessing.
 */
export function checkListOptions(options: ListOptions | undefined): void {
  if (options === undefined) return;
  const { limit, depth } = options;
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 0)) {
    throw new CodedError("INVALID_ARGUMENT", `list limit must be a non-negative integer, got ${limit}`);
  }
  if (depth !== undefined && !(Number.isInteger(depth) && depth >= 1)) {
    throw new CodedError("INVALID_ARGUMENT", `list depth must be an integer >= 1, got ${depth}`);
  }
}

/** Code-unit order (not locale order), so every provider and runtime agrees. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Sort entries by path and apply `limit`, reporting whether it cut anything. */
export function finishListing(entries: ListEntry[], limit: number | undefined): ListResult {
  entries.sort((a, b) => compareCodeUnits(a.path, b.path));
  if (limit === undefined || entries.length <= limit) return { entries, truncated: false };
  return { entries: entries.slice(0, limit), truncated: true };
}
