/**
 * How lines look to the model: `N:hh|content`, one per line. This is the hot
 * path of `view`, so {@link renderLines} copies the file's own UTF-8 bytes
 * into one buffer and decodes once instead of building a string per line.
 */

import { formatHash } from "../hash/fnv.ts";
import type { TextDocument } from "./document.ts";

/**
 * One view line: `N:hh|content`. Content longer than `maxChars` (UTF-16 code
 * units; a surrogate pair is never split) is cut and followed by a visible
 * `… [line truncated: 123456 chars total]` marker; the id still hashes the
 * whole line, so the line stays addressable by id. `maxChars` of
 * `Infinity` disables truncation.
 */
export function renderLine(n: number, h8: number, content: string, maxChars: number): string {
  const prefix = `${n}:${formatHash(h8)}|`;
  return content.length > maxChars ? prefix + truncate(content, maxChars) : prefix + content;
}

/** Options for {@link renderLines}. */
export interface RenderOptions {
  /** Longest line content shown before it is truncated with a marker. */
  readonly maxLineChars: number;
  /**
   * Stop before the output would exceed this many UTF-8 bytes (the "\n"
   * between lines included). The first line is always rendered, so a view
   * always makes progress. Omitted: no budget.
   */
  readonly maxOutputBytes?: number;
  /**
   * Render the first line even when it alone exceeds `maxOutputBytes`
   * (default true, so a view always makes progress). False when these rows
   * continue rows already rendered under the same budget.
   */
  readonly firstLineAlways?: boolean;
}

/** What {@link renderLines} produced. */
export interface RenderedLines {
  /** The rendered lines joined by "\n" (no trailing newline); "" when no line was rendered. */
  readonly text: string;
  /** First line rendered (1-based). */
  readonly from: number;
  /** Last line rendered (1-based); `from - 1` when none was. */
  readonly to: number;
  /** How many rendered lines were cut by `maxLineChars`. */
  readonly truncatedLines: number;
  /** False when `maxOutputBytes` stopped rendering before the requested `to`. */
  readonly complete: boolean;
  /** The hashes of the rendered lines `from..to` (the ids shown), when the renderer kept them. */
  readonly hashes?: Uint8Array;
}

/**
 * The line columns {@link renderLines} reads: a document, or a window of
 * lines a streaming scan kept. `lineChars[i]`, when given and non-zero, is
 * the UTF-16 length of line i's whole content where the bytes kept for it
 * are only its beginning (a long line cut while streaming).
 */
export type RenderSource = Pick<TextDocument, "hashes" | "body" | "starts" | "ends"> & {
  readonly lineChars?: ArrayLike<number>;
  /** Number of the first line of the source (default 1): a window rendered with its real line numbers. */
  readonly firstLine?: number;
};

/**
 * Render lines `from..to` (1-based, inclusive, clamped to the document) as
 * `N:hh|content` lines. A range that starts past the end renders nothing.
 *
 * The output is assembled as UTF-8 bytes copied from `doc.body` and decoded
 * once: no per-line strings, which is what keeps a whole-file view fast and
 * makes the byte budget exact. The text equals joining {@link renderLine}
 * of each line with "\n".
 */
export function renderLines(doc: RenderSource, from: number, to: number, options: RenderOptions): RenderedLines {
  const { bytes: _bytes, ...rendered } = renderRows(doc, from, to, options);
  return rendered;
}

