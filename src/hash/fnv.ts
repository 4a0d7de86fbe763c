/**
 * FNV-1a 32-bit and the 32 -> 16 -> 8 fold that line ids use (compatible with
 * Octofs 0.9.0). This is the reference implementation; the WASM module in
 * `wasm/` must agree with it byte for byte.
 *
 * An 8-bit hash means a changed line keeps its hash with probability 1/256.
 * That is acceptable because an id is position + hash: the position check
 * catches shifted lines, and every edit result returns fresh ids from a diff,
 * so a collision can only mask a change that also kept the line in place.
 */

const OFFSET_BASIS = 0x811c9dc5;
const PRIME = 0x01000193;

/** FNV-1a 32-bit over `bytes[start, end)`, as an unsigned 32-bit integer. */
export function fnv1a32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let h = OFFSET_BASIS;
  for (let i = start; i < end; i++) {
    h = Math.imul(h ^ bytes[i], PRIME);
  }
  return h >>> 0;
}

/** Fold a 32-bit hash to 8 bits: 32 -> 16 -> 8 by XOR. */
export function fold8(h32: number): number {
  const h16 = ((h32 >>> 16) ^ (h32 & 0xffff)) >>> 0;
  return ((h16 >>> 8) ^ (h16 & 0xff)) & 0xff;
}

const encoder = new TextEncoder();

/** The 8-bit id hash of one line of text (hashed as UTF-8, no trimming). */
export function lineHash(line: string): number {
  return fold8(fnv1a32(encoder.encode(line)));
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Two lowercase hex digits of an 8-bit hash. */
export function formatHash(h8: number): string {
  return HEX[h8 & 0xff];
}
