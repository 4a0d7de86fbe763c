/**
 * Object-level requests of the S3 provider: HEAD, GET and PUT of one key,
 * one ListObjectsV2 page, and the look-ups that tell a directory (keys below
 * `path/`) or a file ancestor from a missing object. The provider, the
 * conditional write and the listing are built from these.
 */
import { FsError } from "../errors.ts";
import type { Version } from "../types.ts";
import type { S3Client } from "./client.ts";
import { ancestorPaths } from "../path.ts";
import { versionFromEtag } from "./keys.ts";
import { drain, isOk } from "./response.ts";
import { type ListPage, parseListObjectsV2, XmlError } from "./xml.ts";

/** At most this many ancestor HEADs are in flight for one write. */
const ANCESTOR_CONCURRENCY = 8;

const decoder = new TextDecoder();

/** The requests on one workspace (a key prefix) of one bucket. */
export interface S3Objects {
  readonly client: S3Client;
  /** The key of a workspace path. */
  keyOf(path: string): string;
  /** The key prefix of everything below a directory ("" is the workspace root). */
  dirKey(path: string): string;
  /** HEAD a key: its response when it exists, null when it does not. */
  head(path: string, operation: string): Promise<Response | null>;
  /** One ListObjectsV2 page below `keyPrefix`. */
  listPage(keyPrefix: string, path: string, options: { delimiter?: boolean; maxKeys: number; token?: string }): Promise<ListPage>;
  /** True when some key lies below `path/`. */
  hasChildren(path: string): Promise<boolean>;
  /** The outermost ancestor of `path` that is a file, if any. */
  fileAncestor(path: string, operation: string): Promise<string | undefined>;
  /** Why `path` is not a file when its object is missing (undefined: simply absent). */
  whyMissing(path: string, operation: string): Promise<FsError | undefined>;
  /** The version (unquoted ETag) a response carries; FS_IO_ERROR without one. */
  versionOf(response: Response, operation: string, path: string): Version;
  /** GET the object: the response, body unread, with its version; or the refusal a read gets. */
  getObject(path: string): Promise<{ response: Response; version: Version }>;
  /** PUT bytes at `path` with extra headers. */
  put(path: string, bytes: Uint8Array, headers: Record<string, string>, retry: boolean): Promise<Response>;
}

export function isDirectoryError(path: string): FsError {
  return new FsError("FS_IS_DIRECTORY", `is a directory: ${path}`, { path });
}

export function createS3Objects(client: S3Client, prefix: string): S3Objects {
  const keyOf = (path: string) => prefix + path;
  const dirKey = (path: string) => (path === "" ? prefix : `${prefix}${path}/`);

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

  async function listPage(keyPrefix: string, path: string, options: { delimiter?: boolean; maxKeys: number; token?: string }): Promise<ListPage> {
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

  async function hasChildren(path: string): Promise<boolean> {
    const page = await listPage(dirKey(path), path, { maxKeys: 1 });
    return page.objects.length > 0 || page.prefixes.length > 0;
  }

  /** HEADs in bounded parallel batches, outermost first. */
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

  /** A directory (FS_IS_DIRECTORY), below a file (FS_NOT_DIRECTORY), or undefined: the caller picks the code. */
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

  /** The refusals are FS_IS_DIRECTORY, FS_NOT_DIRECTORY, FS_NOT_FOUND, or the server's failure. */
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

  function put(path: string, bytes: Uint8Array, headers: Record<string, string>, retry: boolean): Promise<Response> {
    return client.send({ method: "PUT", key: keyOf(path), body: bytes, headers, retry });
  }

  return { client, keyOf, dirKey, head, listPage, hasChildren, fileAncestor, whyMissing, versionOf, getObject, put };
}