/** {@link renderLines}, also saying how many UTF-8 bytes the text is (for a budget shared across calls). */
export function renderRows(doc: RenderSource, from: number, to: number, options: RenderOptions): RenderedLines & { readonly bytes: number } {
  const { hashes, body, starts, ends } = doc;
  const base = (doc.firstLine ?? 1) - 1;
  const n = hashes.length;
  const first = Math.max(base + 1, Math.trunc(from));
  const last = Math.min(base + n, Math.trunc(to));
  // Written as a negation so a NaN bound renders nothing rather than misbehaving.
  if (!(last >= first)) return { text: "", from: first, to: first - 1, truncatedLines: 0, complete: true, bytes: 0, hashes: new Uint8Array(0) };

  const maxChars = options.maxLineChars;
  const budget = options.maxOutputBytes ?? Number.POSITIVE_INFINITY;
  const i0 = first - 1 - base;
  const mayStopAt = options.firstLineAlways === false ? i0 : i0 + 1;
  const i1 = last - 1 - base;
  const digits = LineNumber.at(first);
  let out = scratchFor(ends[i1] - starts[i0] + (i1 - i0 + 1) * (String(last).length + 5));
  let sink = wordsOf(out);
  const source = wordsOf(body);
  // [start, end) in `out` of rows with non-ASCII bytes, to decode on their own (see decodeRows).
  const wide: number[] = [];
  let p = 0;
  let truncatedLines = 0;
  let i = i0;
  for (; i <= i1; i++) {
    const s = starts[i];
    const e = ends[i];
    // A line of at most maxChars bytes has at most maxChars UTF-16 units: no string needed.
    const cut = e - s > maxChars ? cutLine(doc, i, maxChars) : undefined;
    const need = PREFIX_MAX + (cut === undefined ? e - s : cut.length * 3);
    if (p + need > out.length) {
      out = grow(out, p + need);
      sink = wordsOf(out);
    }

    const lineStart = p;
    if (i > i0) out[p++] = 0x0a;
    p = digits.write(out, p);
    sink.setInt32(p, ID_TAILS[hashes[i]], true); // ":hh|" in one store
    p += 4;
    let high = 0;
    if (cut !== undefined) {
      const written = encoder.encodeInto(cut, out.subarray(p)).written;
      // As many bytes as UTF-16 units only when every unit is ASCII.
      if (written !== cut.length) high = 0x80;
      p += written;
    } else {
      // Four bytes per step through DataViews (unaligned access is fine there), the rest one by
      // one; OR-ing what passes says whether the line is pure ASCII at no extra pass.
      let j = s;
      for (const e4 = e - 3; j < e4; j += 4, p += 4) {
        const w = source.getInt32(j, true);
        high |= w;
        sink.setInt32(p, w, true);
      }
      for (; j < e; j++) {
        const b = body[j];
        high |= b;
        out[p++] = b;
      }
    }
    if (p > budget && i >= mayStopAt) {
      p = lineStart;
      break;
    }
    if ((high & 0x80808080) !== 0) {
      if (wide.length > 0 && wide[wide.length - 1] === lineStart) wide[wide.length - 1] = p;
      else wide.push(lineStart, p);
    }
    if (cut !== undefined) truncatedLines++;
    digits.increment();
  }
  // Decoding copies, so the scratch buffer is free again once this returns.
  return {
    text: decodeRows(out, p, wide),
    from: first,
    to: i + base,
    truncatedLines,
    complete: i > i1,
    bytes: p,
    // A copy: a streamed source reuses its buffers.
    hashes: hashes.slice(i0, i),
  };
}

/**
 * The text of `out[0, p)`. Rows with non-ASCII bytes (listed in `wide`) are
 * decoded on their own and the pieces concatenated, because one character
 * above U+007F makes a decoded string two bytes per character (the engines
 * store pure ASCII at one byte each): a view of source code with a rare
 * non-ASCII line then allocates about its own size in string memory instead
 * of up to twice that, and fresh memory is what a whole-file view spends
 * most of its time on. Rows end at UTF-8 sequence boundaries, so decoding in
 * pieces gives the same text.
 */
function decodeRows(out: Uint8Array, p: number, wide: readonly number[]): string {
  if (wide.length === 0) return decoder.decode(out.subarray(0, p));
  let text = "";
  let at = 0;
  for (let k = 0; k < wide.length; k += 2) {
    const start = wide[k];
    const end = wide[k + 1];
    if (start > at) text += decoder.decode(out.subarray(at, start));
    text += decoder.decode(out.subarray(start, end));
    at = end;
  }
  if (at < p) text += decoder.decode(out.subarray(at, p));
  return text;
}

/** A DataView of the same bytes, kept per buffer: the scratch buffer and a batch's body are reused many times. */
function wordsOf(bytes: Uint8Array): DataView {
  if (lastWords !== undefined && lastWordsOf === bytes) return lastWords;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes === scratch) {
    lastWordsOf = bytes;
    lastWords = view;
  }
  return view;
}

let lastWordsOf: Uint8Array | undefined;
let lastWords: DataView | undefined;

/** The shown text of line i when it is longer than `maxChars`, else undefined. */
function cutLine(doc: RenderSource, i: number, maxChars: number): string | undefined {
  const known = doc.lineChars?.[i] ?? 0;
  const content = decoder.decode(doc.body.subarray(doc.starts[i], doc.ends[i]));
  const total = known > 0 ? known : content.length;
  return total > maxChars ? truncateTo(content, maxChars, total) : undefined;
}

/**
 * The decimal digits of consecutive line numbers, incremented in place: a
 * whole-file view writes 200k numbers, and dividing each by ten digit by
 * digit cost more than copying its line.
 */
