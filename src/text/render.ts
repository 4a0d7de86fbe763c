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
}

/**
 * Render lines `from..to` (1-based, inclusive, clamped to the document) as
 * `N:hh|content` lines. A range that starts past the end renders nothing.
 *
 * The output is assembled as UTF-8 bytes copied from `doc.body` and decoded
 * once: no per-line strings, which is what keeps a whole-file view fast and
 * makes the byte budget exact. The text equals joining {@link renderLine}
 * of each line with "\n".
 */
export function renderLines(
  doc: Pick<TextDocument, "lines" | "eols" | "hashes" | "body" | "starts">,
  from: number,
  to: number,
  options: RenderOptions,
): RenderedLines {
  const { lines, eols, hashes, body, starts } = doc;
  const n = lines.length;
  const first = Math.max(1, Math.trunc(from));
  const last = Math.min(n, Math.trunc(to));
  // Written as a negation so a NaN bound renders nothing rather than misbehaving.
  if (!(last >= first)) return { text: "", from: first, to: first - 1, truncatedLines: 0, complete: true };

  const maxChars = options.maxLineChars;
  const budget = options.maxOutputBytes ?? Number.POSITIVE_INFINITY;
  const spanEnd = last < n ? starts[last] : body.length;
  let out = scratchFor(spanEnd - starts[first - 1] + (last - first + 1) * PREFIX_MAX);
  let p = 0;
  let truncatedLines = 0;
  let line = first;
  for (; line <= last; line++) {
    const i = line - 1;
    const s = starts[i];
    const e = (i + 1 < n ? starts[i + 1] : body.length) - eols[i].length;
    // A line of at most maxChars bytes has at most maxChars UTF-16 units: no string needed.
    const cut = e - s > maxChars && lines[i].length > maxChars ? truncate(lines[i], maxChars) : undefined;
    const need = PREFIX_MAX + (cut === undefined ? e - s : cut.length * 3);
    if (p + need > out.length) out = grow(out, p + need);

    const lineStart = p;
    if (line > first) out[p++] = 0x0a;
    p = writeDecimal(out, p, line);
    const h = hashes[i] * 2;
    out[p] = 0x3a; // ":"
    out[p + 1] = HEX_BYTES[h];
    out[p + 2] = HEX_BYTES[h + 1];
    out[p + 3] = 0x7c; // "|"
    p += 4;
    if (cut !== undefined) {
      p += encoder.encodeInto(cut, out.subarray(p)).written;
    } else if (e - s <= 32) {
      // Short lines: a loop beats creating a subarray view per line.
      for (let j = s; j < e; j++) out[p++] = body[j];
    } else {
      out.set(body.subarray(s, e), p);
      p += e - s;
    }
    if (p > budget && line > first) {
      p = lineStart;
      break;
    }
    if (cut !== undefined) truncatedLines++;
  }
  // Decoding copies, so the scratch buffer is free again once this returns.
  return {
    text: decoder.decode(out.subarray(0, p)),
    from: first,
    to: line - 1,
    truncatedLines,
    complete: line > last,
  };
}

/** Room for "\n" + a safe-integer line number (16 digits) + ":hh|". */
const PREFIX_MAX = 24;
const HEX_BYTES = new Uint8Array(512);
for (let i = 0; i < 256; i++) {
  const hh = formatHash(i);
  HEX_BYTES[2 * i] = hh.charCodeAt(0);
  HEX_BYTES[2 * i + 1] = hh.charCodeAt(1);
}
const encoder = new TextEncoder();
// Output starts with a digit, but a decoder must never eat a U+FEFF of content.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

function writeDecimal(out: Uint8Array, p: number, value: number): number {
  let digits = 1;
  for (let v = value; v >= 10; v = Math.floor(v / 10)) digits++;
  let v = value;
  for (let k = p + digits - 1; k >= p; k--) {
    out[k] = 0x30 + (v % 10);
    v = Math.floor(v / 10);
  }
  return p + digits;
}

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

function truncate(content: string, maxChars: number): string {
  let cut = maxChars > 0 ? Math.floor(maxChars) : 0;
  const code = content.charCodeAt(cut - 1);
  // Keep a surrogate pair whole rather than print half a character.
  if (cut > 0 && code >= 0xd800 && code <= 0xdbff) cut--;
  return `${content.slice(0, cut)}… [line truncated: ${content.length} chars total]`;
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
