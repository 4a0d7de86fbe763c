/**
 * Line positions found by scanning UTF-8 bytes, without decoding or
 * splitting the file: what an edit of a few lines of a large file needs
 * (where line N starts, how many lines there are, how the lines end). The
 * line model is `splitLines`'s: lines end at "\n" (a "\r" right before it
 * belongs to the terminator), and a final newline opens no extra line.
 */

import { type BytesNeedle, indexOfBytes as boundedIndexOf } from "./bytes-find.ts";
import type { EolStyle } from "./eol.ts";

const LF = 0x0a;
const CR = 0x0d;

/**
 * The "\n" bytes in `bytes[from, to)`. The native `indexOf` (a memchr) per
 * line beat a word-at-a-time JS loop on Bun by 5x (2 ms vs 10 ms for
 * 100k lines: JSC runs that loop's arithmetic in doubles).
 */
export function countNewlines(bytes: Uint8Array, from = 0, to = bytes.length): number {
  let count = 0;
  for (let i = bytes.indexOf(LF, from); i !== -1 && i < to; i = bytes.indexOf(LF, i + 1)) count++;
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
  for (let i = bytes.indexOf(LF); i !== -1; i = bytes.indexOf(LF, i + 1)) if (--left === 0) return i + 1;
  // Past the last newline: `line` is the line count when the last line is unterminated and one newline was missing.
  const n = bytes.length;
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

/** The native substring search of Node's Buffer, where the runtime has one as a global (Bun, Node, Deno 2). */
type NativeSearch = { from(buffer: ArrayBufferLike, byteOffset: number, length: number): { indexOf(value: Uint8Array, from: number): number } };
const NativeBuffer = (globalThis as { Buffer?: NativeSearch }).Buffer;

/**
 * The offset of the first occurrence of `needle` in `hay` at or after
 * `from`, or -1 (an empty needle is at `from`). Native where the runtime
 * has it: on Bun the JS loop below took 8-18 ms for a 5 MB file while its
 * code was still cold (every candidate of a common anchor byte checked in
 * the interpreter), the native search 0.2-0.6 ms.
 */
export function indexOfBytes(hay: Uint8Array, needle: BytesNeedle, from = 0): number {
  if (NativeBuffer !== undefined && needle.bytes.length > 0 && from <= hay.length) {
    return NativeBuffer.from(hay.buffer, hay.byteOffset, hay.length).indexOf(needle.bytes, from);
  }
  return indexOfBytesJs(hay, needle, from);
}

/** {@link indexOfBytes} in plain JS (the Workers runtime has no global Buffer). */
export function indexOfBytesJs(hay: Uint8Array, needle: BytesNeedle, from = 0): number {
  // The bounded search of ./bytes-find.ts: anchored, and linear however repetitive the needle.
  return boundedIndexOf(hay, needle, Math.max(0, from));
}

/**
 * The 0-based line holding offset `at`, given each line's start offset
 * (`starts`, ascending, `count` of them), searching forward from line
 * `from`: matches come in order, so the answer is usually near `from`;
 * gallop, then bisect.
 */
export function lineHolding(starts: ArrayLike<number>, count: number, at: number, from: number): number {
  let lo = from;
  let step = 1;
  let hi = from + 1;
  while (hi < count && starts[hi]! <= at) {
    lo = hi;
    step *= 2;
    hi = lo + step;
  }
  hi = Math.min(hi, count);
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (starts[mid]! <= at) lo = mid;
    else hi = mid;
  }
  return lo;
}
