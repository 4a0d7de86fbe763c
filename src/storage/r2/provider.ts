/**
 * Cloudflare R2 storage: a workspace is a key prefix (`<workspace>/`) in one
 * bucket, a file is an object, a directory is any prefix with keys below it
 * (there are no directory objects, exactly like the memory provider).
 *
 * Versions are ETags (`object.etag`, unquoted). Writes are conditional puts
 * that R2 enforces atomically; verified in workerd (Miniflare 4, see
 * test/storage/r2-workerd.test.ts):
 *   - `ifVersion(v)`  -> `onlyIf: { etagMatches: v }`: a different ETag, or
 *     no object at all, makes `put` resolve null and write nothing.
 *   - `ifAbsent`      -> `onlyIf: { etagDoesNotMatch: "*" }`: an existing
 *     object makes `put` resolve null and write nothing; a missing key is
 *     created.
 *   - A quoted ETag in `onlyIf` throws, so versions go in unquoted.
 * An ETag is the MD5 of the content (single-part puts), so rewriting
 * identical bytes keeps the version: a compare-and-swap then succeeds against
 * content that is byte-for-byte what the caller read, which is harmless.
 *
 * Reads get the object once: its size and ETag come with it, before the body
 * is read, so `read` with `maxBytes` refuses a larger object by cancelling
 * the body unread, and `readStream` hands the body out as it arrives (a
 * Worker viewing the end of a 500 MB file holds one chunk, not the file).
 *
 * What is NOT atomic, because R2 offers no primitive for it:
 *   - "is a directory" / "below a file" checks before an unconditional or
 *     create-only put (a concurrent writer can create "a" while another
 *     creates "a/b"); a compare-and-swap put skips them, because matching an
 *     ETag proves the path was already a file.
 *   - `delete` with `ifVersion` (R2 deletes are unconditional): the ETag is
 *     checked with a `head` just before the delete. No tool deletes.
 *
 * The pieces: ./objects.ts (a path's key and the look-ups that name a
 * refusal), ./put.ts (the writes), ./list.ts (listing), ./probe.ts (the
 * start-up check); this module is the thin provider object over them.
 *
 * No `node:` imports: this runs inside workerd.
 */
