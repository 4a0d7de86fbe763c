/**
 * A text file as the tools see it: decoded UTF-8 lines with their own
 * terminators and one id hash per line, plus the byte-order mark kept aside.
 *
 * The BOM (EF BB BF) is file metadata, not line content: line 1's content and
 * hash exclude it (Octofs hashes a line's UTF-8 bytes; a BOM is not part of
 * what the model reads or writes as line 1), and {@link encodeDocument}
 * puts it back, so bytes -> document -> bytes is byte-identical.
 *
 * Line strings are built only when something asks for `lines` or `eols`:
 * a view renders straight from the bytes and the hasher's offsets, and
 * splitting a 10 MB file into 200k strings cost more than hashing and
 * rendering it together (and left the garbage collector a large heap).
 */

import { CodedError } from "../errors.ts";
import type { LineHasher } from "../hash/types.ts";
import { type Eol, joinLines, type SplitLines, splitLines } from "./lines.ts";

/** Why bytes are not a text document the tools can edit. */
export interface NotText {
  readonly ok: false;
  /**
   * "binary": a NUL byte in the first 8 KiB (git's heuristic: text files
   * practically never contain NUL, most binary formats do early on).
   * "invalid-utf8": anything else that is not valid UTF-8 (Latin-1 text,
   * UTF-16, binary without early NULs).
   */
  readonly reason: "binary" | "invalid-utf8";
  /** Machine-oriented description with the byte offset (and line) of the problem. */
  readonly detail: string;
  /** Byte offset in the original bytes of the first offending byte, when known. */
  readonly offset?: number;
}

/** Bytes decoded as text, or why they are not text. */
export type DecodedText = { readonly ok: true; readonly text: string; readonly bom: boolean } | NotText;

/** A decoded file: lines, their own terminators, and the id hash of each line. */
export interface TextDocument {
  readonly ok: true;
  /** The file starts with a UTF-8 BOM (not part of line 1). */
  readonly bom: boolean;
  /** Line contents, decoded on first access (see the module comment). */
  readonly lines: string[];
  /** `eols[i]` terminates `lines[i]` ("" only for a last line without a final newline); built with `lines`. */
  readonly eols: Eol[];
  /** `hashes[i]` is the 8-bit id hash of `lines[i]`; length equals `lines.length`. */
  readonly hashes: Uint8Array;
  /**
   * The UTF-8 bytes of the lines (the file after its BOM). A view of the
   * loaded bytes, not a copy: do not mutate them while the document is used.
   * Rendering copies line bytes from here instead of re-encoding strings.
   */
  readonly body: Uint8Array;
  /** `starts[i]` is the byte offset in `body` where `lines[i]` starts. */
  readonly starts: Uint32Array;
  /** `ends[i]` is the byte offset in `body` where the content of `lines[i]` ends (before its terminator). */
  readonly ends: Uint32Array;
}

/** How a document's lines end, counted from the byte offsets (no line strings needed). */
export interface LineEndingCounts {
  readonly crlf: number;
  readonly lf: number;
  /** The last line has no terminator (false for an empty document). */
  readonly unterminatedLast: boolean;
}

/** How far into a file a NUL byte marks it as binary. */
export const BINARY_SNIFF_BYTES = 8192;

const fatalDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** True when `bytes` start with the UTF-8 byte-order mark EF BB BF. */
export function hasUtf8Bom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/** Bytes that are UTF-8 text: whether they start with a BOM (checked without decoding). */
export type ValidText = { readonly ok: true; readonly bom: boolean } | NotText;

/**
 * Check that file bytes are UTF-8 text without building a string: the same
 * verdicts and details as {@link decodeText}. UTF-16/32 byte-order marks are
 * recognised first so such a file is called what it is rather than
 * "binary" (its ASCII has NULs).
 */
