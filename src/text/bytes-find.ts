/**
 * Substring search on bytes, for deciding that a file cannot match before
 * decoding it. Anchors on the needle's rarest byte (by a rough frequency
 * rank of bytes in source text) with the native `indexOf`, then compares
 * the rest in place: most files never become a string at all.
 */

/** Rough commonness of a byte in source code and prose: higher is more common. */
function commonness(byte: number): number {
  if (byte === 0x20 || byte === 0x0a) return 100;
  if (byte >= 0x61 && byte <= 0x7a) return "etaoinsrlcdumhpfgybvwkxjqz".length - "etaoinsrlcdumhpfgybvwkxjqz".indexOf(String.fromCharCode(byte)) + 40;
  if (byte === 0x09 || byte === 0x0d || byte === 0x2e || byte === 0x28 || byte === 0x29 || byte === 0x3b || byte === 0x2c) return 40;
  if (byte >= 0x30 && byte <= 0x39) return 30;
  if (byte >= 0x41 && byte <= 0x5a) return 20;
  if (byte < 0x80) return 25;
  return 10;
}

/** A compiled needle: where its anchor byte sits. */
export interface BytesNeedle {
  readonly bytes: Uint8Array;
  readonly anchor: number;
}

export function compileNeedle(bytes: Uint8Array): BytesNeedle {
  let anchor = 0;
  for (let i = 1; i < bytes.length; i++) if (commonness(bytes[i]!) < commonness(bytes[anchor]!)) anchor = i;
  return { bytes, anchor };
}

/** True when `needle` occurs in `hay`. An empty needle occurs everywhere. */
export function containsBytes(hay: Uint8Array, needle: BytesNeedle): boolean {
  return indexOfBytes(hay, needle, 0) !== -1;
}

/** Where `needle` first occurs in `hay` at or after `from`, or -1. An empty needle occurs at `from`. */
export function indexOfBytes(hay: Uint8Array, needle: BytesNeedle, from: number): number {
  const n = needle.bytes;
  if (n.length === 0) return from <= hay.length ? from : -1;
  const a = needle.anchor;
  const key = n[a]!;
  const last = hay.length - n.length + a;
  let at = hay.indexOf(key, from + a);
  while (at !== -1 && at <= last) {
    const start = at - a;
    let i = 0;
    while (i < n.length && hay[start + i] === n[i]) i++;
    if (i === n.length) return start;
    at = hay.indexOf(key, at + 1);
  }
  return -1;
}