import { bodyStream } from "../body-stream.ts";
import { FileTooLargeError, FsError } from "../errors.ts";
import { listDepth } from "../listing.ts";
import type { R2BucketLike, R2ObjectLike } from "./bucket.ts";
import { listR2 } from "./list.ts";
import { fileAncestor, io, isDirectory, keyOf, missing, notDirectory, openObject, type R2Workspace } from "./objects.ts";
import { putObject } from "./put.ts";
import type {
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

/** R2's largest list page. */
const MAX_PAGE_SIZE = 1000;

/** Options of {@link createR2Storage}. */
export interface R2StorageOptions {
  /** Keys per list call, 1..1000 (default 1000); tests use small pages to exercise paging. */
  readonly pageSize?: number;
}

/** Check a workspace key prefix: "" (the whole bucket) or segments ending in "/". */
function checkPrefix(prefix: string): string {
  if (prefix === "") return prefix;
  const withSlash = prefix.endsWith("/") ? prefix : `${prefix}/`;
  const segments = withSlash.slice(0, -1).split("/");
  if (segments.some((s) => s === "" || s === "." || s === "..")) {
    throw new Error(`createR2Storage: prefix ${JSON.stringify(prefix)} must be like "workspace/" (no empty, "." or ".." segments)`);
  }
  return withSlash;
}

function fileStat(path: string, object: R2ObjectLike): StatResult {
  return { path, kind: "file", size: object.size, version: object.etag, mtimeMs: object.uploaded.getTime() };
}

/**
 * Storage over the R2 bucket `bucket`, confined to keys under `prefix`
 * ("ws1" and "ws1/" both mean keys "ws1/..."; "" means the whole bucket).
 * Paths must already be normalised (the app wraps every provider in
 * `guardStorage`). A path whose key would exceed R2's 1024-byte limit is
 * FS_INVALID_PATH.
 */
export function createR2Storage(bucket: R2BucketLike, prefix: string, options: R2StorageOptions = {}): Storage {
  const keyPrefix = checkPrefix(prefix);
  const pageSize = options.pageSize ?? MAX_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    throw new Error(`createR2Storage: pageSize must be an integer in 1..${MAX_PAGE_SIZE}`);
  }
  const ws: R2Workspace = { bucket, keyPrefix };

  return {
    kind: "r2",

    async stat(path: string): Promise<StatResult | null> {
      if (path === "") return { path, kind: "directory", size: 0 };
      const key = keyOf(ws, path);
      try {
        const object = await bucket.head(key);
        if (object) return fileStat(path, object);
        return (await isDirectory(ws, path)) ? { path, kind: "directory", size: 0 } : null;
      } catch (error) {
        io(error, "stat", path);
      }
    },

    async read(path: string, readOptions?: ReadOptions): Promise<ReadResult> {
      const object = await openObject(ws, path);
      const limit = readOptions?.maxBytes;
      if (limit !== undefined && object.size > limit) {
        await object.body.cancel().catch(() => undefined);
        throw new FileTooLargeError(path, object.size, limit);
      }
      try {
        return { bytes: new Uint8Array(await object.arrayBuffer()), version: object.etag };
      } catch (error) {
        io(error, "read", path);
      }
    },

    async readStream(path: string): Promise<ReadStreamResult> {
      const object = await openObject(ws, path);
      const stream = bodyStream(object.body, {
        path,
        expectedBytes: object.size,
        describe: (reason) => `R2 read failed: ${reason}`,
      });
      // The ETag came with the object, and R2 serves the body of exactly that object.
      return { stream, size: object.size, version: Promise.resolve(object.etag) };
    },

    async write(path: string, bytes: Uint8Array, condition: WriteCondition = { kind: "none" }): Promise<WriteResult> {
      if (path === "") throw new FsError("FS_IS_DIRECTORY", "is a directory: (the workspace root)", { path });
      const key = keyOf(ws, path);
      try {
        return await putObject(ws, path, key, bytes, condition);
      } catch (error) {
        io(error, "write", path);
      }
    },

    async list(path: string, listOptions?: ListOptions): Promise<ListResult> {
      const key = path === "" ? keyPrefix : keyOf(ws, path);
      try {
        const [file, listing] = await Promise.all([
          path === "" ? null : bucket.head(key),
          listR2(bucket, { keyPrefix, dir: path, maxDepth: listDepth(listOptions), limit: listOptions?.limit, pageSize }),
        ]);
        if (file) throw new FsError("FS_NOT_DIRECTORY", `not a directory: ${path}`, { path });
        if (listing.empty && path !== "") throw await missing(ws, path);
        return { entries: listing.entries, truncated: listing.truncated };
      } catch (error) {
        io(error, "list", path);
      }
    },

    async delete(path: string, deleteOptions?: { ifVersion?: Version }): Promise<void> {
      if (path === "") throw new FsError("FS_IS_DIRECTORY", "is a directory: (the workspace root)", { path });
      const key = keyOf(ws, path);
      try {
        const [object, directory] = await Promise.all([bucket.head(key), isDirectory(ws, path)]);
        if (!object) {
          if (directory) throw new FsError("FS_IS_DIRECTORY", `is a directory: ${path}`, { path });
          const dir = await fileAncestor(ws, path);
          if (dir !== undefined) throw notDirectory(dir, path);
          if (deleteOptions?.ifVersion !== undefined) throw new FsError("FS_STALE_VERSION", `version mismatch: ${path}`, { path });
          throw new FsError("FS_NOT_FOUND", `not found: ${path}`, { path });
        }
        if (deleteOptions?.ifVersion !== undefined && deleteOptions.ifVersion !== object.etag) {
          throw new FsError("FS_STALE_VERSION", `version mismatch: ${path}`, { path });
        }
        await bucket.delete(key);
      } catch (error) {
        io(error, "delete", path);
      }
    },
  };
}
