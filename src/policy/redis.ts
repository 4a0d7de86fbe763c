/**
 * Observation state in Redis or Valkey, shared by every `toolwarden serve`
 * process that points at the same server, so a `view` answered by one
 * instance counts for a `write` answered by another (as the Durable Object
 * store does for Worker isolates).
 *
 * It follows the bounded-share contract of ./share.ts: a session key starts
 * with its owner (the principal id), and each owner's observations are
 * bounded on their own, in bytes as `observationBytes` counts them, the
 * owner's least recently used forgotten first. Per owner, under a key prefix
 * (default `toolwarden:`):
 *   e:{owner}  hash    entry -> "<bytes>:<observation>" ("a" absent, "p<version>" present,
 *                      "s<json>" present with the lines seen of a partly seen version,
 *                      json {"v": version, "s": [[first, last], ...]})
 *   u:{owner}  zset    entry -> last use (server clock in ms; one more than the
 *                      newest within the same millisecond, so the order is exact)
 *   b:{owner}  string  the bytes the owner's entries count
 * where an entry is `<session length>:<session><path>` (injective). The
 * `{owner}` hash tag keeps an owner's keys in one Redis Cluster slot.
 *
 * Every change is one Lua script touching only that owner's three keys, so a
 * bound is applied atomically with the change it bounds, whichever instance
 * runs it. Idle expiry: an entry unused for `idleSeconds` reads as unseen
 * (and is removed), and all three keys carry that TTL, renewed on use, so an
 * idle owner's whole share expires. Forgetting only ever costs the model one
 * extra `view`, never a wrong write.
 */
import { CodedError } from "../errors.ts";
import { type HeldIds, isHeldIds } from "./held-ids.ts";
import { isOwnEdits } from "./own-edits.ts";
import { DEFAULT_OBSERVATION_BYTES_PER_TOKEN, observationBytes, sessionOwner } from "./share.ts";
import type { Observation, ObservationStore, OwnEdits } from "./types.ts";

/** The one call this store makes; node-redis' `eval` fits it (see src/cli/observations.ts). */
export interface RedisScripting {
  eval(script: string, keys: readonly string[], args: readonly string[]): Promise<unknown>;
}

/** Options of {@link createRedisObservationStore}. */
export interface RedisObservationOptions {
  /** Key prefix; default `toolwarden:`. */
  readonly prefix?: string;
  /** Bytes one owner's observations may hold. Default {@link DEFAULT_OBSERVATION_BYTES_PER_TOKEN}. */
  readonly maxBytesPerOwner?: number;
  /** An entry (and an owner's whole share) unused this long is forgotten. Default one day. */
  readonly idleSeconds?: number;
  /** Names the server in error messages (no password). */
  readonly where?: string;
}

export const DEFAULT_REDIS_PREFIX = "toolwarden:";
export const DEFAULT_REDIS_IDLE_SECONDS = 24 * 60 * 60;

// Shared by the scripts: the server clock in ms, and a use score later than every score in the set.
const CLOCK = `
local t = redis.call('TIME')
local clock = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function stamp()
  local top = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
  if top[2] and tonumber(top[2]) >= clock then return tonumber(top[2]) + 1 end
  return clock
end
local function sizeOf(stored) return tonumber(string.match(stored, '^(%d+):')) end
local function drop(entry)
  local stored = redis.call('HGET', KEYS[1], entry)
  if stored then
    redis.call('HDEL', KEYS[1], entry)
    redis.call('DECRBY', KEYS[3], sizeOf(stored))
  end
  redis.call('ZREM', KEYS[2], entry)
end
local function touch(idle)
  redis.call('PEXPIRE', KEYS[1], idle)
  redis.call('PEXPIRE', KEYS[2], idle)
  redis.call('PEXPIRE', KEYS[3], idle)
end
`;

// KEYS: e, u, b of the owner. ARGV: entry, "<bytes>:<observation>", bytes, maxBytes, idleMs.
const SET_SCRIPT = `${CLOCK}
drop(ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], stamp(), ARGV[1])
local total = redis.call('INCRBY', KEYS[3], tonumber(ARGV[3]))
-- The newest entry is kept even when it alone is over the share: it is what the next call needs.
while total > tonumber(ARGV[4]) and redis.call('ZCARD', KEYS[2]) > 1 do
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  drop(oldest)
  total = tonumber(redis.call('GET', KEYS[3]))
end
touch(tonumber(ARGV[5]))
return 1
`;

