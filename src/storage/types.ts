/**
 * The storage seam: the one interface every tool uses, whatever holds the
 * bytes (memory, a local directory, R2, S3). It speaks machine vocabulary —
 * codes, versions, bytes — and never model-facing wording.
 *
 * Every `path` given to a {@link Storage} is already a normalised
 * workspace-relative POSIX path ("" is the workspace root, "src/a.ts" a file):
 * see `normalizeWorkspacePath` in `./path.ts`, applied once at the boundary by
 * `guardStorage`.
 */

/** Opaque version token minted by the provider (ETag, content hash, ...). */
export type Version = string;

/** The precondition of a write; enforced atomically by the provider. */
export type WriteCondition =
  | { readonly kind: "none" }
  | {
      readonly kind: "ifVersion";
      readonly version: Version;
      /**
       * The bytes the caller read as `version` (from one `read`), when it has
       * them. A provider whose versions are content hashes may accept the
       * write when the current bytes equal these, instead of hashing them:
       * equal bytes have the same version. Anything else is checked by version.
       */
      readonly bytes?: Uint8Array;
    }
  | { readonly kind: "ifAbsent" };

export type EntryKind = "file" | "directory";

/** What `stat` knows about one path. */
export interface StatResult {
  readonly path: string;
  readonly kind: EntryKind;
  /** Bytes for a file; 0 for a directory. */
  readonly size: number;
  /** Present for files. */
  readonly version?: Version;
  readonly mtimeMs?: number;
}

/** A whole file and the version those bytes are. */
export interface ReadResult {
  readonly bytes: Uint8Array;
  readonly version: Version;
}

/** One entry of a listing; `path` is workspace-relative. */
export interface ListEntry {
  readonly path: string;
  readonly name: string;
  readonly kind: EntryKind;
  readonly size: number;
  /**
   * Reached through a symlink (local storage). A symlinked directory is
   * listed but never entered by a walk, as ripgrep does: links such as
   * `l -> .` would otherwise repeat the tree without end.
   */
  readonly symlink?: boolean;
  /**
   * A name no call can address (it has a control, line-separator or bidi
   * character, or a backslash), made by another process. Listed so it is
   * not hidden, shown escaped (`escapeName`), never entered or read.
   */
  readonly unaddressable?: boolean;
}

export interface ListOptions {
  /** Walk below the directory too. Default false. */
  readonly recursive?: boolean;
  /** Stop after this many entries and report `truncated`. */
  readonly limit?: number;
  /** With `recursive`: how many levels below the directory (1 = its children only). */
  readonly depth?: number;
  /**
   * False when the caller needs names and kinds only (a search opens each
   * file anyway): a provider that would have to look up every file for its
   * size (local storage) may then report a file's `size` as -1. Default true.
   */
  readonly sizes?: boolean;
}

export interface ListResult {
  /** Sorted by full path in code-unit order (as S3 lists keys), directories and files interleaved. */
  readonly entries: ListEntry[];
  /** True when `limit` cut the listing short. */
  readonly truncated: boolean;
}

/** Options of {@link Storage.read}. */
export interface ReadOptions {
  /**
   * Refuse a file larger than this many bytes with FS_TOO_LARGE (a
   * {@link FileTooLargeError} carrying the size) instead of reading it, so a
   * caller with a size limit needs no `stat` first. Providers that learn the
   * size before the body (file handles, HTTP headers) refuse before reading.
   */
  readonly maxBytes?: number;
}

/**
 * A file opened for streaming (see {@link Storage.readStream}). The stream
 * must be read to its end or cancelled; cancelling releases the file.
 */
export interface ReadStreamResult {
  /** The file's bytes, in chunks of the provider's choosing (never empty chunks). */
  readonly stream: ReadableStream<Uint8Array>;
  /**
   * Bytes when the file was opened. A hint for choosing how to read it (and
   * for refusing a file that is too large before reading it): a file
   * rewritten in place while streaming may deliver more or fewer bytes.
   */
  readonly size: number;
  /**
   * The version of exactly the bytes the stream delivers. A provider with a
   * native version (an ETag) knows it at once; local storage hashes while
   * streaming and settles it after the last chunk. Await it only after
   * reading the stream to its end: it may reject (FS_IO_ERROR) when the
   * stream is cancelled or fails (local storage does; a provider that knew
   * it at once keeps it), and may not settle before the end is read.
   */
  readonly version: Promise<Version>;
}

