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
 */
import { bodyStream, bytesStream } from "../body-stream.ts";
import { FileTooLargeError, FsError, isFsError } from "../errors.ts";
import { checkListOptions, listDepth } from "../listing.ts";
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
import { createS3Client, type S3Client } from "./client.ts";
import { resolveS3Config, type S3Config } from "./config.ts";
import { ancestorPaths, randomHex, versionFromEtag } from "./keys.ts";
import { addObject, addPrefix, canStop, compareCodePoints, finishWalk, startWalk } from "./list-walk.ts";
import { probeConditionalWrites } from "./probe.ts";
import { type ListPage, parseListObjectsV2, XmlError } from "./xml.ts";

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

/** User metadata carrying a random id per conditional write, to tell whether an unanswered write landed. */
const WRITE_ID_HEADER = "x-amz-meta-toolwarden-write";
/** Sends of one conditional PUT when the server keeps failing with 5xx while nothing changes. */
const CONDITIONAL_ATTEMPTS = 3;

/** At most this many ancestor HEADs are in flight for one write. */
const ANCESTOR_CONCURRENCY = 8;

const decoder = new TextDecoder();
/** What an ETag can look like; any other "version" can never match, so it is stale without asking. */
const ETAG_TEXT = /^[\x21-\x7e]+$/;

const isOk = (status: number) => status >= 200 && status < 300;
const conditionFailed = (status: number) => status === 412 || status === 409;

