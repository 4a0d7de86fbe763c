/**
 * S3 storage: a workspace is a key prefix in one bucket, a file is an object
 * (key = prefix + workspace path), a directory is any key below `path/`, and
 * a version is the object's ETag without quotes.
 *
 * Guarded writes are the server's own conditional PUT, so they are atomic
 * across every process using the bucket: `ifVersion` sends
 * `If-Match: <etag>`, `ifAbsent` sends `If-None-Match: *`; 412 and 409 both
 * mean the condition failed and nothing was written. `createS3Storage`
 * refuses to start on a server that ignores these headers (see ./probe.ts).
 *
 * Files and directories sharing a path. An object store allows keys `a` and
 * `a/b` side by side; a file system does not, so this provider keeps them
 * apart — a rule that costs round trips only where it can be broken:
 * - `ifVersion` writes check nothing extra: the path held a file of that
 *   version, so it is neither a directory nor below a file.
 * - unconditional and `ifAbsent` writes first check, in parallel, that no
 *   key lies below `path/` (FS_IS_DIRECTORY) and that no ancestor is a key
 *   (FS_NOT_DIRECTORY, one HEAD per ancestor). This check-then-write is not
 *   atomic: a concurrent writer can still create `a` while another creates
 *   `a/b`. If that happens (or another tool made such keys), the file wins:
 *   `stat`, `read` and `list` report the file, and its "directory" contents
 *   stay reachable by their full paths.
 * - reads, stats and deletes look at directories and ancestors only after
 *   the object itself was not found, to name the failure.
 *
 * Reads are one GET whose headers carry the version (ETag) and the size
 * (Content-Length) before the body: `read` with `maxBytes` refuses a larger
 * object and cancels the body unread, and `readStream` hands the body out
 * as it arrives, so viewing the end of a huge object holds one chunk at a
 * time. Cancelling the stream cancels the response body, which releases the
 * connection.
 *
 * Costs in round trips (parallel requests count once): read 1; stat 1 (2
 * for a directory); write ifVersion 1, ifAbsent / unconditional 2; delete 2;
 * list 1 per page of up to 1000 keys, stopping as soon as `limit` is
 * settled (see ./list-walk.ts).
 *
 * Known limits:
 * - A version is the ETag, i.e. the MD5 of the content for a simple PUT:
 *   rewriting the same bytes keeps the version, so a compare-and-swap
 *   accepts content that went A -> B -> A. Callers compare content, so this
 *   is harmless: the bytes they read are the bytes that are there.
 * - `created` of an unconditional write comes from the HEAD made before it;
 *   under a concurrent writer it can be wrong. (`ifAbsent`: always true;
 *   `ifVersion`: always false.)
 * - `delete` with `ifVersion` compares the version with a HEAD, then sends
 *   DELETE with `If-Match`. Servers that honour If-Match on DELETE (AWS since
 *   2024) make this atomic; radosgw 16 ignores it, leaving a short window in
 *   which a write landing between the HEAD and the DELETE is deleted.
 *   `S3Storage.conditionalDelete` reports which the probe found.
 *
 * The pieces: ./objects.ts (the requests on one key or page),
 * ./conditional-put.ts (guarded writes), ./list.ts (listing), ./probe.ts
 * (the start-up check), ./client.ts (signing and retries); this module is
 * the thin provider object over them.
 */
import { bodyStream, bytesStream } from "../body-stream.ts";
import { FileTooLargeError, FsError } from "../errors.ts";
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
import { createS3Client } from "./client.ts";
import { conditionalPut } from "./conditional-put.ts";
import { resolvePrefix, resolveS3Config, type S3Config } from "./config.ts";
import { listS3 } from "./list.ts";
import { createS3Objects, isDirectoryError, type S3Objects } from "./objects.ts";
import { probeConditionalWrites } from "./probe.ts";
import { conditionFailed, contentLength, drain, isOk } from "./response.ts";

/** An S3-backed {@link Storage}, with what the start-up probe learned. */
export interface S3Storage extends Storage {
  readonly kind: "s3";
  /**
   * True when the server refused a DELETE with a wrong If-Match at start-up,
   * so `delete(path, { ifVersion })` is atomic; false when it ignored it (or
   * the probe was skipped) and the delete is check-then-delete.
   */
  readonly conditionalDelete: boolean;
  /** Always present: the object's GET body, streamed (see the module comment). */
  readStream(path: string): Promise<ReadStreamResult>;
}

/** What an ETag can look like; any other "version" can never match, so it is stale without asking. */
const ETAG_TEXT = /^[\x21-\x7e]+$/;

/**
 * Connect to a bucket and return its {@link Storage}. Unless `skipProbe` is
 * set, first proves on a sentinel key that the server enforces conditional
 * writes, and rejects (FS_IO_ERROR naming the endpoint and the reason) when
 * it does not. A bad config rejects with INVALID_ARGUMENT.
 */
export async function createS3Storage(config: S3Config): Promise<S3Storage> {
  return (await connectS3Bucket(config)).storage("");
}

/** A bucket probed once, handing out a storage per key prefix (the Worker's workspaces). */
export interface S3Bucket {
  /** Endpoint and bucket, for messages (no credential). */
  readonly where: string;
  /** The storage at `<config prefix><prefix>/` ("" is the config's prefix itself). */
  storage(prefix: string): S3Storage;
}

