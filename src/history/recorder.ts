/**
 * Records what one call changes by wrapping the storage the call's tools
 * use: the only place every write and delete passes, whatever the tool.
 * Before a write it knows the bytes being replaced (from a read earlier in
 * the same call, or by reading them now); after it, the new version. The
 * bytes of both go to the blob store only when the call's changes are asked
 * for, after the call: hashing and storing them is no part of the write, so
 * the host can do it after the reply.
 */
import { isCodedError } from "../errors.ts";
import type { ReadOptions, ScanFileOptions, Storage, Version, WriteCondition } from "../storage/types.ts";
import type { FileChange, FileState, HistoryStore } from "./types.ts";

/** A storage that records changes, and what it recorded. */
export interface Recorder {
  readonly storage: Storage;
  /** The changes of the call so far, one per path (first `before`, last `after`), their bytes stored as blobs. */
  changes(): Promise<FileChange[]>;
  /** Bytes written through it. */
  bytesWritten(): number;
}

interface Seen {
  readonly version: Version;
  readonly bytes: Uint8Array;
}

/** Wrap `storage` (already guarded) for one call. */
export function createRecorder(storage: Storage, history: HistoryStore): Recorder {
  const seen = new Map<string, Seen>();
  /** Per path: the state before the call's first change and after its last (null: absent). */
  const changes = new Map<string, { before: Seen | null; after: Seen | null }>();
  let written = 0;

  async function current(path: string, expected?: Version): Promise<Seen | null> {
    const cached = seen.get(path);
    if (cached && (expected === undefined || cached.version === expected)) return cached;
    try {
      const { bytes, version } = await storage.read(path);
      return { bytes, version };
    } catch (error) {
      if (isCodedError(error) && (error.code === "FS_NOT_FOUND" || error.code === "FS_IS_DIRECTORY")) return null;
      throw error;
    }
  }

  // Where a version names one content for good (a content hash, or a fresh id per write), the store may reuse
  // the hash it took under that name; an ETag (MD5) can be made to collide, so object stores hash every time.
  const versionsNameContent = storage.kind === "local" || storage.kind === "memory";
  async function state(path: string, s: Seen | null): Promise<FileState | null> {
    if (!s) return null;
    const known = versionsNameContent ? `${s.bytes.byteLength}:${path}:${s.version}` : undefined;
    return { version: s.version, blob: await history.putBlob(s.bytes, known), size: s.bytes.byteLength };
  }

  function note(path: string, before: Seen | null, after: Seen | null): void {
    const earlier = changes.get(path);
    changes.set(path, { before: earlier ? earlier.before : before, after });
  }

  const recording: Storage = {
    kind: storage.kind,
    // The real root decides how tools read absolute paths (see Storage.root).
    ...(storage.root === undefined ? {} : { root: storage.root }),
    stat: (path) => storage.stat(path),
    ...(storage.readStream ? { readStream: (path: string) => storage.readStream!(path) } : {}),
    // A search's reads are not recorded, like streamed ones: nothing is written from them.
    ...(storage.scanFile ? { scanFile: <T>(path: string, options: ScanFileOptions<T>) => storage.scanFile!(path, options) } : {}),
    ...(storage.endScan ? { endScan: () => storage.endScan!() } : {}),
    ...(storage.scanAhead ? { scanAhead: (paths: readonly string[]) => storage.scanAhead!(paths) } : {}),
    async read(path: string, options?: ReadOptions) {
      const result = await storage.read(path, options);
      seen.set(path, { version: result.version, bytes: result.bytes });
      return result;
    },
    list: (path, options) => storage.list(path, options),
    async write(path: string, bytes: Uint8Array, condition: WriteCondition = { kind: "none" }) {
      const prior = condition.kind === "ifAbsent" ? null : await current(path, condition.kind === "ifVersion" ? condition.version : undefined);
      const result = await storage.write(path, bytes, condition);
      written += bytes.byteLength;
      const after = { version: result.version, bytes };
      note(path, result.created ? null : prior, after);
      seen.set(path, after);
      return result;
    },
    async delete(path: string, options?: { ifVersion?: Version }) {
      const prior = await current(path, options?.ifVersion);
      await storage.delete(path, options);
      note(path, prior, null);
      seen.delete(path);
    },
  };

  return {
    storage: recording,
    async changes() {
      const out: FileChange[] = [];
      for (const [path, change] of changes) out.push({ path, before: await state(path, change.before), after: await state(path, change.after) });
      return out;
    },
    bytesWritten: () => written,
  };
}
