/**
 * Per-line hashes of a whole UTF-8 buffer, computed in one call.
 *
 * Lines split on "\n"; a "\r" right before the "\n" belongs to the terminator
 * and is not hashed; a final "\n" does not open an extra empty line ("" has 0
 * lines, "a\n" has 1, "a" has 1).
 */
export interface LineHashes {
  /** Number of lines. */
  readonly count: number;
  /** 8-bit folded FNV-1a hash of line i (see `fold8`). */
  readonly hashes: Uint8Array;
  /** Byte offset where line i starts. */
  readonly starts: Uint32Array;
  /** Byte offset where line i's content ends (before its "\r\n" / "\n", or end of buffer). */
  readonly ends: Uint32Array;
}

/** A line hasher backend: the JS reference or the WASM module. */
export interface LineHasher {
  readonly backend: "js" | "wasm";
  /** Hash every line of `bytes` (UTF-8). */
  hashLines(bytes: Uint8Array): LineHashes;
}
