/**
 * Observation state in Redis or Valkey, shared by every `toolwarden serve`
 * process that points at the same server, so a `view` answered by one
 * instance counts for a `write` answered by another (as the Durable Object
 * store does for Worker isolates).
 *
 * Layout, under a key prefix (default `toolwarden:`):
 *   o:<session>  hash   path -> observation ("a" absent, "p<version>" present)
 *   r:<session>  zset   path -> when it was last recorded (server clock, ms;
 *                       one more than the newest within the same millisecond)
 *   s:<share>    zset   session -> when it was last used (the same clock)
 * Every change is one Lua script, so a bound is applied atomically with the
 * change it bounds, whatever other instance runs at the same time.
 *
 * Bounds (forgetting only ever costs the model one extra `view`):
 * - each session keeps at most `maxPathsPerSession` paths, the least recently
 *   recorded are forgotten first;
 * - a session untouched (no get or set) for `idleSeconds` expires (Redis
 *   key expiry);
 * - each share (see {@link RedisObservationOptions.shareOf}) keeps at most
 *   `maxSessionsPerShare` sessions; opening one more forgets the least
 *   recently used, so one token cannot fill the server with sessions.
 *
 * The scripts touch keys they compute (the sessions a share evicts), which
 * standalone Redis/Valkey allows and Redis Cluster does not: use one node
 * (with replicas if wanted).
 */
import { CodedError } from "../errors.ts";
import type { Observation, ObservationStore } from "./types.ts";

/** The one call this store makes; node-redis' `eval` fits it (see src/cli/observations.ts). */
export interface RedisScripting {
  eval(script: string, keys: readonly string[], args: readonly string[]): Promise<unknown>;
}

/** Options of {@link createRedisObservationStore}. */
export interface RedisObservationOptions {
  /** Key prefix; default `toolwarden:`. */
  readonly prefix?: string;
  /** Default 10 000. */
  readonly maxPathsPerSession?: number;
  /** Default one day. */
  readonly idleSeconds?: number;
  /** Default 1 000. */
  readonly maxSessionsPerShare?: number;
  /**
   * Which share a session key counts against. Default: its first segment,
   * the workspace (session keys start with the encoded workspace, and a
   * token reaches one workspace); a key that names its principal can be
   * shared per token instead.
   */
  readonly shareOf?: (session: string) => string;
  /** Names the server in error messages (no password). */
  readonly where?: string;
}

export const DEFAULT_REDIS_PREFIX = "toolwarden:";
export const DEFAULT_REDIS_MAX_PATHS = 10_000;
export const DEFAULT_REDIS_IDLE_SECONDS = 24 * 60 * 60;
export const DEFAULT_REDIS_MAX_SESSIONS_PER_SHARE = 1_000;

// KEYS: o:<session>, r:<session>, s:<share>. ARGV: path, value, maxPaths, idleMs, session, maxSessions, prefix.
const SET_SCRIPT = `
local t = redis.call('TIME')
local clock = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
-- A score later than every score in the set: the server's clock, or one more than the newest (same millisecond).
local function stamp(key)
  local top = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if top[2] and tonumber(top[2]) >= clock then return tonumber(top[2]) + 1 end
  return clock
end
local maxPaths = tonumber(ARGV[3])
local idle = tonumber(ARGV[4])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], stamp(KEYS[2]), ARGV[1])
local n = redis.call('ZCARD', KEYS[2])
if n > maxPaths then
  local old = redis.call('ZPOPMIN', KEYS[2], n - maxPaths)
  for i = 1, #old, 2 do redis.call('HDEL', KEYS[1], old[i]) end
end
redis.call('PEXPIRE', KEYS[1], idle)
redis.call('PEXPIRE', KEYS[2], idle)
redis.call('ZADD', KEYS[3], stamp(KEYS[3]), ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', clock - idle)
local m = redis.call('ZCARD', KEYS[3])
local maxSessions = tonumber(ARGV[6])
if m > maxSessions then
  local gone = redis.call('ZPOPMIN', KEYS[3], m - maxSessions)
  for i = 1, #gone, 2 do redis.call('DEL', ARGV[7] .. 'o:' .. gone[i], ARGV[7] .. 'r:' .. gone[i]) end
end
redis.call('PEXPIRE', KEYS[3], idle)
return 1
`;

// KEYS: o:<session>, r:<session>, s:<share>. ARGV: path, idleMs, session. A read keeps the session alive.
const GET_SCRIPT = `
local v = redis.call('HGET', KEYS[1], ARGV[1])
if redis.call('PEXPIRE', KEYS[1], ARGV[2]) == 1 then
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
  if redis.call('ZSCORE', KEYS[3], ARGV[3]) then
    local t = redis.call('TIME')
    local clock = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
    local top = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')
    if top[2] and tonumber(top[2]) >= clock then clock = tonumber(top[2]) + 1 end
    redis.call('ZADD', KEYS[3], clock, ARGV[3])
  end
end
return v
`;

// KEYS: o:<session>, r:<session>. ARGV: path.
const FORGET_SCRIPT = `
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`;

function encode(observation: Observation): string {
  return observation.kind === "absent" ? "a" : `p${observation.version}`;
}

function decode(value: unknown): Observation | undefined {
  if (typeof value !== "string") return undefined;
  if (value === "a") return { kind: "absent" };
  if (value.length > 1 && value[0] === "p") return { kind: "present", version: value.slice(1) };
  return undefined;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`redis observations: ${name} must be a positive integer`);
  return value;
}

/** An {@link ObservationStore} over a Redis/Valkey connection. */
export function createRedisObservationStore(redis: RedisScripting, options: RedisObservationOptions = {}): ObservationStore {
  const prefix = options.prefix ?? DEFAULT_REDIS_PREFIX;
  const maxPaths = String(positive(options.maxPathsPerSession, DEFAULT_REDIS_MAX_PATHS, "maxPathsPerSession"));
  const idleMs = String(positive(options.idleSeconds, DEFAULT_REDIS_IDLE_SECONDS, "idleSeconds") * 1000);
  const maxSessions = String(positive(options.maxSessionsPerShare, DEFAULT_REDIS_MAX_SESSIONS_PER_SHARE, "maxSessionsPerShare"));
  const shareOf = options.shareOf ?? ((session: string) => session.split("/", 1)[0]);
  const where = options.where ?? "redis";
  const keys = (session: string) => [`${prefix}o:${session}`, `${prefix}r:${session}`, `${prefix}s:${shareOf(session)}`];

  /** A failed round trip as FS_IO_ERROR: the call fails loudly rather than acting on state it could not read. */
  async function run(script: string, keyList: string[], args: string[]): Promise<unknown> {
    try {
      return await redis.eval(script, keyList, args);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new CodedError(
        "FS_IO_ERROR",
        `The observation store (${where}) did not answer (${reason}), so what this session viewed is unknown. Retry the call in a few seconds.`,
        { cause: error },
      );
    }
  }

  return {
    async get(session, path) {
      return decode(await run(GET_SCRIPT, keys(session), [path, idleMs, session]));
    },
    async set(session, path, observation) {
      await run(SET_SCRIPT, keys(session), [path, encode(observation), maxPaths, idleMs, session, maxSessions, prefix]);
    },
    async forget(session, path) {
      await run(FORGET_SCRIPT, keys(session).slice(0, 2), [path]);
    },
  };
}
