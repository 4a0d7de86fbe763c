/**
 * The S3 provider's `list`: ListObjectsV2 pages folded into a sorted
 * listing (see ./list-walk.ts), stopping as soon as `limit` is settled.
 */
import { FsError } from "../errors.ts";
import { checkListOptions, listDepth } from "../listing.ts";
import type { ListOptions, ListResult } from "../types.ts";
import { addObject, addPrefix, canStop, compareCodePoints, finishWalk, startWalk } from "./list-walk.ts";
import type { S3Objects } from "./objects.ts";

/** List the directory at `path`, reading pages of up to `pageSize` keys. */
export async function listS3(objects: S3Objects, path: string, options: ListOptions | undefined, pageSize: number): Promise<ListResult> {
  checkListOptions(options);
  const { client } = objects;
  const limit = options?.limit;
  const maxDepth = listDepth(options);
  const keyPrefix = objects.dirKey(path);
  const walk = startWalk(path, maxDepth);
  // Rolling up one level per common prefix keeps a plain listing from reading whole subtrees.
  const delimiter = maxDepth === 1;
  const maxKeys = limit === undefined ? pageSize : Math.min(pageSize, limit + 1);
  let token: string | undefined;
  let highWater: string | undefined;
  let first = true;
  const seenTokens = new Set<string>();
  for (;;) {
    const page = await objects.listPage(keyPrefix, path, { delimiter, maxKeys, token });
    if (first && path !== "" && page.objects.length === 0 && page.prefixes.length === 0) throw await notListable(objects, path);
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
      .filter((k): k is string => k?.startsWith(keyPrefix) === true)
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
}

/** Why a path with no keys below it cannot be listed: it is a file, lies below one, or is missing. */
async function notListable(objects: S3Objects, path: string): Promise<FsError> {
  if (await objects.head(path, "list")) return new FsError("FS_NOT_DIRECTORY", `not a directory: ${path}`, { path });
  const ancestor = await objects.fileAncestor(path, "list");
  if (ancestor !== undefined) return new FsError("FS_NOT_DIRECTORY", `not a directory: ${ancestor}`, { path });
  return new FsError("FS_NOT_FOUND", `not found: ${path}`, { path });
}