class LineNumber {
  private readonly digits = new Uint8Array(20);
  private width = 0;

  static at(value: number): LineNumber {
    const made = new LineNumber();
    const text = String(value);
    made.width = text.length;
    for (let k = 0; k < text.length; k++) made.digits[k] = text.charCodeAt(k);
    return made;
  }

  write(out: Uint8Array, p: number): number {
    const { digits, width } = this;
    for (let k = 0; k < width; k++) out[p + k] = digits[k];
    return p + width;
  }

  increment(): void {
    const { digits } = this;
    let k = this.width - 1;
    while (k >= 0 && digits[k] === 0x39) digits[k--] = 0x30;
    if (k >= 0) {
      digits[k]++;
      return;
    }
    // 99..9 + 1: one digit more.
    digits.copyWithin(1, 0, this.width);
    digits[0] = 0x31;
    this.width++;
  }
}

/** Room for "\n" + a safe-integer line number (16 digits) + ":hh|". */
const PREFIX_MAX = 24;
/** The 4 bytes ":hh|" after a line number, for each hash, as a little-endian int32. */
const ID_TAILS = new Int32Array(256);
for (let i = 0; i < 256; i++) {
  const hh = formatHash(i);
  ID_TAILS[i] = 0x3a | (hh.charCodeAt(0) << 8) | (hh.charCodeAt(1) << 16) | (0x7c << 24);
}
const encoder = new TextEncoder();
// Output starts with a digit, but a decoder must never eat a U+FEFF of content.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * One reusable output buffer for ordinary views (a default 256 KiB view fits):
 * fresh memory costs page faults on every call, a kept buffer does not.
 * Larger renders get their own buffer so a one-off whole-file view does not
 * pin megabytes for the life of the process (a Worker has 128 MB).
 */
const SCRATCH_MAX = 1 << 20;
let scratch = new Uint8Array(0);

function scratchFor(size: number): Uint8Array {
  if (size > SCRATCH_MAX) return new Uint8Array(size);
  if (scratch.length < size) scratch = new Uint8Array(Math.min(SCRATCH_MAX, Math.max(size, scratch.length * 2, 4096)));
  return scratch;
}

function grow(out: Uint8Array, atLeast: number): Uint8Array {
  const bigger = new Uint8Array(Math.max(atLeast, out.length * 2));
  bigger.set(out);
  return bigger;
}

/** The first half of a surrogate pair. */
export const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
/** The second half of a surrogate pair. */
export const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/**
 * The range `[from, to)` of `text` with each end moved inward off the middle
 * of a surrogate pair, so that a slice of it never shows half a character.
 */
export function wholeCharRange(text: string, from: number, to: number): [number, number] {
  let lo = from;
  let hi = to;
  if (lo > 0 && lo < text.length && isLowSurrogate(text.charCodeAt(lo)) && isHighSurrogate(text.charCodeAt(lo - 1))) lo++;
  if (hi > 0 && hi < text.length && isHighSurrogate(text.charCodeAt(hi - 1)) && isLowSurrogate(text.charCodeAt(hi))) hi--;
  return [lo, Math.max(lo, hi)];
}

/**
 * `content` cut to `maxChars` UTF-16 code units (a surrogate pair is never
 * split) with the `… [line truncated: N chars total]` marker; unchanged when
 * it fits. Views and diffs show long lines the same way.
 */
export function truncateLine(content: string, maxChars: number): string {
  return content.length <= maxChars ? content : truncateTo(content, maxChars, content.length);
}

function truncate(content: string, maxChars: number): string {
  return truncateTo(content, maxChars, content.length);
}

/** `content` cut to `maxChars` with the marker naming `total`, the whole line's UTF-16 length. */
function truncateTo(content: string, maxChars: number, total: number): string {
  let cut = maxChars > 0 ? Math.floor(maxChars) : 0;
  // Keep a surrogate pair whole rather than print half a character.
  if (cut > 0 && isHighSurrogate(content.charCodeAt(cut - 1))) cut--;
  return `${content.slice(0, cut)}… [line truncated: ${total} chars total]`;
}

/** UTF-8 length of `s` as TextEncoder would encode it (a lone surrogate becomes 3 bytes). */
export function utf8Length(s: string): number {
  // Start from one byte per code unit and add what each wider unit needs.
  let bytes = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) {
      bytes += 1;
      continue;
    }
    // 3 bytes for the BMP and for a lone surrogate; a pair is 2 units, 4 bytes.
    bytes += 2;
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return bytes;
}
