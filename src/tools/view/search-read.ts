/**
 * How a directory search reads one file. Most files are read whole; one
 * over {@link STREAM_ABOVE} bytes is opened as a stream and judged from its
 * first bytes, so a binary (a NUL in its first 8 KiB, or a UTF-16/32
 * byte-order mark) is left after one chunk instead of being read whole.
 */
import type { ReadResult, Storage } from "../../storage/types.ts";
import { BINARY_SNIFF_BYTES, wideBomRefusal } from "../../text/document.ts";

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

/** Read `path` (listed at `size` bytes) for a search. */
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