export function validateText(bytes: Uint8Array): ValidText {
  const wide = wideBomRefusal(bytes);
  if (wide !== undefined) return wide;
  const sniffEnd = Math.min(bytes.length, BINARY_SNIFF_BYTES);
  const nul = bytes.subarray(0, sniffEnd).indexOf(0);
  if (nul !== -1) {
    return {
      ok: false,
      reason: "binary",
      detail: `NUL byte at offset ${nul} (within the first ${BINARY_SNIFF_BYTES} bytes)`,
      offset: nul,
    };
  }
  const bom = hasUtf8Bom(bytes);
  const skip = bom ? 3 : 0;
  const bad = firstInvalidUtf8(bytes.subarray(skip));
  if (bad === -1) return { ok: true, bom };
  return invalidAt(bytes, bad + skip);
}

/** The refusal for invalid UTF-8 whose first bad sequence starts at byte `at` of the file. */
export function invalidAt(bytes: Uint8Array, at: number): NotText {
  return {
    ok: false,
    reason: "invalid-utf8",
    detail: `invalid UTF-8 at byte ${at} (line ${lineAt(bytes, at)}): ${hexAround(bytes, at)}`,
    offset: at,
  };
}

/**
 * Decode file bytes as UTF-8 text. The BOM, if any, is reported in `bom` and
 * not included in `text`. Refusals are those of {@link validateText}.
 */
export function decodeText(bytes: Uint8Array): DecodedText {
  const valid = validateText(bytes);
  if (!valid.ok) return valid;
  return { ok: true, text: fatalDecoder.decode(valid.bom ? bytes.subarray(3) : bytes), bom: valid.bom };
}

/**
 * Check and hash a file with ONE `hasher.hashLines` call over the bytes
 * after the BOM; lines are split from the text only when first asked for.
 * Throws INTERNAL_ERROR if the hasher's offsets do not describe the bytes'
 * lines (a hasher bug; ids would be wrong).
 */
export function loadDocument(bytes: Uint8Array, hasher: LineHasher): TextDocument | NotText {
  const valid = validateText(bytes);
  if (!valid.ok) return valid;
  const body = valid.bom ? bytes.subarray(3) : bytes;
  return lazyDocument(valid.bom, body, hashLineColumns(body, hasher));
}
/** The file bytes of a document: BOM (if any) plus every line with its own terminator. */
export function encodeDocument(doc: Pick<TextDocument, "bom" | "lines" | "eols">): Uint8Array {
  const body = encoder.encode(joinLines(doc.lines, doc.eols));
  return doc.bom ? withBom(body) : body;
}

function withBom(body: Uint8Array): Uint8Array {
  const out = new Uint8Array(body.length + 3);
  out[0] = 0xef;
  out[1] = 0xbb;
  out[2] = 0xbf;
  out.set(body, 3);
  return out;
}

/**
 * A document for edited lines (e.g. after `spliceLines`) with fresh hashes,
 * and the bytes to write (one encode, one hash call). The lines are read back
 * from those bytes, so the document is exactly what a later load gives even
 * if a content held a "\n", ended with "\r" or had a lone surrogate (which
 * UTF-8 stores as U+FFFD).
 */
export function documentFromLines(bom: boolean, split: SplitLines, hasher: LineHasher): { doc: TextDocument; bytes: Uint8Array } {
  const body = encoder.encode(joinLines(split.lines, split.eols));
  const bytes = bom ? withBom(body) : body;
  // Encoder output is always valid UTF-8: nothing to validate.
  return { doc: lazyDocument(bom, body, hashLineColumns(body, hasher)), bytes };
}

/** Hashes and offsets of every line, checked against the bytes. */
export type LineColumns = Pick<TextDocument, "hashes" | "starts" | "ends">;

/**
 * A document over checked columns whose `lines` and `eols` are split from
 * the decoded text on first access (and kept).
 */
function lazyDocument(bom: boolean, body: Uint8Array, columns: LineColumns): TextDocument {
  let split: SplitLines | undefined;
  const materialize = (): SplitLines => {
    if (split) return split;
    const made = splitLines(fatalDecoder.decode(body));
    if (made.lines.length !== columns.hashes.length) {
      throw new CodedError("INTERNAL_ERROR", `line hasher counted ${columns.hashes.length} lines, the text splits into ${made.lines.length}`);
    }
    split = made;
    return made;
  };
  return {
    ok: true,
    bom,
    body,
    ...columns,
    get lines() {
      return materialize().lines;
    },
    get eols() {
      return materialize().eols;
    },
  };
}

