/**
 * Line positions found by scanning UTF-8 bytes, without decoding or
 * splitting the file: what an edit of a few lines of a large file needs
 * (where line N starts, how many lines there are, how the lines end). The
 * line model is `splitLines`'s: lines end at "\n" (a "\r" right before it
 * belongs to the terminator), and a final newline opens no extra line.
 */

import type { BytesNeedle } from "./bytes-find.ts";
import type { EolStyle } from "./eol.ts";

const LF = 0x0a;
const CR = 0x0d;

/** Bit 7 of each byte of `x` that is zero (exact, no false positives). */
function zeroBytes(x: number): number {
  return ~(((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x | 0x7f7f7f7f);
}

/** How many of the (at most 4) flag bits of `zeroBytes` are set. */
function flags(t: number): number {
  return Math.imul((t >>> 7) & 0x01010101, 0x01010101) >>> 24;
}

/**
 * The "\n" bytes in `bytes[from, to)`. Four bytes at a time through a word
 * view of the aligned middle (an `indexOf` per line cost ~40 ns a call,
 * 4 ms for 100k lines).
 */
export function countNewlines(bytes: Uint8Array, from = 0, to = bytes.length): number {
  let count = 0;
  let i = from;
  while (i < to && ((bytes.byteOffset + i) & 3) !== 0) if (bytes[i++] === LF) count++;
  const wordCount = (to - i) >>> 2;
  if (wordCount > 0) {
    const words = new Uint32Array(bytes.buffer, bytes.byteOffset + i, wordCount);
    for (let w = 0; w < wordCount; w++) {
      const t = zeroBytes(words[w] ^ 0x0a0a0a0a);
      if (t !== 0) count += flags(t);
    }
    i += wordCount * 4;
  }
  while (i < to) if (bytes[i++] === LF) count++;
  return count;
}

/** Lines of `bytes` as `splitLines` counts them ("" has none, "a\n" one, "a\nb" two). */
export function countLines(bytes: Uint8Array): number {
  const n = bytes.length;
  return countNewlines(bytes, 0, n) + (n > 0 && bytes[n - 1] !== LF ? 1 : 0);
}

/**
 * Byte offset where 0-based line `line` starts; `bytes.length` for the line
 * just past the last one (and for any line beyond it, when the text ends
 * with a newline or is empty); -1 when the text has fewer lines than that.
 */
export function lineStart(bytes: Uint8Array, line: number): number {
  if (line <= 0) return 0;
  let left = line; // newlines still to pass
  let i = 0;
  const n = bytes.length;
  while (i < n && ((bytes.byteOffset + i) & 3) !== 0) {
    if (bytes[i++] === LF && --left === 0) return i;
  }
  const wordCount = (n - i) >>> 2;
  if (wordCount > 0) {
    const words = new Uint32Array(bytes.buffer, bytes.byteOffset + i, wordCount);
    let w = 0;
    for (; w < wordCount; w++) {
      const t = zeroBytes(words[w] ^ 0x0a0a0a0a);
      if (t === 0) continue;
      const c = flags(t);
      if (c >= left) break;
      left -= c;
    }
    i += w * 4;
  }
  for (; i < n; i++) if (bytes[i] === LF && --left === 0) return i + 1;
  // Past the last newline: `line` is the line count when the last line is unterminated and one newline was missing.
  return left === 1 && n > 0 && bytes[n - 1] !== LF ? n : -1;
}

/** Offset just past the terminator of the line that holds byte `at` (`bytes.length` for an unterminated last line). */
export function lineEndAfter(bytes: Uint8Array, at: number): number {
  const nl = bytes.indexOf(LF, at);
  return nl === -1 ? bytes.length : nl + 1;
}

/** Offset where the line holding byte `at` starts. */
export function lineStartBefore(bytes: Uint8Array, at: number): number {
  return at <= 0 ? 0 : bytes.lastIndexOf(LF, at - 1) + 1;
}

/**
 * The file's line-ending style (`detectEolStyle` of its split lines) from
 * the bytes: "\r\n" when more lines end with "\r\n" than with "\n"; the
 * final-newline state from the last byte. A file without "\r" costs one
 * native scan for it.
 */
export function eolStyleOfBytes(bytes: Uint8Array): EolStyle {
  const n = bytes.length;
  const finalNewline = n === 0 || bytes[n - 1] === LF;
  let crlf = 0;
  for (let i = bytes.indexOf(CR); i !== -1; i = bytes.indexOf(CR, i + 1)) if (bytes[i + 1] === LF) crlf++;
  if (crlf === 0) return { eol: "\n", finalNewline };
  const lf = countNewlines(bytes) - crlf;
  return { eol: crlf > lf ? "\r\n" : "\n", finalNewline };
}

/** The offset of the first occurrence of `needle` in `hay` at or after `from`, or -1 (an empty needle is at `from`). */
export function indexOfBytes(hay: Uint8Array, needle: BytesNeedle, from = 0): number {
  const n = needle.bytes;
  const m = n.length;
  if (m === 0) return from <= hay.length ? from : -1;
  // Anchored on the needle's rarest byte (see ./bytes-find.ts), found by the native indexOf.
  const a = needle.anchor;
  const key = n[a];
  const last = hay.length - m + a;
  for (let at = hay.indexOf(key, from + a); at !== -1 && at <= last; at = hay.indexOf(key, at + 1)) {
    const start = at - a;
    let k = 0;
    while (k < m && hay[start + k] === n[k]) k++;
    if (k === m) return start;
  }
  return -1;
}
