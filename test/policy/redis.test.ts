/**
 * The Redis observation store against a real redis-server (started here on
 * a free loopback port; .ci/run installs the package when it is missing).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "redis";
import { createRedisObservationStore, type RedisScripting } from "../../src/policy/redis.ts";
import { redisServerAvailable, startRedisServer, type RedisServer } from "../helpers/redis-server.ts";

if (!redisServerAvailable()) {
  console.log("Redis observation tests skipped: redis-server is not installed (.ci/run installs it)");
} else {
  let server: RedisServer;
  let client: ReturnType<typeof createClient>;
  let scripting: RedisScripting;
  let n = 0;
  /** A fresh key prefix per test, so tests never see each other's sessions. */
  const prefix = () => `t${++n}:`;

  beforeAll(async () => {
    server = await startRedisServer();
    client = createClient({ url: server.url });
    await client.connect();
    scripting = { eval: (script, keys, args) => client.eval(script, { keys: [...keys], arguments: [...args] }) as Promise<unknown> };
  });

  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  describe("redis observation store", () => {
    test("keeps observations per session and path; a later one replaces; forget makes a path unseen", async () => {
      const store = createRedisObservationStore(scripting, { prefix: prefix() });
      await store.set("ws/rest/s1", "a.txt", { kind: "present", version: "v1" });
      await store.set("ws/rest/s2", "a.txt", { kind: "absent" });
      expect(await store.get("ws/rest/s1", "a.txt")).toEqual({ kind: "present", version: "v1" });
      expect(await store.get("ws/rest/s2", "a.txt")).toEqual({ kind: "absent" });
      expect(await store.get("ws/rest/s1", "b.txt")).toBeUndefined();
      expect(await store.get("ws/rest/s3", "a.txt")).toBeUndefined();
      await store.set("ws/rest/s1", "a.txt", { kind: "present", version: "v2" });
      expect(await store.get("ws/rest/s1", "a.txt")).toEqual({ kind: "present", version: "v2" });
      await store.forget("ws/rest/s1", "a.txt");
      expect(await store.get("ws/rest/s1", "a.txt")).toBeUndefined();
    });

    test("two stores on one server (two instances) see each other's observations", async () => {
      const p = prefix();
      const one = createRedisObservationStore(scripting, { prefix: p });
      const other = createRedisObservationStore(scripting, { prefix: p });
      await one.set("ws/token/t_1", "src/a.ts", { kind: "present", version: "\"etag-1\"" });
      expect(await other.get("ws/token/t_1", "src/a.ts")).toEqual({ kind: "present", version: "\"etag-1\"" });
    });

    test("a session keeps at most maxPathsPerSession paths, forgetting the least recently recorded", async () => {
      const store = createRedisObservationStore(scripting, { prefix: prefix(), maxPathsPerSession: 2 });
      await store.set("ws/rest/s", "a", { kind: "absent" });
      await store.set("ws/rest/s", "b", { kind: "absent" });
      await store.set("ws/rest/s", "a", { kind: "absent" }); // a recorded again: b is now the oldest
      await store.set("ws/rest/s", "c", { kind: "absent" });
      expect(await store.get("ws/rest/s", "b")).toBeUndefined();
      expect(await store.get("ws/rest/s", "a")).toEqual({ kind: "absent" });
      expect(await store.get("ws/rest/s", "c")).toEqual({ kind: "absent" });
    });

    test("a share keeps at most maxSessionsPerShare sessions; another share is not touched", async () => {
      const store = createRedisObservationStore(scripting, { prefix: prefix(), maxSessionsPerShare: 2 });
      for (const id of ["s1", "s2", "s3"]) await store.set(`ws1/rest/${id}`, "a", { kind: "absent" });
      await store.set("ws2/rest/s1", "a", { kind: "absent" });
      expect(await store.get("ws1/rest/s1", "a")).toBeUndefined();
      expect(await store.get("ws1/rest/s2", "a")).toEqual({ kind: "absent" });
      expect(await store.get("ws1/rest/s3", "a")).toEqual({ kind: "absent" });
      expect(await store.get("ws2/rest/s1", "a")).toEqual({ kind: "absent" });
    });

    test("shareOf decides what a session counts against", async () => {
      const store = createRedisObservationStore(scripting, {
        prefix: prefix(),
        maxSessionsPerShare: 1,
        shareOf: (session) => session.split("/")[2],
      });
      await store.set("ws/rest/tokenA", "a", { kind: "absent" });
      await store.set("ws/rest/tokenB", "a", { kind: "absent" });
      expect(await store.get("ws/rest/tokenA", "a")).toEqual({ kind: "absent" });
      expect(await store.get("ws/rest/tokenB", "a")).toEqual({ kind: "absent" });
    });

    test("every key of a session carries the idle expiry, renewed by a read", async () => {
      const p = prefix();
      const store = createRedisObservationStore(scripting, { prefix: p, idleSeconds: 600 });
      await store.set("ws/rest/s", "a", { kind: "absent" });
      const keys = [`${p}o:ws/rest/s`, `${p}r:ws/rest/s`, `${p}s:ws`];
      for (const key of keys) {
        const ttl = await client.pTTL(key);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(600_000);
      }
      await client.pExpire(keys[0], 5_000);
      await client.pExpire(keys[1], 5_000);
      await store.get("ws/rest/s", "a");
      expect(await client.pTTL(keys[0])).toBeGreaterThan(5_000);
      expect(await client.pTTL(keys[1])).toBeGreaterThan(5_000);
      // An expired session is gone: Redis removes the keys, and the store reads nothing.
      await client.del(keys[0]);
      expect(await store.get("ws/rest/s", "a")).toBeUndefined();
    });

    test("a server that does not answer fails the call with FS_IO_ERROR and a retry hint, never a silent miss", async () => {
      const store = createRedisObservationStore({ eval: () => Promise.reject(new Error("connection closed")) }, { where: "redis://127.0.0.1:1" });
      const failure = await store.get("ws/rest/s", "a").catch((error: unknown) => error);
      expect(failure).toMatchObject({ code: "FS_IO_ERROR" });
      expect((failure as Error).message).toContain("redis://127.0.0.1:1");
      expect((failure as Error).message).toContain("Retry");
    });
  });
}
