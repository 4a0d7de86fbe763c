/**
 * The storage seam, runtime-neutral part: types, errors, path rules, the
 * guard and the in-memory provider. Safe to import on Cloudflare Workers.
 *
 * The local-disk provider is NOT re-exported here because it imports
 * node:fs; entries that run on Bun or Deno import it from `./local/mod.ts`.
 */
export * from "./types.ts";
export * from "./errors.ts";
export { normalizeWorkspacePath, parentPath, baseName, childPath, MAX_PATH_BYTES, MAX_SEGMENT_BYTES } from "./path.ts";
export { guardStorage } from "./guard.ts";
export { createMemoryStorage } from "./memory.ts";
export { createKeyedLock, type KeyedLock } from "./lock.ts";
export { contentVersion } from "./version.ts";
export { isInside } from "./containment.ts";
export { checkListOptions, compareCodeUnits, finishListing, listDepth } from "./listing.ts";
export { createS3Storage, s3ConfigFromEnv, type S3Config, type S3Storage } from "./s3/mod.ts";
