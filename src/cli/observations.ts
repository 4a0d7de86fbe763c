/**
 * The observation store `serve` uses: process memory (the default), or a
 * Redis/Valkey server shared by every instance (`--observations redis://…`),
 * connected through node-redis, which runs on Bun and on Deno. The client is
 * imported only when Redis is chosen: loading it costs a few hundred ms that
 * every other command (and a memory-only server) need not pay.
 */
import { createMemoryObservationStore } from "../policy/memory.ts";
import { createRedisObservationStore } from "../policy/redis.ts";
import type { ObservationStore } from "../policy/types.ts";
import { StartupError } from "./errors.ts";
import type { ObservationSettings } from "./settings.ts";

/** An opened store, and how to let go of it at shutdown. */
export interface OpenedObservations {
  readonly store: ObservationStore;
  /** "memory", or the Redis URL without its password, for the banner. */
  readonly describe: string;
  /** True when every instance sharing the store sees the same observations (MCP then runs stateless). */
  readonly shared: boolean;
  close(): Promise<void>;
}

/** How long start-up waits for the first connection. */
const CONNECT_TIMEOUT_MS = 5_000;

/** The URL without user info (a password must not reach the banner or a log). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    return parsed.href.replace(/\/$/, "");
  } catch {
    return "redis (unparsable URL)";
  }
}

/** Each token's share (src/policy/share.ts), the same whichever store holds it. */
export interface ShareLimits {
  readonly maxBytesPerOwner: number;
  /** Memory only: owners remembered (Redis lets an idle owner's share expire instead). */
  readonly maxOwners: number;
}

/** Open the store the settings name; a Redis server that cannot be reached stops start-up with one line. */
export async function openObservations(settings: ObservationSettings, log: (line: string) => void, shares: ShareLimits): Promise<OpenedObservations> {
  if (settings.kind === "memory") {
    const store = createMemoryObservationStore({ maxBytesPerOwner: shares.maxBytesPerOwner, maxOwners: shares.maxOwners });
    return { store, describe: "memory (this process only)", shared: false, close: () => Promise.resolve() };
  }
  const where = redactUrl(settings.url);
  let connected = false;
  const { createClient } = await import("redis");
  const client = createClient({
    url: settings.url,
    // Commands fail at once while the connection is down (the call then says so) instead of waiting in a queue.
    disableOfflineQueue: true,
    socket: {
      connectTimeout: CONNECT_TIMEOUT_MS,
      // At start-up, the first failure is the answer; later, reconnect with a growing pause.
      reconnectStrategy: (retries: number, cause: Error) => (connected ? Math.min(50 * 2 ** retries, 2_000) : cause),
    },
  });
  let lastLogged = "";
  client.on("error", (error: unknown) => {
    if (!connected) return;
    const text = error instanceof Error ? error.message : String(error);
    // One line per distinct trouble, not one per reconnect attempt.
    if (text !== lastLogged) log(`toolwarden: observation store ${where}: ${text}\n`);
    lastLogged = text;
  });
  client.on("ready", () => {
    lastLogged = "";
  });
  try {
    await client.connect();
  } catch (error) {
    const reason = error instanceof Error ? error.message || error.name : String(error);
    throw new StartupError(`observations ${where}: cannot connect (${reason.replace(/\s*\n\s*/g, " ")})`, 1);
  }
  connected = true;
  const store = createRedisObservationStore(
    { eval: (script, keys, args) => client.eval(script, { keys: [...keys], arguments: [...args] }) as Promise<unknown> },
    { where, maxBytesPerOwner: shares.maxBytesPerOwner, ...(settings.idleSeconds !== undefined ? { idleSeconds: settings.idleSeconds } : {}) },
  );
  return {
    store,
    describe: where,
    shared: true,
    async close() {
      connected = false;
      await client.close().catch(() => undefined);
    },
  };
}
