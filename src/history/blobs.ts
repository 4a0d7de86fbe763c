/**
 * A history store's blobs: the bytes of each kept version, one object each
 * (`blobs/<sha256>`), content-addressed; and which of them this store knows
 * are stored, so a version kept again costs no storage call.
 */
import { isCodedError } from "../errors.ts";
import type { Storage } from "../storage/types.ts";
import { Cond } from "../storage/types.ts";

const BLOBS = "blobs";
/** Blob hashes remembered as stored, per store. */
const KNOWN_BLOBS = 4096;
/** Deletes in flight at once during a prune (one object per entry and per blob on a bucket). */
const DELETE_CONCURRENCY = 8;

/** The blobs of one store, and what it knows of them. */
export interface BlobStore {
  readonly storage: Storage;
  /** Hex SHA-256 that names a blob. */
  readonly sha256: (bytes: Uint8Array) => string | Promise<string>;
  /** Blobs known to be stored (most recent last), so a kept version costs no storage call the next time. */
  readonly stored: Set<string>;
  /** Hashes by the name a caller knows the bytes by: a change's "before" is nearly always the "after" of the change before it. */
  readonly named: Map<string, string>;
}

/** The blobs in `storage`, named by `sha256`, none known yet. */
export function newBlobStore(storage: Storage, sha256: (bytes: Uint8Array) => string | Promise<string>): BlobStore {
  return { storage, sha256, stored: new Set(), named: new Map() };
}

function remember(blobs: BlobStore, hash: string): void {
  blobs.stored.add(hash);
  if (blobs.stored.size > KNOWN_BLOBS) blobs.stored.delete(blobs.stored.values().next().value!);
}

function name(blobs: BlobStore, known: string, hash: string): void {
  blobs.named.set(known, hash);
  if (blobs.named.size > KNOWN_BLOBS) blobs.named.delete(blobs.named.keys().next().value!);
}

/** Store bytes under their SHA-256, unless known stored (see HistoryStore.putBlob); returns the hash. */
export async function putBlob(blobs: BlobStore, bytes: Uint8Array, known?: string): Promise<string> {
  const earlier = known === undefined ? undefined : blobs.named.get(known);
  if (earlier !== undefined && blobs.stored.has(earlier)) return earlier;
  const { sha256 } = blobs;
  const hash = await sha256(bytes);
  if (known !== undefined) name(blobs, known, hash);
  // The version a change replaces is nearly always one this store kept as the change before's result.
  if (blobs.stored.has(hash)) return hash;
  try {
    await blobs.storage.write(`${BLOBS}/${hash}`, bytes, Cond.ifAbsent);
  } catch (error) {
    // Another call stored the same bytes first: content-addressed, so that is the same blob.
    if (!(isCodedError(error) && error.code === "FS_ALREADY_EXISTS")) throw error;
  }
  remember(blobs, hash);
  return hash;
}

/** The bytes of blob `hash`, or undefined when it was never kept or has been dropped. */
export async function getBlob(blobs: BlobStore, hash: string): Promise<Uint8Array | undefined> {
  if (!/^[0-9a-f]{64}$/.test(hash)) return undefined;
  try {
    return (await blobs.storage.read(`${BLOBS}/${hash}`)).bytes;
  } catch (error) {
    if (isCodedError(error) && error.code === "FS_NOT_FOUND") return undefined;
    throw error;
  }
}

/** Delete these blobs (a missing one is no error), a few at once. */
export async function dropBlobs(blobs: BlobStore, hashes: readonly string[]): Promise<void> {
  for (const blob of hashes) blobs.stored.delete(blob);
  for (let i = 0; i < hashes.length; i += DELETE_CONCURRENCY) {
    await Promise.all(hashes.slice(i, i + DELETE_CONCURRENCY).map((blob) => blobs.storage.delete(`${BLOBS}/${blob}`).catch(() => undefined)));
  }
}
