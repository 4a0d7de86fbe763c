/**
 * A text file as the tools see it: decoded UTF-8 lines with their own
 * terminators and one id hash per line, plus the byte-order mark kept aside.
 *
 * The BOM (EF BB BF) is file metadata, not line content: line 1's content and
 * hash exclude it (Octofs hashes a line's UTF-8 bytes; a BOM is not part of
 * what the model reads or writes as line 1), and {@link encodeDocument}
 * puts it back, so bytes -> document -> bytes is byte-identical.
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
  readonly lines: string[];
  /** `eols[i]` terminates `lines[i]` ("" only for a last line without a final newline). */
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
}

/** How far into a file a NUL byte marks it as binary. */
export const BINARY_SNIFF_BYTES = 8192;

const fatalDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** True when `bytes` start with the UTF-8 byte-order mark EF BB BF. */
export function hasUtf8Bom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/**
 * Decode file bytes as UTF-8 text. The BOM, if any, is reported in `bom` and
 * not included in `text`. UTF-16/32 byte-order marks are recognised first so
 * such a file is called what it is rather than "binary" (its ASCII has NULs).
 */
export function decodeText(bytes: Uint8Array): DecodedText {
  const wide = wideBom(bytes);
  if (wide !== undefined) {
    return {
      ok: false,
      reason: "invalid-utf8",
      detail: `starts with a ${wide} byte order mark: the file is ${wide.split(" ")[0]} text, not UTF-8`,
      offset: 0,
    };
  }
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
  const body = bom ? bytes.subarray(3) : bytes;
  try {
    return { ok: true, text: fatalDecoder.decode(body), bom };
  } catch {
    // The decoder does not say where; find it only on this rare path.
    const bad = firstInvalidUtf8(body);
    if (bad === -1) return { ok: false, reason: "invalid-utf8", detail: "invalid UTF-8" };
    const at = bad + (bom ? 3 : 0);
    return {
      ok: false,
      reason: "invalid-utf8",
      detail: `invalid UTF-8 at byte ${at} (line ${lineAt(bytes, at)}): ${hexAround(bytes, at)}`,
      offset: at,
    };
  }
}

/**
 * Decode and split a file and hash its lines with ONE `hasher.hashLines` call
 * over the bytes after the BOM. Throws INTERNAL_ERROR if the hasher's line
 * count disagrees with the split (a hasher bug; ids would be wrong).
 */
export function loadDocument(bytes: Uint8Array, hasher: LineHasher): TextDocument | NotText {
  const decoded = decodeText(bytes);
  if (!decoded.ok) return decoded;
  const { lines, eols } = splitLines(decoded.text);
  const body = decoded.bom ? bytes.subarray(3) : bytes;
  const { hashes, starts } = hashAll(body, lines.length, hasher);
  return { ok: true, bom: decoded.bom, lines, eols, hashes, body, starts };
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
export function documentFromLines(
  bom: boolean,
  split: SplitLines,
  hasher: LineHasher,
): { doc: TextDocument; bytes: Uint8Array } {
  const text = joinLines(split.lines, split.eols);
  const body = encoder.encode(text);
  const bytes = bom ? withBom(body) : body;
  // Encoder output is always valid UTF-8, so the fatal decoder cannot throw here.
  const { lines, eols } = splitLines(fatalDecoder.decode(body));
  const { hashes, starts } = hashAll(body, lines.length, hasher);
  return { doc: { ok: true, bom, lines, eols, hashes, body, starts }, bytes };
}

function hashAll(
  body: Uint8Array,
  lineCount: number,
  hasher: LineHasher,
): { hashes: Uint8Array; starts: Uint32Array } {
  const result = hasher.hashLines(body);
  if (result.count !== lineCount || result.hashes.length < lineCount || result.starts.length < lineCount) {
    throw new CodedError(
      "INTERNAL_ERROR",
      `line hasher (${hasher.backend}) counted ${result.count} lines with ${result.hashes.length} hashes, the text splits into ${lineCount}`,
    );
  }
  // Copies: a backend may hand out views of memory it reuses on the next call.
  return { hashes: result.hashes.slice(0, lineCount), starts: result.starts.slice(0, lineCount) };
}

function wideBom(bytes: Uint8Array): string | undefined {
  const [a, b, c, d] = bytes;
  if (bytes.length >= 4 && a === 0xff && b === 0xfe && c === 0 && d === 0) return "UTF-32 LE (FF FE 00 00)";
  if (bytes.length >= 4 && a === 0 && b === 0 && c === 0xfe && d === 0xff) return "UTF-32 BE (00 00 FE FF)";
  if (bytes.length >= 2 && a === 0xff && b === 0xfe) return "UTF-16 LE (FF FE)";
  if (bytes.length >= 2 && a === 0xfe && b === 0xff) return "UTF-16 BE (FE FF)";
  return undefined;
}

/**
 * Offset of the first byte of the first ill-formed UTF-8 sequence (as the
 * WHATWG decoder sees it: overlongs, surrogates and > U+10FFFF are invalid),
 * or -1 when `bytes` are valid.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
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
