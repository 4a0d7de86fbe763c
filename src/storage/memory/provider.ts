/**
 * In-memory storage: for tests, demos and ephemeral sandboxes.
 *
 * Files live in a Map of path -> bytes; directories exist only while some
 * file lies below them (there is no mkdir), exactly like an object store.
 * Every method body runs to completion without an `await`, so a condition
 * check and the write it guards can never interleave with another call.
 */
import { FileTooLargeError, FsError } from "../errors.ts";
import { checkListOptions, finishListing, listDepth } from "../listing.ts";
import { ancestorPaths, baseName } from "../path.ts";
import type {
  ListEntry,
  ListOptions,
  ListResult,
  ReadOptions,
  ReadResult,
  ReadStreamResult,
  StatResult,
  Storage,
  Version,
  WriteCondition,
  WriteResult,
} from "../types.ts";

interface FileRecord {
  readonly bytes: Uint8Array;
  readonly version: Version;
  readonly mtimeMs: number;
}

/** Options of {@link createMemoryStorage}. */
export interface MemoryStorageOptions {
  /** Chunk size of `readStream` in bytes (default 64 KiB); tests use tiny chunks to exercise boundaries. */
  readonly streamChunkBytes?: number;
}

/**
 * A snapshot of `bytes` as a byte stream of at most `chunk`-byte pieces:
 * copied into the reader's buffer (BYOB) or into fresh chunks, so a reader
 * writing into what it got never changes the stored file.
 */
function chunkedStream(bytes: Uint8Array, chunk: number): ReadableStream<Uint8Array> {
  let at = 0;
  const source: UnderlyingByteSource = {
    type: "bytes",
    autoAllocateChunkSize: chunk,
    pull(controller) {
      const request = controller.byobRequest!;
      if (at >= bytes.length) {
        controller.close();
        request.respond(0);
        return;
      }
      const view = request.view as Uint8Array;
      const n = Math.min(view.byteLength, chunk, bytes.length - at);
      view.set(bytes.subarray(at, at + n));
      at += n;
      request.respond(n);
    },
  };
  return new ReadableStream(source);
}

/**
 * Create an empty in-memory {@link Storage}. Bytes are copied in and out, so
 * a caller mutating its buffer never changes stored content. Versions are
 * unique per write (an instance tag plus a counter), so even rewriting the
 * same bytes mints a new version.
 */
export function createMemoryStorage(options: MemoryStorageOptions = {}): Storage {
  const streamChunk = Math.max(1, Math.floor(options.streamChunkBytes ?? 64 * 1024));
  const files = new Map<string, FileRecord>();
  // Directory path -> number of files below it. The root ("") is implicit.
  const dirs = new Map<string, number>();
  const tag = crypto.getRandomValues(new Uint32Array(1))[0].toString(36);
  let counter = 0;

  const isDirectory = (path: string) => path === "" || dirs.has(path);

  /** Refuse a path that has a file where a directory must be. */
  function assertNoFileAncestor(path: string): void {
    for (const dir of ancestorPaths(path)) {
      if (files.has(dir)) throw new FsError("FS_NOT_DIRECTORY", `not a directory: ${dir}`, { path });
    }
  }

  function missing(path: string): FsError {
    assertNoFileAncestor(path);
    return new FsError("FS_NOT_FOUND", `not found: ${path}`, { path });
  }

  function adjustDirs(path: string, delta: 1 | -1): void {
    for (const dir of ancestorPaths(path)) {
      const count = (dirs.get(dir) ?? 0) + delta;
      if (count === 0) dirs.delete(dir);
      else dirs.set(dir, count);
    }
  }

  return {
    kind: "memory",

    async stat(path: string): Promise<StatResult | null> {
      if (isDirectory(path)) return { path, kind: "directory", size: 0 };
      const file = files.get(path);
      if (!file) return null;
      return { path, kind: "file", size: file.bytes.length, version: file.version, mtimeMs: file.mtimeMs };
    },

    async read(path: string, options?: ReadOptions): Promise<ReadResult> {
      const file = files.get(path);
      if (file) {
        const max = options?.maxBytes;
        if (max !== undefined && file.bytes.length > max) throw new FileTooLargeError(path, file.bytes.length, max);
        return { bytes: file.bytes.slice(), version: file.version };
      }
      if (isDirectory(path)) throw new FsError("FS_IS_DIRECTORY", `is a directory: ${path}`, { path });
      throw missing(path);
    },

    async readStream(path: string): Promise<ReadStreamResult> {
      const file = files.get(path);
      if (!file) {
        if (isDirectory(path)) throw new FsError("FS_IS_DIRECTORY", `is a directory: ${path}`, { path });
        throw missing(path);
      }
      // Stored bytes are never mutated (a write replaces the record): the stream reads this snapshot.
      return { stream: chunkedStream(file.bytes, streamChunk), size: file.bytes.length, version: Promise.resolve(file.version) };
    },

    async write(path: string, bytes: Uint8Array, condition: WriteCondition = { kind: "none" }): Promise<WriteResult> {
      if (isDirectory(path)) throw new FsError("FS_IS_DIRECTORY", `is a directory: ${path}`, { path });
      assertNoFileAncestor(path);
      const existing = files.get(path);
      if (condition.kind === "ifAbsent" && existing) {
        throw new FsError("FS_ALREADY_EXISTS", `already exists: ${path}`, { path });
      }
      if (condition.kind === "ifVersion" && existing?.version !== condition.version) {
        throw new FsError("FS_STALE_VERSION", `version mismatch: ${path}`, { path });
      }
      const version = `mem-${tag}-${(++counter).toString(36)}`;
      files.set(path, { bytes: bytes.slice(), version, mtimeMs: Date.now() });
      if (!existing) adjustDirs(path, 1);
      return { version, created: !existing };
    },

    async list(path: string, options?: ListOptions): Promise<ListResult> {
      checkListOptions(options);
      if (files.has(path)) throw new FsError("FS_NOT_DIRECTORY", `not a directory: ${path}`, { path });
      if (!isDirectory(path)) throw missing(path);
      const maxDepth = listDepth(options);
      const prefix = path === "" ? "" : `${path}/`;
      const entries: ListEntry[] = [];
      const consider = (candidate: string, kind: "file" | "directory", size: number) => {
        if (!candidate.startsWith(prefix)) return;
        const rest = candidate.slice(prefix.length);
        // Depth below the listed directory = number of segments in the remainder.
        let depth = 1;
        for (let i = rest.indexOf("/"); i !== -1; i = rest.indexOf("/", i + 1)) depth++;
        if (depth <= maxDepth) entries.push({ path: candidate, name: baseName(candidate), kind, size });
      };
      for (const [candidate, file] of files) consider(candidate, "file", file.bytes.length);
      for (const candidate of dirs.keys()) consider(candidate, "directory", 0);
      return finishListing(entries, options?.limit);
    },

    async delete(path: string, options?: { ifVersion?: Version }): Promise<void> {
      if (isDirectory(path)) throw new FsError("FS_IS_DIRECTORY", `is a directory: ${path}`, { path });
      assertNoFileAncestor(path);
      const existing = files.get(path);
      if (options?.ifVersion !== undefined && existing?.version !== options.ifVersion) {
        throw new FsError("FS_STALE_VERSION", `version mismatch: ${path}`, { path });
      }
      if (!existing) throw new FsError("FS_NOT_FOUND", `not found: ${path}`, { path });
      files.delete(path);
      adjustDirs(path, -1);
    },
  };
}