/** How the lines of a document end, from its offsets alone. */
export function lineEndingCounts(doc: Pick<TextDocument, "body" | "starts" | "ends">): LineEndingCounts {
  const { body, starts, ends } = doc;
  const n = starts.length;
  let crlf = 0;
  for (let i = 0; i < n; i++) {
    // A terminator is "\n" or "\r\n": its length tells them apart.
    if ((i + 1 < n ? starts[i + 1] : body.length) - ends[i] === 2) crlf++;
  }
  const unterminatedLast = n > 0 && ends[n - 1] === body.length;
  return { crlf, lf: n - crlf - (unterminatedLast ? 1 : 0), unterminatedLast };
}

/**
 * Hash every line of `body` (UTF-8 after any BOM) with one hasher call and
 * check the result describes it: line i starts where line i-1's terminator
 * ("\n" or "\r\n") ends, and the last line ends the body (with or without
 * a terminator). That costs one pass over the line offsets, not over the
 * bytes, and a hasher that got the line structure wrong fails it with
 * INTERNAL_ERROR. The columns are the caller's own (one block of 9 bytes per
 * line); a caller that only reads them before hashing again uses
 * {@link hashLineViews} and copies nothing.
 */
export function hashLineColumns(body: Uint8Array, hasher: LineHasher): LineColumns {
  const views = hashLineViews(body, hasher);
  const count = views.hashes.length;
  // One allocation for the three columns, in the order that keeps the u32 ones aligned.
  const block = new ArrayBuffer(count * 9);
  const starts = new Uint32Array(block, 0, count);
  const ends = new Uint32Array(block, count * 4, count);
  const hashes = new Uint8Array(block, count * 8, count);
  starts.set(views.starts);
  ends.set(views.ends);
  hashes.set(views.hashes);
  return { hashes, starts, ends };
}

/**
 * {@link hashLineColumns} without the copy: the checked columns are the
 * hasher's views of memory it reuses, valid only until the next `hashLines`
 * call (of any hasher). A streaming view renders each chunk's lines before
 * it hashes the next chunk, so it never needs its own columns.
 */
export function hashLineViews(body: Uint8Array, hasher: LineHasher): LineColumns {
  const result = hasher.hashLines(body);
  const count = result.count;
  if (
    !(count >= 0) ||
    result.hashes.length < count ||
    result.starts.length < count ||
    result.ends.length < count ||
    !linesDescribe(body, result.starts, result.ends, count)
  ) {
    throw new CodedError(
      "INTERNAL_ERROR",
      `line hasher (${hasher.backend}) counted ${result.count} lines with ${result.hashes.length} hashes, the text splits into ${countLines(body)}`,
    );
  }
  const { hashes, starts, ends } = result;
  // Trimmed only when a hasher handed out longer arrays: a view per call is an allocation.
  return hashes.length === count && starts.length === count && ends.length === count
    ? { hashes, starts, ends }
    : { hashes: hashes.subarray(0, count), starts: starts.subarray(0, count), ends: ends.subarray(0, count) };
}

function linesDescribe(body: Uint8Array, starts: Uint32Array, ends: Uint32Array, count: number): boolean {
  const n = body.length;
  if (count === 0) return n === 0;
  let expectedStart = 0;
  for (let i = 0; i < count; i++) {
    const s = starts[i];
    const e = ends[i];
    if (s !== expectedStart || e < s || e > n) return false;
    if (body[e] === 0x0a) {
      // A "\r" right before the "\n" belongs to the terminator, never to the content.
      if (e > s && body[e - 1] === 0x0d) return false;
      expectedStart = e + 1;
    } else if (body[e] === 0x0d && body[e + 1] === 0x0a) expectedStart = e + 2;
    else if (e === n)
      expectedStart = n + 1; // an unterminated line must be the last
    else return false;
  }
  return expectedStart === n || (expectedStart === n + 1 && ends[count - 1] === n && n > starts[count - 1]);
}

