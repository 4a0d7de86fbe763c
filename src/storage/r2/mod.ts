/**
 * The R2 provider's public surface: a Worker's R2 binding as {@link Storage},
 * and the start-up probe that proves the bucket enforces conditional puts.
 * No `node:` imports, so it is safe to re-export from the runtime-neutral
 * storage module.
 */
export { createR2Storage, type R2StorageOptions } from "./provider.ts";
export { R2_MAX_KEY_BYTES } from "./objects.ts";
export type { R2BucketLike, R2ConditionalLike, R2ListOptionsLike, R2ObjectBodyLike, R2ObjectLike, R2ObjectsLike } from "./bucket.ts";
export { probeR2Conditions, R2ConditionsIgnoredError } from "./probe.ts";
