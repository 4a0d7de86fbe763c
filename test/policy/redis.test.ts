/**
 * The Redis observation store against a real redis-server (started here on
 * a free loopback port; .ci/run installs the package when it is missing).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createClient } from "redis";
import { createRedisObservationStore, type RedisScripting } from "../../src/policy/redis.ts";
import { observationBytes } from "../../src/policy/share.ts";
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

    test("keeps the lines seen of a partly seen version (a whole-file write needs them all)", async () => {
      const store = createRedisObservationStore(scripting, { prefix: prefix() });
      await store.set("ws/rest/s1", "a.txt", {
        kind: "present",
        version: 'v:1 "x"',
        seen: [
          [1, 3],
          [40, 41],
        ],
      });
      expect(await store.get("ws/rest/s1", "a.txt")).toEqual({
        kind: "present",
        version: 'v:1 "x"',
        seen: [
          [1, 3],
          [40, 41],
        ],
      });
      await store.set("ws/rest/s1", "a.txt", { kind: "present", version: "v2" });
      expect(await store.get("ws/rest/s1", "a.txt")).toEqual({ kind: "present", version: "v2" });
    });

    test("keeps where the session's own edits moved its viewed lines (another instance's batch_edit needs it)", async () => {
      const store = createRedisObservationStore(scripting, { prefix: prefix() });
      const own = { kept: [[1, 2, 1] as const, [3, 90, 6] as const], shown: [[1, 5] as const] };
      await store.set("ws/rest/s1", "a.txt", { kind: "present", version: "v1", own });
      expect(await store.get("ws/rest/s1", "a.txt")).toEqual({ kind: "present", version: "v1", own });
      await store.set("ws/rest/s1", "b.txt", { kind: "present", version: "v1", seen: [[2, 3]], own });
      expect(await store.get("ws/rest/s1", "b.txt")).toEqual({ kind: "present", version: "v1", seen: [[2, 3]], own });
      // Kept loose after another writer's change: read back loose, or the doubt would be taken for exact moves.
      const loose = { ...own, loose: true as const };
      await store.set("ws/rest/s1", "c.txt", { kind: "present", version: "v2", seen: [[2, 3]], own: loose });
      expect(await store.get("ws/rest/s1", "c.txt")).toEqual({ kind: "present", version: "v2", seen: [[2, 3]], own: loose });
      await store.set("ws/rest/s1", "a.txt", { kind: "present", version: "v2" });
      expect(await store.get("ws/rest/s1", "a.txt")).toEqual({ kind: "present", version: "v2" });
    });

    test("keeps the line ids the session holds, with or without seen spans and moves; a malformed record reads without them", async () => {
      const store = createRedisObservationStore(scripting, { prefix: prefix() });
      const held = [
        [1, "0a0b"],
        [7, "ff"],
      ] as const;
      const own = { kept: [[1, 2, 1] as const, [3, 90, 6] as const], shown: [[1, 5] as const] };
      await store.set("ws/rest/s1", "a.txt", { kind: "present", version: "v1", held });
      expect(await store.get("ws/rest/s1", "a.txt")).toEqual({ kind: "present", version: "v1", held });
      await store.set("ws/rest/s1", "b.txt", { kind: "present", version: "v1", seen: [[2, 3]], own, held });
      expect(await store.get("ws/rest/s1", "b.txt")).toEqual({ kind: "present", version: "v1", seen: [[2, 3]], own, held });
      // Overlapping runs are not a record this code writes: dropped, so only the checks they enable are skipped.
      await store.set("ws/rest/s1", "c.txt", {
        kind: "present",
        version: "v1",
        held: [
          [3, "0a0b"],
          [4, "0c"],
        ],
      });
      expect(await store.get("ws/rest/s1", "c.txt")).toEqual({ kind: "present", version: "v1" });
    });

    test("two stores on one server (two instances) see each other's observations", async () => {
      const p = prefix();
      const one = createRedisObservationStore(scripting, { prefix: p });
      const other = createRedisObservationStore(scripting, { prefix: p });
      await one.set("ws/token/t_1", "src/a.ts", { kind: "present", version: '"etag-1"' });
      expect(await other.get("ws/token/t_1", "src/a.ts")).toEqual({ kind: "present", version: '"etag-1"' });
    });

    test("bounded in bytes per owner: the owner's least recently used observations are forgotten first", async () => {
      const entry = observationBytes("o/s", "a", { kind: "absent" });
      const store = createRedisObservationStore(scripting, { prefix: prefix(), maxBytesPerOwner: 2 * entry });
      await store.set("o/s", "a", { kind: "absent" });
      await store.set("o/s", "b", { kind: "absent" });
      await store.get("o/s", "a"); // a used again: b is now the oldest
      await store.set("o/s", "c", { kind: "absent" });
      expect(await store.get("o/s", "b")).toBeUndefined();
      expect(await store.get("o/s", "a")).toEqual({ kind: "absent" });
      expect(await store.get("o/s", "c")).toEqual({ kind: "absent" });
      // Another session of the same owner shares the budget.
      await store.set("o/t", "x", { kind: "absent" });
      expect(await store.get("o/s", "a")).toBeUndefined();
    });

    test("one owner's flood never forgets another owner's observations; the byte counter stays within the share", async () => {
      const p = prefix();
      const share = 16 * 1024;
      const store = createRedisObservationStore(scripting, { prefix: p, maxBytesPerOwner: share });
      await store.set("victim/s", "notes.txt", { kind: "present", version: "v1" });
      const longPath = "d/".repeat(200);
      for (let i = 0; i < 500; i++) await store.set(`flooder/${i}`, `${longPath}${i}`, { kind: "absent" });
      expect(await store.get("victim/s", "notes.txt")).toEqual({ kind: "present", version: "v1" });
      expect(await store.get("flooder/499", `${longPath}499`)).toEqual({ kind: "absent" });
      expect(await store.get("flooder/0", `${longPath}0`)).toBeUndefined();
      expect(Number(await client.get(`${p}b:{flooder}`))).toBeLessThanOrEqual(share);
      expect(await client.hLen(`${p}e:{flooder}`)).toBe(await client.zCard(`${p}u:{flooder}`));
    });

    test("an entry larger than the whole share is kept until the next one; forget releases the bytes", async () => {
      const p = prefix();
      const store = createRedisObservationStore(scripting, { prefix: p, maxBytesPerOwner: 10 });
      await store.set("o/s", "a", { kind: "absent" });
      expect(await store.get("o/s", "a")).toEqual({ kind: "absent" });
      await store.set("o/s", "b", { kind: "absent" });
      expect(await store.get("o/s", "a")).toBeUndefined();
      expect(await store.get("o/s", "b")).toEqual({ kind: "absent" });
      await store.forget("o/s", "b");
      expect(Number(await client.get(`${p}b:{o}`))).toBe(0);
    });

    test("every key of an owner carries the idle expiry, renewed by a read; an entry unused that long reads as unseen", async () => {
      const p = prefix();
      const store = createRedisObservationStore(scripting, { prefix: p, idleSeconds: 600 });
      await store.set("ws/rest/s", "a", { kind: "absent" });
      const keys = [`${p}e:{ws}`, `${p}u:{ws}`, `${p}b:{ws}`];
      for (const key of keys) {
        const ttl = await client.pTTL(key);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(600_000);
      }
      for (const key of keys) await client.pExpire(key, 5_000);
      expect(await store.get("ws/rest/s", "a")).toEqual({ kind: "absent" });
      for (const key of keys) expect(await client.pTTL(key)).toBeGreaterThan(5_000);
      // Backdate the entry's last use past the idle time (no waiting): it is forgotten, bytes and all.
      await client.zAdd(keys[1], { score: 1, value: (await client.zRange(keys[1], 0, 0))[0] });
      expect(await store.get("ws/rest/s", "a")).toBeUndefined();
      expect(await client.hLen(keys[0])).toBe(0);
      expect(Number(await client.get(keys[2]))).toBe(0);
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
