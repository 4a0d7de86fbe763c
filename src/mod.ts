/**
 * toolwarden's runtime-neutral library surface: everything here runs on Bun,
 * Deno and Cloudflare Workers (no `node:` imports). The local-disk provider
 * lives in `./storage/local.ts` and the shell tool in `./tools/bash/run.ts`,
 * which need `node:` APIs and are imported directly by local entries.
 */
export * from "./errors.ts";
export * from "./result.ts";
export * from "./storage/mod.ts";
export * from "./hash/mod.ts";
export type { Observation, ObservationStore } from "./policy/types.ts";
export { createMemoryObservationStore, type MemoryObservationOptions } from "./policy/memory.ts";
export { createRedisObservationStore, type RedisObservationOptions, type RedisScripting } from "./policy/redis.ts";
export { DEFAULT_OBSERVATION_BYTES_PER_TOKEN, observationBytes, ownedSessionKey, sessionOwner } from "./policy/share.ts";
export * from "./tools/mod.ts";
export { DEFAULT_LIMITS, type ToolAnnotations, type ToolCaller, type ToolContext, type ToolDef, type ToolLimits } from "./tools/types.ts";
export * from "./pipeline/mod.ts";
export { loadRules, evaluate, RuleConfigError, LoudFailureConfigSchema, type LoudFailureConfig, type RuleInput } from "./rules/mod.ts";
export { createApp, type AppOptions } from "./http/mod.ts";
