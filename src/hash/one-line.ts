/**
 * The id hash of one line by a {@link LineHasher}: the same value as
 * {@link lineHash}, but a long line (a minified bundle's, megabytes) is
 * hashed by the hasher given, which is the WASM module where it loaded
 * (4x the JS loop). A search shows such lines whole-hashed on every hit.
 */
import { lineHash } from "./fnv.ts";
import type { LineHasher } from "./types.ts";

/** Shorter lines stay in JS: a call into the hasher costs more than hashing them. */
export const HASHER_FROM_CHARS = 512;
const encoder = new TextEncoder();

/** {@link lineHash} of `line` (no "\n" in it), by `hasher` when it is long. */
export function lineHashBy(hasher: LineHasher, line: string): number {
  if (line.length < HASHER_FROM_CHARS) return lineHash(line);
  const hashed = hasher.hashLines(encoder.encode(line));
  // Exactly one line, as for any text without "\n"; anything else is hashed as lineHash does.
  return hashed.count === 1 ? hashed.hashes[0]! : lineHash(line);
}
