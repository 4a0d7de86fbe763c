/**
 * The versions of the content this process last wrote, so that reading
 * exactly that content back skips its SHA-256. An edit loop reads what its
 * previous call wrote: for a 49 KB file the hash is ~28 µs of a ~0.5 ms
 * edit. A hit needs the bytes read to equal the bytes remembered (a memcmp,
 * ~1 µs): the match is by content, never by name or time, so another
 * process's change is simply a miss.
 *
 * One table per process, shared by every local storage (a server may open
 * many workspaces), bounded in entries and bytes; the oldest entry goes
 * first. Bytes are copied in: a caller may reuse its buffer after writing.
 */
import { sameBytes } from "./io.ts";
import type { Version } from "../types.ts";

/** A process-wide table of written content and its version. */
export interface KnownVersions {
  /** Remember that `bytes` (copied) were written at `key` with `version`. */
  remember(key: string, bytes: Uint8Array, version: Version): void;
  /** The version of `bytes` if they are exactly what was last remembered at `key`. */
  lookup(key: string, bytes: Uint8Array): Version | undefined;
  /** Drop what is remembered at `key`. */
  forget(key: string): void;
  /** Bytes held now. */
  readonly size: number;
}

/** The table's key for `path` of the storage rooted at `realRoot` (one table serves every root). */
export function knownKey(realRoot: string, path: string): string {
  return `${realRoot}\0${path}`;
}

/** Limits of {@link createKnownVersions}. */
export interface KnownVersionsLimits {
  /** Largest content remembered (larger writes are not). */
  readonly maxEntryBytes: number;
  /** Most bytes held at once. */
  readonly maxBytes: number;
}

/** Create an empty table. */
export function createKnownVersions(limits: KnownVersionsLimits): KnownVersions {
  const entries = new Map<string, { bytes: Uint8Array; version: Version }>();
  let held = 0;
  const forget = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    held -= entry.bytes.length;
  };
  return {
    remember(key, bytes, version) {
      forget(key);
      if (bytes.length > limits.maxEntryBytes || bytes.length > limits.maxBytes) return;
      // Oldest first: a Map iterates in insertion order, and a remembered key was re-inserted.
      for (const [oldest] of entries) {
        if (held + bytes.length <= limits.maxBytes) break;
        forget(oldest);
      }
      entries.set(key, { bytes: bytes.slice(), version });
      held += bytes.length;
    },
    lookup(key, bytes) {
      const entry = entries.get(key);
      return entry && sameBytes(entry.bytes, bytes) ? entry.version : undefined;
    },
    forget,
    get size() {
      return held;
    },
  };
}
