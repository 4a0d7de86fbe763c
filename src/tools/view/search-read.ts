/**
 * How a directory search reads one file, reduced to what the search needs
 * of it ({@link SearchedFile}): a binary judged from its first bytes (a NUL
 * in its first 8 KiB, or a UTF-16/32 byte-order mark) and never read
 * further; a file whose bytes cannot hold the literal, never decoded; the
 * text and version of a file that may match.
 *
 * Storage with `scanFile` (local) hands each file over in a reused buffer
 * and hashes for a version only a file that may match. Elsewhere most
 * files are read whole; one over {@link STREAM_ABOVE} bytes is opened as a
 * stream and judged from its first chunk.
 */
import type { ReadResult, Storage, Version } from "../../storage/types.ts";
import { BINARY_SNIFF_BYTES, decodeText, validateText, wideBomRefusal } from "../../text/document.ts";
import { type ByteMatches, matchInBytes } from "./byte-match.ts";
import { normalizeEndings, type Searcher } from "./matcher.ts";
import type { SearchWork } from "./search-work.ts";

/** One file as a directory search found it. `size` is the bytes read (counted against the read budget). */
export type SearchedFile =
  /** Not text, judged from its first bytes; the rest was not read. */
  | { readonly kind: "binary" }
  /** Over the size limit (size 0: refused before any byte was read). */
  | { readonly kind: "too-large"; readonly size: number }
  /** Text (as far as was looked) in which no line can match. */
  | { readonly kind: "no-match"; readonly size: number }
  /** Not valid text past its first bytes. */
  | { readonly kind: "not-text"; readonly size: number }
  /** Text that may match: its text with "\n" endings, and its version. */
  | { readonly kind: "text"; readonly size: number; readonly text: string; readonly version: Version | Promise<Version> }
  /** A large text matched in its bytes (./byte-match.ts): its lines, matches, the lines it can show, its version. */
  | ({ readonly kind: "lines"; readonly size: number; readonly version: Version | Promise<Version> } & ByteMatches);

/** Text files larger than this are matched in their bytes when the searcher allows (never decoded whole). */
export const BYTE_MATCH_ABOVE = 1024 * 1024;

/** Which lines a search can show of one file: those within `context` of its first `matches` matching lines. */
export interface ShownLines {
  readonly context: number;
  readonly matches: number;
}

/**
 * Judge a file's bytes for `searcher`, in the order a search always has:
 * binary start, size limit, the bytes pre-check, decoding, the text
 * pre-check. A file that cannot match is not decoded (so invalid UTF-8 past
 * its first bytes goes unnoticed, as in ripgrep); a large one that may is
 * validated and matched in its bytes when the searcher allows, decoding
 * only the lines `shown` asks for. Keeps nothing of `bytes`. A regex
 * pre-check is charged to `work`, and skipped (the file kept as "text")
 * when one bounded call cannot make it (./search-work.ts).
 */
export function judgeFile(
  bytes: Uint8Array,
  version: () => Version | Promise<Version>,
  searcher: Searcher,
  sizeLimit: number,
  shown?: ShownLines,
  work?: SearchWork,
): SearchedFile {
  if (binaryStart(bytes)) return { kind: "binary" };
  const size = bytes.length;
  if (size > sizeLimit) return { kind: "too-large", size };
  if (!searcher.mayMatchBytes(bytes)) return { kind: "no-match", size };
  const needle = searcher.bytesNeedle;
  if (shown && needle && size > BYTE_MATCH_ABOVE) {
    const valid = validateText(bytes);
    if (!valid.ok) return { kind: "not-text", size };
    const found = matchInBytes(bytes, valid.bom ? 3 : 0, needle, shown.context, shown.matches);
    if (found.matches.length === 0) return { kind: "no-match", size };
    return { kind: "lines", size, ...found, version: version() };
  }
  const decoded = decodeText(bytes);
  if (!decoded.ok) return { kind: "not-text", size };
  const text = normalizeEndings(decoded.text);
  if (!searcher.mayMatch(text, work)) return { kind: "no-match", size };
  return { kind: "text", size, text, version: version() };
}

/**
 * Read `path` (listed at `size` bytes, -1 when the listing did not say)
 * and judge it (see {@link judgeFile}). Rejects with the storage's error
 * (FS_TOO_LARGE when `scanFile` finds the file over `sizeLimit`).
 */
export async function searchRead(
  storage: Storage,
  path: string,
  size: number,
  searcher: Searcher,
  sizeLimit: number,
  shown?: ShownLines,
  work?: SearchWork,
): Promise<SearchedFile> {
  if (storage.scanFile) {
    return storage.scanFile<SearchedFile>(path, {
      maxBytes: sizeLimit,
      headBytes: BINARY_SNIFF_BYTES,
      head: (bytes) => (binaryStart(bytes) ? { kind: "binary" } : undefined),
      whole: (bytes, version) => judgeFile(bytes, version, searcher, sizeLimit, shown, work),
    });
  }
  const read = await readForSearch(storage, path, size);
  if ("binary" in read) return { kind: "binary" };
  return judgeFile(read.bytes, () => read.version, searcher, sizeLimit, shown, work);
}

/** Files larger than this are sniffed before being read whole (when the storage streams). */
export const STREAM_ABOVE = 1024 * 1024;

/** A file judged binary from its first bytes; the rest was never read. */
export interface SniffedBinary {
  readonly binary: true;
}

/** True when `bytes` (a file's start) mark it as not text whatever follows. */
export function binaryStart(bytes: Uint8Array): boolean {
  if (wideBomRefusal(bytes) !== undefined) return true;
  return bytes.subarray(0, BINARY_SNIFF_BYTES).indexOf(0) !== -1;
}

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** Read `path` (listed at `size` bytes) for a search, with `read` or `readStream`. */
export async function readForSearch(storage: Storage, path: string, size: number): Promise<ReadResult | SniffedBinary> {
  if (size <= STREAM_ABOVE || !storage.readStream) return storage.read(path);
  const opened = await storage.readStream(path);
  const reader = opened.stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let judged = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (!done) {
      chunks.push(value);
      total += value.length;
    }
    if (!judged && (done || total >= BINARY_SNIFF_BYTES)) {
      judged = true;
      if (binaryStart(concat(chunks, total).subarray(0, BINARY_SNIFF_BYTES))) {
        await reader.cancel().catch(() => {});
        opened.version.catch(() => {});
        return { binary: true };
      }
    }
    if (done) break;
  }
  return { bytes: concat(chunks, total), version: await opened.version };
}
