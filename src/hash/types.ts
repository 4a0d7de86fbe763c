/**
 * Per-line hashes of a whole UTF-8 buffer, computed in one call.
 *
 * Lines split on "\n"; a "\r" right before the "\n" belongs to the terminator
 * and is not hashed; a final "\n" does not open an extra empty line ("" has 0
 * lines, "a\n" has 1, "a" has 1).
 *
 * Lifetime: the three arrays are views of memory the hashers reuse (the WASM
 * module's memory, the JS hasher's scratch columns). They hold this result
 * only until the next `hashLines` call of any hasher; a caller that keeps
 * the columns copies them first (`hashLineColumns` in src/text/document.ts
 * does). Copying out on every call cost more than the hashing itself: the
 * 9 bytes per line landed in fresh memory, and first-touch page faults on
 * a small VM run at ~12 µs per 4 KiB.
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
  /** Hash every line of `bytes` (UTF-8); the result is valid until the next `hashLines` call (see {@link LineHashes}). */
  hashLines(bytes: Uint8Array): LineHashes;
}