// KEYS: e, u, b. ARGV: entry, idleMs. A read renews the entry and the owner's TTL.
const GET_SCRIPT = `${CLOCK}
local idle = tonumber(ARGV[2])
local stored = redis.call('HGET', KEYS[1], ARGV[1])
if not stored then return false end
local used = tonumber(redis.call('ZSCORE', KEYS[2], ARGV[1]) or '0')
if used < clock - idle then
  drop(ARGV[1])
  return false
end
redis.call('ZADD', KEYS[2], stamp(), ARGV[1])
touch(idle)
return stored
`;

// KEYS: e, u, b. ARGV: entry.
const FORGET_SCRIPT = `${CLOCK}
drop(ARGV[1])
return 1
`;

function encode(observation: Observation): string {
  if (observation.kind === "absent") return "a";
  const extra = { ...(observation.own ? { o: observation.own } : {}), ...(observation.held ? { h: observation.held } : {}) };
  // The lines seen must survive the round trip: dropped, a whole-file write could replace unseen lines.
  if (observation.seen !== undefined) return `s${JSON.stringify({ v: observation.version, s: observation.seen, ...extra })}`;
  if (observation.own !== undefined || observation.held !== undefined) return `o${JSON.stringify({ v: observation.version, ...extra })}`;
  return `p${observation.version}`;
}

/** The optional records of a JSON form: kept only when well formed (dropping them only skips their checks). */
function extras(o: unknown, h: unknown): { own?: OwnEdits; held?: HeldIds } {
  return { ...(isOwnEdits(o) ? { own: o } : {}), ...(isHeldIds(h) && h.length > 0 ? { held: h } : {}) };
}

function decode(value: unknown): Observation | undefined {
  if (typeof value !== "string") return undefined;
  const text = value.slice(value.indexOf(":") + 1);
  if (text === "a") return { kind: "absent" };
  if (text.length > 1 && text[0] === "p") return { kind: "present", version: text.slice(1) };
  if (text[0] === "o") {
    try {
      const { v, o, h } = JSON.parse(text.slice(1)) as { v: unknown; o?: unknown; h?: unknown };
      if (typeof v === "string" && v !== "") return { kind: "present", version: v, ...extras(o, h) };
    } catch {
      return undefined;
    }
  }
  if (text[0] === "s") {
    try {
      const { v, s, o, h } = JSON.parse(text.slice(1)) as { v: unknown; s: unknown; o?: unknown; h?: unknown };
      const spans = Array.isArray(s) && s.every((x) => Array.isArray(x) && x.length === 2 && x.every(Number.isSafeInteger));
      // Anything malformed reads as unseen: one more view, never a write over unseen lines.
      if (typeof v === "string" && v !== "" && spans) return { kind: "present", version: v, seen: s as [number, number][], ...extras(o, h) };
    } catch {
      return undefined;
    }
  }
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
  const maxBytes = String(positive(options.maxBytesPerOwner, DEFAULT_OBSERVATION_BYTES_PER_TOKEN, "maxBytesPerOwner"));
  const idleMs = String(positive(options.idleSeconds, DEFAULT_REDIS_IDLE_SECONDS, "idleSeconds") * 1000);
  const where = options.where ?? "redis";
  const keysOf = (session: string) => {
    const owner = sessionOwner(session);
    return [`${prefix}e:{${owner}}`, `${prefix}u:{${owner}}`, `${prefix}b:{${owner}}`];
  };
  const entryOf = (session: string, path: string) => `${session.length}:${session}${path}`;

  /** A failed round trip is FS_IO_ERROR: the call fails loudly rather than acting on state it could not read. */
  async function run(script: string, session: string, args: string[]): Promise<unknown> {
    try {
      return await redis.eval(script, keysOf(session), args);
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
      return decode(await run(GET_SCRIPT, session, [entryOf(session, path), idleMs]));
    },
    async set(session, path, observation) {
      const bytes = observationBytes(session, path, observation);
      await run(SET_SCRIPT, session, [entryOf(session, path), `${bytes}:${encode(observation)}`, String(bytes), maxBytes, idleMs]);
    },
    async forget(session, path) {
      await run(FORGET_SCRIPT, session, [entryOf(session, path)]);
    },
  };
}