async function drain(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

/**
 * How many bytes the body will deliver: the Content-Length, when there is a
 * well-formed one and no Content-Encoding (fetch decodes an object uploaded
 * gzipped, so its length is not the length of what arrives).
 */
function contentLength(response: Response): number | undefined {
  const encoding = response.headers.get("content-encoding")?.trim().toLowerCase();
  if (encoding && encoding !== "identity") return undefined;
  const raw = response.headers.get("content-length")?.trim();
  if (raw === undefined || !/^\d+$/.test(raw)) return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * Connect to a bucket and return its {@link Storage}. Unless `skipProbe` is
 * set, first proves on a sentinel key that the server enforces conditional
 * writes, and rejects (FS_IO_ERROR naming the endpoint and the reason) when
 * it does not. A bad config rejects with INVALID_ARGUMENT.
 */
export async function createS3Storage(config: S3Config): Promise<S3Storage> {
  const resolved = resolveS3Config(config);
  const client = createS3Client(resolved);
  const probe = resolved.skipProbe ? { conditionalDelete: false } : await probeConditionalWrites(client, resolved.prefix);
  return s3Storage(client, resolved.prefix, resolved.listPageSize, probe.conditionalDelete);
}

function s3Storage(client: S3Client, prefix: string, pageSize: number, conditionalDelete: boolean): S3Storage {
  const keyOf = (path: string) => prefix + path;
  const dirKey = (path: string) => (path === "" ? prefix : `${prefix}${path}/`);

  function isDirectoryError(path: string): FsError {
    return new FsError("FS_IS_DIRECTORY", `is a directory: ${path}`, { path });
  }

  /** HEAD a key: its response when it exists, null when it does not. */
  async function head(path: string, operation: string): Promise<Response | null> {
    const response = await client.send({ method: "HEAD", key: keyOf(path), retry: true });
    if (response.status === 404) {
      await drain(response);
      return null;
    }
    if (!isOk(response.status)) throw await client.failure(response, operation, path);
    await drain(response);
    return response;
  }

  /** One ListObjectsV2 page. */
  async function listPage(
    keyPrefix: string,
    path: string,
    options: { delimiter?: boolean; maxKeys: number; token?: string },
  ): Promise<ListPage> {
    const query: Array<[string, string]> = [
      ["list-type", "2"],
      ["prefix", keyPrefix],
      ["max-keys", String(options.maxKeys)],
    ];
    if (options.delimiter) query.push(["delimiter", "/"]);
    if (options.token !== undefined) query.push(["continuation-token", options.token]);
    const response = await client.send({ method: "GET", query, retry: true });
    if (!isOk(response.status)) throw await client.failure(response, "list", path);
    const body = decoder.decode(await client.bytes(response, "list", path));
    try {
      return parseListObjectsV2(body);
    } catch (error) {
      if (!(error instanceof XmlError)) throw error;
      throw new FsError("FS_IO_ERROR", `s3 list ${path} at ${client.where}: unreadable ListObjectsV2 response: ${error.message}`, {
        cause: error,
        path,
      });
    }
  }

  /** True when some key lies below `path/`. */
  async function hasChildren(path: string): Promise<boolean> {
    const page = await listPage(dirKey(path), path, { maxKeys: 1 });
    return page.objects.length > 0 || page.prefixes.length > 0;
  }

  /** The outermost ancestor of `path` that is a file, if any (HEADs in bounded parallel batches). */
  async function fileAncestor(path: string, operation: string): Promise<string | undefined> {
    const candidates = ancestorPaths(path);
    for (let i = 0; i < candidates.length; i += ANCESTOR_CONCURRENCY) {
      const batch = candidates.slice(i, i + ANCESTOR_CONCURRENCY);
      const found = await Promise.all(batch.map((dir) => head(dir, operation)));
      const index = found.findIndex((response) => response !== null);
      if (index !== -1) return batch[index];
    }
    return undefined;
  }

  /**
   * Why `path` is not a file when its object is missing: a directory
   * (FS_IS_DIRECTORY), below a file (FS_NOT_DIRECTORY), or simply absent
   * (undefined: the caller picks the code).
   */
  async function whyMissing(path: string, operation: string): Promise<FsError | undefined> {
    const [directory, ancestor] = await Promise.all([hasChildren(path), fileAncestor(path, operation)]);
    if (directory) return isDirectoryError(path);
    if (ancestor !== undefined) return new FsError("FS_NOT_DIRECTORY", `not a directory: ${ancestor}`, { path });
    return undefined;
  }

  function versionOf(response: Response, operation: string, path: string): Version {
    const etag = response.headers.get("etag");
    if (!etag) throw new FsError("FS_IO_ERROR", `s3 ${operation} ${path} at ${client.where}: response has no ETag`, { path });
    return versionFromEtag(etag);
  }

  /**
   * GET the object at `path`: the response, body unread, with its version;
   * or the refusal a read gets (FS_IS_DIRECTORY, FS_NOT_DIRECTORY,
   * FS_NOT_FOUND, or the server's failure).
   */
  async function getObject(path: string): Promise<{ response: Response; version: Version }> {
    if (path === "") throw isDirectoryError(path);
    const response = await client.send({ method: "GET", key: keyOf(path), retry: true });
    if (response.status === 404) {
      await drain(response);
      throw (await whyMissing(path, "read")) ?? new FsError("FS_NOT_FOUND", `not found: ${path}`, { path });
    }
    if (!isOk(response.status)) throw await client.failure(response, "read", path);
    try {
      return { response, version: versionOf(response, "read", path) };
    } catch (error) {
      await drain(response);
      throw error;
    }
  }

  async function put(path: string, bytes: Uint8Array, headers: Record<string, string>, retry: boolean): Promise<Response> {
    return client.send({ method: "PUT", key: keyOf(path), body: bytes, headers, retry });
  }

  /**
   * A PUT with If-Match / If-None-Match. A 412/409 (or, for If-Match, a 404)
   * on the first attempt is the condition failing. A 5xx or a network error
   * leaves the outcome unknown — radosgw answers 500 (ECANCELED) to the
   * losers of a compare-and-swap race — so the object is looked at: our own
   * write id there means our write landed; the precondition still holding
   * means nothing landed and the PUT is sent again; anything else means
   * another writer won.
   */
  async function conditionalPut(
    path: string,
    bytes: Uint8Array,
    condition: { kind: "ifAbsent" } | { kind: "ifVersion"; version: Version },
  ): Promise<WriteResult> {
    const ifAbsent = condition.kind === "ifAbsent";
    const writeId = randomHex(12);
    const headers = {
      [WRITE_ID_HEADER]: writeId,
      ...(condition.kind === "ifAbsent" ? { "if-none-match": "*" } : { "if-match": condition.version }),
    };
    const conflict = () =>
      ifAbsent
        ? new FsError("FS_ALREADY_EXISTS", `already exists: ${path}`, { path })
        : new FsError("FS_STALE_VERSION", `version mismatch: ${path}`, { path });
    /** One send: the result, or why it did not clearly succeed. */
    const attemptPut = async (attempt: number): Promise<WriteResult | { refused: boolean; trouble: FsError }> => {
      let response: Response;
      try {
        response = await put(path, bytes, headers, false);
      } catch (error) {
        if (!isFsError(error)) throw error;
        return { refused: false, trouble: error };
      }
      if (isOk(response.status)) {
        await drain(response);
        return { version: versionOf(response, "write", path), created: ifAbsent };
      }
      // radosgw answers 412 for If-Match on a missing key, AWS 404: either way the version is gone.
      const refused = conditionFailed(response.status) || (!ifAbsent && response.status === 404);
      if (refused && attempt === 1) {
        await drain(response);
        throw conflict();
      }
      const trouble = await client.failure(response, "write", path);
      if (!refused && response.status < 500) throw trouble;
      return { refused, trouble };
    };
    for (let attempt = 1; ; attempt++) {
      const outcome = await attemptPut(attempt);
      if ("version" in outcome) return outcome;
      const { refused, trouble } = outcome;
      // The outcome is unknown (or a repeat was refused, perhaps by our own first attempt): look.
      const now = await head(path, "write").catch((error: unknown) => {
        throw new FsError("FS_IO_ERROR", `s3 write ${path} at ${client.where}: outcome unknown (${trouble.message}), and checking failed`, {
          cause: error,
          path,
        });
      });
      if (now && now.headers.get(WRITE_ID_HEADER) === writeId) {
        return { version: versionOf(now, "write", path), created: ifAbsent };
      }
      const unchanged = condition.kind === "ifAbsent" ? now === null : now !== null && versionOf(now, "write", path) === condition.version;
      if (refused || !unchanged) throw conflict();
      if (attempt >= CONDITIONAL_ATTEMPTS) throw trouble;
    }
  }

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
      return (await hasChildren(path)) ? { path, kind: "directory", size: 0 } : null;
    },

    async read(path: string, options?: ReadOptions): Promise<ReadResult> {
      const { response, version } = await getObject(path);
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
      const { response, version } = await getObject(path);
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
        if (!ETAG_TEXT.test(condition.version)) throw new FsError("FS_STALE_VERSION", `version mismatch: ${path}`, { path });
        return conditionalPut(path, bytes, condition);
      }

      const ifAbsent = condition.kind === "ifAbsent";
      const [directory, ancestor, existing] = await Promise.all([
        hasChildren(path),
        fileAncestor(path, "write"),
        ifAbsent ? Promise.resolve(null) : head(path, "write"),
      ]);
      if (directory) throw isDirectoryError(path);
      if (ancestor !== undefined) throw new FsError("FS_NOT_DIRECTORY", `not a directory: ${ancestor}`, { path });

      if (ifAbsent) return conditionalPut(path, bytes, condition);
      const response = await put(path, bytes, {}, true);
      if (!isOk(response.status)) throw await client.failure(response, "write", path);
      await drain(response);
      return { version: versionOf(response, "write", path), created: existing === null };
    },

    async list(path: string, options?: ListOptions): Promise<ListResult> {
      checkListOptions(options);
      const limit = options?.limit;
      const maxDepth = listDepth(options);
      const keyPrefix = dirKey(path);
      const walk = startWalk(path, maxDepth);
      // Rolling up one level per common prefix keeps a plain listing from reading whole subtrees.
      const delimiter = maxDepth === 1;
      const maxKeys = limit === undefined ? pageSize : Math.min(pageSize, limit + 1);
      let token: string | undefined;
      let highWater: string | undefined;
      let first = true;
      const seenTokens = new Set<string>();
      for (;;) {
        const page = await listPage(keyPrefix, path, { delimiter, maxKeys, token });
        if (first && path !== "" && page.objects.length === 0 && page.prefixes.length === 0) {
          if (await head(path, "list")) throw new FsError("FS_NOT_DIRECTORY", `not a directory: ${path}`, { path });
          const ancestor = await fileAncestor(path, "list");
          if (ancestor !== undefined) throw new FsError("FS_NOT_DIRECTORY", `not a directory: ${ancestor}`, { path });
          throw new FsError("FS_NOT_FOUND", `not found: ${path}`, { path });
        }
        first = false;
        for (const { key, size } of page.objects) {
          if (key.startsWith(keyPrefix)) addObject(walk, key.slice(keyPrefix.length), size);
        }
        for (const common of page.prefixes) {
          if (common.startsWith(keyPrefix)) addPrefix(walk, common.slice(keyPrefix.length, -1));
        }
        const lastKey = page.objects.at(-1)?.key;
        const lastPrefix = page.prefixes.at(-1);
        const pageHigh = [lastKey, lastPrefix]
          .filter((k): k is string => k !== undefined && k.startsWith(keyPrefix))
          .map((k) => k.slice(keyPrefix.length))
          .sort(compareCodePoints)
          .at(-1);
        if (pageHigh !== undefined) highWater = pageHigh;
        if (!page.isTruncated || canStop(walk, limit, highWater)) break;
        token = page.nextContinuationToken as string;
        if (seenTokens.has(token)) {
          throw new FsError("FS_IO_ERROR", `s3 list ${path} at ${client.where}: the server repeated a continuation token`, { path });
        }
        seenTokens.add(token);
      }
      return finishWalk(walk, limit);
    },

    async delete(path: string, options?: { ifVersion?: Version }): Promise<void> {
      if (path === "") throw isDirectoryError(path);
      const ifVersion = options?.ifVersion;
      const existing = await head(path, "delete");
      if (!existing) {
        const why = await whyMissing(path, "delete");
        if (why) throw why;
        if (ifVersion !== undefined) throw new FsError("FS_STALE_VERSION", `version mismatch: ${path}`, { path });
        throw new FsError("FS_NOT_FOUND", `not found: ${path}`, { path });
      }
      if (ifVersion !== undefined && versionOf(existing, "delete", path) !== ifVersion) {
        throw new FsError("FS_STALE_VERSION", `version mismatch: ${path}`, { path });
      }
      const response = await client.send({
        method: "DELETE",
        key: keyOf(path),
        headers: ifVersion !== undefined ? { "if-match": ifVersion } : {},
        retry: ifVersion === undefined,
      });
      if (ifVersion !== undefined && (conditionFailed(response.status) || response.status === 404)) {
        await drain(response);
        throw new FsError("FS_STALE_VERSION", `version mismatch: ${path}`, { path });
      }
      if (!isOk(response.status)) throw await client.failure(response, "delete", path);
      await drain(response);
    },
  };
}
