/**
 * The JS reference line hasher: plain JS, no WASM. Used where WASM is missing
 * or fails, and as the oracle the WASM module is tested against.
 */

import type { LineHasher, LineHashes } from "./types.ts";

const OFFSET_BASIS = 0x811c9dc5;
const PRIME = 0x01000193;
/**
 * PRIME^-1 mod 2^32. A "\r" is hashed as it is read; when a "\n" follows, one
 * inverse step takes it back out, which is cheaper than remembering the
 * previous state on every byte.
 */
const PRIME_INV = 0x359c449b;
const LF = 10;
const CR = 13;

/** Number of lines in `bytes` (final "\n" opens no extra line). */
function countLines(bytes: Uint8Array): number {
  let count = 0;
  // indexOf is a native byte search, far faster than a JS loop
  for (let at = bytes.indexOf(LF); at !== -1; at = bytes.indexOf(LF, at + 1)) count++;
  const n = bytes.length;
  return n > 0 && bytes[n - 1] !== LF ? count + 1 : count;
}

function fold8(h: number): number {
  const h16 = (h >>> 16) ^ (h & 0xffff);
  return ((h16 >>> 8) ^ h16) & 0xff;
}

/** Hash every line of a UTF-8 buffer in one pass, hashing while scanning for "\n". */
export function hashLinesJs(bytes: Uint8Array): LineHashes {
  const count = countLines(bytes);
  // one allocation for all three arrays: fresh memory is the costly part for big files
  const block = new ArrayBuffer(count * 9);
  const starts = new Uint32Array(block, 0, count);
  const ends = new Uint32Array(block, count * 4, count);
  const hashes = new Uint8Array(block, count * 8, count);
  const n = bytes.length;
  let line = 0;
  let start = 0;
  let h = OFFSET_BASIS;
  for (let i = 0; i < n; i++) {
    const b = bytes[i];
    if (b === LF) {
      let end = i;
      if (i > start && bytes[i - 1] === CR) {
        end = i - 1;
        h = Math.imul(h, PRIME_INV) ^ CR;
      }
      starts[line] = start;
      ends[line] = end;
      hashes[line] = fold8(h);
      line++;
      start = i + 1;
      h = OFFSET_BASIS;
    } else {
      h = Math.imul(h ^ b, PRIME);
    }
  }
  if (start < n) {
    starts[line] = start;
    ends[line] = n;
    hashes[line] = fold8(h);
  }
  return { count, hashes, starts, ends };
}

/** The JS backend as a {@link LineHasher}. */
export const jsHasher: LineHasher = {
  backend: "js",
  hashLines: hashLinesJs,
};
