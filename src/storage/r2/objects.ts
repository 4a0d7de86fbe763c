/**
 * Path-level look-ups of the R2 provider on one workspace (a key prefix) of
 * one bucket: a path's key, whether it is a directory or lies below a file,
 * the object opened for a read, and the refusals those answers word. The
 * provider, its writes (./put.ts) and its listing are built on these.
 *
 * No `node:` imports: this runs inside workerd.
 */
import { FsError } from "../errors.ts";
import { ancestorPaths } from "../path.ts";
import type { R2BucketLike, R2ObjectBodyLike } from "./bucket.ts";

/** R2's longest object key, in UTF-8 bytes. */
export const R2_MAX_KEY_BYTES = 1024;

/** One workspace of one bucket: the keys under `keyPrefix` ("ws1/", or "" for the whole bucket). */
export interface R2Workspace {
  readonly bucket: R2BucketLike;
  readonly keyPrefix: string;
}

const encoder = new TextEncoder();

/** The key of `path`; FS_INVALID_PATH past R2's key limit. */
export function keyOf(ws: R2Workspace, path: string): string {
  const key = ws.keyPrefix + path;
  if (encoder.encode(key).length > R2_MAX_KEY_BYTES) {
    throw new FsError("FS_INVALID_PATH", `invalid path: longer than R2's ${R2_MAX_KEY_BYTES}-byte key limit`, { path });
  }
  return key;
}

/** Any key below `path/` (the root always counts as a directory). */
export async function isDirectory(ws: R2Workspace, path: string): Promise<boolean> {
  if (path === "") return true;
  const page = await ws.bucket.list({ prefix: `${ws.keyPrefix}${path}/`, limit: 1 });
  return page.objects.length > 0 || page.delimitedPrefixes.length > 0;
}

/** An ancestor of `path` that is a file, if one is (one `head` per ancestor, in parallel). */
export async function fileAncestor(ws: R2Workspace, path: string): Promise<string | undefined> {
  const dirs = ancestorPaths(path);
  const found = await Promise.all(dirs.map((dir) => ws.bucket.head(ws.keyPrefix + dir)));
  const index = found.findIndex((object) => object !== null);
  return index === -1 ? undefined : dirs[index];
}

export function notDirectory(dir: string, path: string): FsError {
  return new FsError("FS_NOT_DIRECTORY", `not a directory: ${dir}`, { path });
}

/** Why nothing is stored at `path`: below a file, or simply missing. */
export async function missing(ws: R2Workspace, path: string): Promise<FsError> {
  const dir = await fileAncestor(ws, path);
  if (dir !== undefined) return notDirectory(dir, path);
  return new FsError("FS_NOT_FOUND", `not found: ${path}`, { path });
}

/** Refuse a write or delete target that is a directory or lies below a file. */
export async function assertFileSlot(ws: R2Workspace, path: string): Promise<void> {
  const [directory, dir] = await Promise.all([isDirectory(ws, path), fileAncestor(ws, path)]);
  if (directory) throw new FsError("FS_IS_DIRECTORY", `is a directory: ${path}`, { path });
  if (dir !== undefined) throw notDirectory(dir, path);
}

/** Rethrow a failure of an R2 call: an FsError as it is, anything else as FS_IO_ERROR. */
export function io(error: unknown, what: string, path: string): never {
  if (error instanceof FsError) throw error;
  const why = error instanceof Error ? error.message : String(error);
  throw new FsError("FS_IO_ERROR", `R2 ${what} failed: ${why}`, { path, cause: error });
}

/** The object at `path` with its body unread, or the refusal a read of it gets. */
export async function openObject(ws: R2Workspace, path: string): Promise<R2ObjectBodyLike> {
  if (path === "") throw new FsError("FS_IS_DIRECTORY", "is a directory: (the workspace root)", { path });
  const key = keyOf(ws, path);
  try {
    const object = await ws.bucket.get(key);
    if (object) return object;
    if (await isDirectory(ws, path)) throw new FsError("FS_IS_DIRECTORY", `is a directory: ${path}`, { path });
    throw await missing(ws, path);
  } catch (error) {
    io(error, "read", path);
  }
}