/** How {@link Storage.scanFile} hands a file over. */
export interface ScanFileOptions<T> {
  /** A larger file is refused with FS_TOO_LARGE ({@link FileTooLargeError}) before its bytes are read. */
  readonly maxBytes: number;
  /** How many first bytes `head` needs. */
  readonly headBytes: number;
  /**
   * Called first with the file's first `headBytes` bytes (all of them when
   * the file is shorter). A result other than undefined ends the scan: the
   * rest of the file is never read, and that result is the scan's.
   */
  readonly head: (bytes: Uint8Array) => T | undefined;
  /**
   * Called with the whole file. The bytes are lent: the provider may reuse
   * their buffer once `whole` returns, so keep a copy or a decoding, never
   * the array. `version()` is the version of exactly these bytes, computed
   * when asked (a provider whose versions are content hashes skips the hash
   * for a file nobody needs the version of); call it inside `whole`.
   */
  readonly whole: (bytes: Uint8Array, version: () => Version | Promise<Version>) => T;
}

export interface WriteResult {
  readonly version: Version;
  /** True when the path did not exist before this write. */
  readonly created: boolean;
}

/**
 * A storage provider. All methods reject with `FsError` (see `./errors.ts`).
 *
 * - `stat` resolves `null` for a missing path (absence is not an error there).
 * - `read` of a missing path: FS_NOT_FOUND; of a directory: FS_IS_DIRECTORY;
 *   of a file over `options.maxBytes`: FS_TOO_LARGE ({@link FileTooLargeError}).
 * - `write` creates parent directories as needed; a failed condition is
 *   FS_STALE_VERSION (`ifVersion`; also when the file is gone) or
 *   FS_ALREADY_EXISTS (`ifAbsent`), with nothing written.
 * - `list` of a file: FS_NOT_DIRECTORY; of a missing path: FS_NOT_FOUND.
 * - `delete` removes a file; with `ifVersion` only if it is still that version.
 * - `scanFile` (optional) is `read` for a search: see {@link ScanFileOptions}.
 * - `readStream` (optional) is `read` in chunks, with the same refusals
 *   (FS_NOT_FOUND, FS_IS_DIRECTORY, ...) raised before any byte is
 *   delivered. Tools use it to view or search a file without holding it
 *   whole; every provider here has it, and one without it is read with `read`.
 */
export interface Storage {
  /** Short provider name for logs and errors ("memory", "local", "r2", "s3"). */
  readonly kind: string;
  /**
   * The absolute directory the workspace is, for storage that has one
   * (local): tools accept absolute paths inside it. Absent for memory, R2
   * and S3, where a leading "/" is the workspace root. A wrapper passes it
   * on (without it, an absolute path would be read as workspace-relative).
   */
  readonly root?: string;
  stat(path: string): Promise<StatResult | null>;
  read(path: string, options?: ReadOptions): Promise<ReadResult>;
  /** The file at `path` as a stream of chunks (optional; see the interface comment). */
  readStream?(path: string): Promise<ReadStreamResult>;
  /**
   * Optional: read `path` for a search, as `read` does (same refusals), but
   * judged from its first bytes before the rest is read, in a buffer the
   * provider may reuse, with the version computed only when asked for. A
   * provider without it is searched through `read`/`readStream`.
   */
  scanFile?<T>(path: string, options: ScanFileOptions<T>): Promise<T>;
  /**
   * Optional, with `scanFile`: the files a search will scan next, in that
   * order. A hint: the provider may start reading them (local storage, on
   * another thread), and `scanFile`'s answers are the same with or without
   * it. What is not scanned is let go at `endScan`.
   */
  scanAhead?(paths: readonly string[]): void;
  /**
   * Optional, with `scanFile`: a search is done with its scans and its
   * listings without sizes; the provider lets go what it kept for them
   * (local storage: directory descriptors, so a directory renamed after the
   * search is never read through a descriptor kept from it).
   */
  endScan?(): void;
  write(path: string, bytes: Uint8Array, condition?: WriteCondition): Promise<WriteResult>;
  list(path: string, options?: ListOptions): Promise<ListResult>;
  delete(path: string, options?: { ifVersion?: Version }): Promise<void>;
}

/** Shorthands for the three write conditions. */
export const Cond = {
  none: { kind: "none" } as WriteCondition,
  ifAbsent: { kind: "ifAbsent" } as WriteCondition,
  ifVersion: (version: Version, bytes?: Uint8Array): WriteCondition =>
    bytes === undefined ? { kind: "ifVersion", version } : { kind: "ifVersion", version, bytes },
} as const;
