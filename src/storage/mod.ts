/**
 * The storage seam, runtime-neutral part: types, errors, path rules, the
 * guard and the memory, R2 and S3 providers. Safe to import on Cloudflare Workers.
 *
 * The local-disk provider is NOT re-exported here because it imports
 * node:fs; entries that run on Bun or Deno import it from `./local.ts`.
 */
export * from "./types.ts";
export * from "./errors.ts";
export { normalizeWorkspacePath, parentPath, baseName, childPath, MAX_PATH_BYTES, MAX_SEGMENT_BYTES } from "./path.ts";
export { guardStorage } from "./guard.ts";
export { createMemoryStorage, type MemoryStorageOptions } from "./memory/mod.ts";
export { createKeyedLock, type KeyedLock } from "./lock.ts";
export { contentVersion } from "./version.ts";
export { isInside } from "./containment.ts";
export { checkListOptions, compareCodeUnits, finishListing, listDepth } from "./listing.ts";
export { connectS3Bucket, createS3Storage, s3ConfigFromEnv, s3ConfigFromSpec, type S3Bucket, type S3Config, type S3Storage } from "./s3/mod.ts";
export { formatStorageSpec, parseStorageSpec, STORAGE_KINDS, type StorageKind, type StorageSpec } from "./spec.ts";
export {
  NEUTRAL_PROVIDERS,
  openStorage,
  StorageOpenError,
  type OpenContext,
  type OpenedStorage,
  type StorageProvider,
  type StorageRegistry,
} from "./registry.ts";
export {
  createR2Storage,
  probeR2Conditions,
  R2ConditionsIgnoredError,
  R2_MAX_KEY_BYTES,
  type R2BucketLike,
  type R2StorageOptions,
} from "./r2/mod.ts";