/**
 * Probe (unless `skipProbe`) at the config's prefix, then hand out storages
 * below it without probing again: every prefix is the same server and bucket.
 * Rejects as {@link createS3Storage} does.
 */
export async function connectS3Bucket(config: S3Config): Promise<S3Bucket> {
  const resolved = resolveS3Config(config);
  const client = createS3Client(resolved);
  const probe = resolved.skipProbe ? { conditionalDelete: false } : await probeConditionalWrites(client, resolved.prefix);
  return {
    where: client.where,
    storage: (prefix) =>
      s3Storage(
        createS3Objects(client, prefix === "" ? resolved.prefix : resolvePrefix(resolved.prefix + prefix)),
        resolved.listPageSize,
        probe.conditionalDelete,
      ),
  };
}

function s3Storage(objects: S3Objects, pageSize: number, conditionalDelete: boolean): S3Storage {
  const { client, head, versionOf } = objects;
  const stale = (path: string) => new FsError("FS_STALE_VERSION", `version mismatch: ${path}`, { path });

  return {
    kind: "s3",
    conditionalDelete,

    async stat(path: string): Promise<StatResult | null> {
      if (path === "") return { path, kind: "directory", size: 0 };
      const response = await head(path, "stat");
      if (response) {
        const size = Number(response.headers.get("content-length") ?? "0");
        const modified = Date.parse(response.headers.get("last-modified") ?? "");
        return {
          path,
          kind: "file",
          size,
          version: versionOf(response, "stat", path),
          ...(Number.isNaN(modified) ? {} : { mtimeMs: modified }),
        };
      }
      return (await objects.hasChildren(path)) ? { path, kind: "directory", size: 0 } : null;
    },

    async read(path: string, options?: ReadOptions): Promise<ReadResult> {
      const { response, version } = await objects.getObject(path);
      const limit = options?.maxBytes;
      const size = contentLength(response);
      if (limit !== undefined && size !== undefined && size > limit) {
        await drain(response);
        throw new FileTooLargeError(path, size, limit);
      }
      const bytes = await client.bytes(response, "read", path);
      if (limit !== undefined && bytes.length > limit) throw new FileTooLargeError(path, bytes.length, limit);
      return { bytes, version };
    },

    async readStream(path: string): Promise<ReadStreamResult> {
      const { response, version } = await objects.getObject(path);
      const size = contentLength(response);
      if (size === undefined || response.body === null) {
        // No length to announce or to check the body against (not what S3 servers do): read it whole.
        const bytes = await client.bytes(response, "read", path);
        return { stream: bytesStream(bytes), size: bytes.length, version: Promise.resolve(version) };
      }
      const stream = bodyStream(response.body, {
        path,
        expectedBytes: size,
        describe: (reason) => `s3 read ${path} at ${client.where}: ${reason}`,
      });
      // The ETag is in the headers of the very response whose body this is.
      return { stream, size, version: Promise.resolve(version) };
    },

    async write(path: string, bytes: Uint8Array, condition: WriteCondition = { kind: "none" }): Promise<WriteResult> {
      if (path === "") throw isDirectoryError(path);
      if (condition.kind === "ifVersion") {
        if (!ETAG_TEXT.test(condition.version)) throw stale(path);
        return conditionalPut(objects, path, bytes, condition);
      }

      const ifAbsent = condition.kind === "ifAbsent";
      const [directory, ancestor, existing] = await Promise.all([
        objects.hasChildren(path),
        objects.fileAncestor(path, "write"),
        ifAbsent ? Promise.resolve(null) : head(path, "write"),
      ]);
      if (directory) throw isDirectoryError(path);
      if (ancestor !== undefined) throw new FsError("FS_NOT_DIRECTORY", `not a directory: ${ancestor}`, { path });

      if (ifAbsent) return conditionalPut(objects, path, bytes, condition);
      const response = await objects.put(path, bytes, {}, true);
      if (!isOk(response.status)) throw await client.failure(response, "write", path);
      await drain(response);
      return { version: versionOf(response, "write", path), created: existing === null };
    },

    list(path: string, options?: ListOptions): Promise<ListResult> {
      return listS3(objects, path, options, pageSize);
    },

    async delete(path: string, options?: { ifVersion?: Version }): Promise<void> {
      if (path === "") throw isDirectoryError(path);
      const ifVersion = options?.ifVersion;
      const existing = await head(path, "delete");
      if (!existing) {
        const why = await objects.whyMissing(path, "delete");
        if (why) throw why;
        if (ifVersion !== undefined) throw stale(path);
        throw new FsError("FS_NOT_FOUND", `not found: ${path}`, { path });
      }
      if (ifVersion !== undefined && versionOf(existing, "delete", path) !== ifVersion) throw stale(path);
      const response = await client.send({
        method: "DELETE",
        key: objects.keyOf(path),
        headers: ifVersion !== undefined ? { "if-match": ifVersion } : {},
        retry: ifVersion === undefined,
      });
      if (ifVersion !== undefined && (conditionFailed(response.status) || response.status === 404)) {
        await drain(response);
        throw stale(path);
      }
      if (!isOk(response.status)) throw await client.failure(response, "delete", path);
      await drain(response);
    },
  };
}