function countLines(body: Uint8Array): number {
  let count = 0;
  for (let i = body.indexOf(0x0a); i !== -1; i = body.indexOf(0x0a, i + 1)) count++;
  return body.length > 0 && body[body.length - 1] !== 0x0a ? count + 1 : count;
}

/** The refusal of a file that starts with a UTF-16 or UTF-32 byte-order mark (its first 4 bytes decide). */
export function wideBomRefusal(bytes: Uint8Array): NotText | undefined {
  const wide = wideBom(bytes);
  if (wide === undefined) return undefined;
  return {
    ok: false,
    reason: "invalid-utf8",
    detail: `starts with a ${wide} byte order mark: the file is ${wide.split(" ")[0]} text, not UTF-8`,
    offset: 0,
  };
}

function wideBom(bytes: Uint8Array): string | undefined {
  const [a, b, c, d] = bytes;
  if (bytes.length >= 4 && a === 0xff && b === 0xfe && c === 0 && d === 0) return "UTF-32 LE (FF FE 00 00)";
  if (bytes.length >= 4 && a === 0 && b === 0 && c === 0xfe && d === 0xff) return "UTF-32 BE (00 00 FE FF)";
  if (bytes.length >= 2 && a === 0xff && b === 0xfe) return "UTF-16 LE (FF FE)";
  if (bytes.length >= 2 && a === 0xfe && b === 0xff) return "UTF-16 BE (FE FF)";
  return undefined;
}

// A view on a buffer like every other word view: engines compile for one kind of typed array.
/** The first word index from `w` (stepping in pairs, below `lastPair`) whose pair holds a byte >= 0x80. */
function asciiWords(words: Uint32Array, w: number, lastPair: number): number {
  while (w < lastPair && ((words[w] | words[w + 1]) & 0x80808080) === 0) w += 2;
  return w;
}

const NO_WORDS = new Uint32Array(new ArrayBuffer(8), 0, 0);

/**
 * Offset of the first byte of the first ill-formed UTF-8 sequence (as the
 * WHATWG decoder sees it: overlongs, surrogates and > U+10FFFF are invalid),
 * or -1 when `bytes` are valid.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  const n = bytes.length;
  // ASCII is skipped 8 bytes at a time through a word view of the aligned middle
  // (10x faster on V8 than a byte loop; source text is mostly ASCII).
  const lead = (4 - (bytes.byteOffset & 3)) & 3;
  const wordCount = n > lead ? (n - lead) >>> 2 : 0;
  // Always a Uint32Array (perhaps empty): one shape keeps the loop optimised on every engine.
  const words = wordCount > 0 ? new Uint32Array(bytes.buffer, bytes.byteOffset + lead, wordCount) : NO_WORDS;
  const lastPair = words.length - 1;
  let i = 0;
  while (i < n) {
    // The word loop is its own small function, tried first on every aligned step: JSC otherwise
    // compiled this whole loop 10-20x slower depending on the input sizes it saw first.
    if (((i - lead) & 3) === 0 && i >= lead) {
      i = lead + 4 * asciiWords(words, (i - lead) >>> 2, lastPair);
      if (i >= n) break;
    }
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      else if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      else if (b === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      const c = i + k < n ? bytes[i + k] : -1;
      if (c < lo || c > hi) return i;
      lo = 0x80;
      hi = 0xbf;
    }
    i += need + 1;
  }
  return -1;
}

function lineAt(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = bytes.indexOf(0x0a); i !== -1 && i < offset; i = bytes.indexOf(0x0a, i + 1)) line++;
  return line;
}

function hexAround(bytes: Uint8Array, offset: number): string {
  const shown = Array.from(bytes.subarray(offset, offset + 4), (b) => b.toString(16).padStart(2, "0"));
  return `bytes ${shown.join(" ")}${offset + 4 < bytes.length ? " ..." : ""}`;
}
