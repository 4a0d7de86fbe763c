/**
 * Many machines, one server: two real `toolwarden serve` processes on one S3
 * bucket (radosgw, started by scripts/s3-test.sh) sharing observations in one
 * real redis-server. Without S3_ENDPOINT or redis-server the file says so in
 * one line and defines no tests.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createS3Storage } from "../../src/storage/s3/provider.ts";
import type { Storage } from "../../src/storage/types.ts";
import { restCall, runCli, startServe, type ServeProcess } from "../helpers/cli.ts";
import { redisServerAvailable, startRedisServer, type RedisServer } from "../helpers/redis-server.ts";
import { deletePrefix, ensureBucket, listKeys, liveS3Config, prefixMaker } from "../helpers/s3-env.ts";

const live = liveS3Config();
const CLIENTS = 16;
const INCREMENTS = 25;
/** Tries per increment before the test gives up (a lost race costs one try). */
const MAX_TRIES = 1_000;

if (!live || !redisServerAvailable()) {
  console.log("Many-instance suite skipped: needs S3_ENDPOINT (npm run test:s3) and redis-server");
} else {
  const config = live;
  const prefix = prefixMaker("instances")().replace(/\/$/, "");
  const token = `tw-${crypto.randomUUID()}`;
  let redis: RedisServer;
  let one: ServeProcess;
  let two: ServeProcess;
  let bucket: Storage;
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

  beforeAll(async () => {
    await ensureBucket(config);
    redis = await startRedisServer();
    const args = [`s3://${config.bucket}/${prefix}`, "--port", "0", "--token", token, "--observations", `${redis.url}/3`, "--quiet"];
    [one, two] = await Promise.all([startServe(args), startServe(args)]);
    bucket = await createS3Storage({ ...config, prefix: `${prefix}/` });
  }, 60_000);

  afterAll(async () => {
    for (const server of [one, two]) {
      if (!server) continue;
      server.child.kill("SIGTERM");
      await server.exited;
    }
    await redis?.stop();
    await deletePrefix(config, `${prefix}/`);
  }, 60_000);

  /** The last line's text of a one-line view ("1:hh|text" -> "text"). */
  const viewed = (text: string) =>
    text
      .trimEnd()
      .split("\n")
      .at(-1)!
      .replace(/^\d+:[0-9a-f]{2}\|/, "");

  describe("two serve processes, one bucket, one redis", () => {
    test("the banner and /healthz name the storage and observations, never a key", async () => {
      for (const server of [one, two]) {
        expect(server.banner).toContain(`serving s3://${config.bucket}/${prefix}`);
        expect(server.banner).toContain(`storage: s3 (${config.endpoint.replace(/\/+$/, "")} bucket ${config.bucket} prefix ${prefix}/)`);
        expect(server.banner).toContain(`observations: ${redis.url}/3`);
        expect(server.banner).not.toContain(config.secretAccessKey);
        const health = await (await fetch(`${server.url}/healthz`)).json();
        expect(health).toMatchObject({ ok: true, storage: "s3" });
        expect(JSON.stringify(health)).not.toContain(config.secretAccessKey);
      }
    });

    test("a REST session that views through instance 1 writes through instance 2", async () => {
      expect((await restCall(one.url, token, "write", { path: "shared/a.txt", content: "one\n" }, "rest-1")).body.isError).toBe(false);
      const view = await restCall(one.url, token, "view", { path: "shared/a.txt" }, "rest-2");
      expect(view.body.isError).toBe(false);
      const write = await restCall(two.url, token, "write", { path: "shared/a.txt", content: "two\n" }, "rest-2");
      expect(write.body).toMatchObject({ isError: false });
      expect(decode((await bucket.read("shared/a.txt")).bytes)).toBe("two\n");
      // A session that viewed nothing anywhere is still refused: the store is shared, not bypassed.
      const stranger = await restCall(two.url, token, "write", { path: "shared/a.txt", content: "three\n" }, "rest-3");
      expect(stranger.body.code).toBe("FS_NOT_OBSERVED");
      expect(decode((await bucket.read("shared/a.txt")).bytes)).toBe("two\n");
      // Both instances record the history in the bucket, under the prefix no tool reaches.
      expect((await listKeys(config, `${prefix}/.toolwarden/history/`)).length).toBeGreaterThan(0);
      const listing = await restCall(two.url, token, "view", { path: "." }, "rest-2");
      expect(listing.body.content[0].text).not.toContain(".toolwarden");
    });

    test("an MCP session opened on instance 1 views there and edits through instance 2 (stateless MCP)", async () => {
      await restCall(one.url, token, "write", { path: "shared/mcp.txt", content: "alpha\n" }, "mcp-setup");
      const connect = async (url: string, sessionId?: string) => {
        const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
          sessionId,
        });
        const client = new Client({ name: "instances-test", version: "1.0.0" });
        await client.connect(transport);
        return { client, transport };
      };
      const first = await connect(one.url);
      const second = await connect(two.url, first.transport.sessionId);
      try {
        expect((await first.client.callTool({ name: "view", arguments: { path: "shared/mcp.txt" } })).isError).toBeFalsy();
        const edit = await second.client.callTool({ name: "edit", arguments: { path: "shared/mcp.txt", old_string: "alpha", new_string: "beta" } });
        expect(edit.isError).toBeFalsy();
        expect(decode((await bucket.read("shared/mcp.txt")).bytes)).toBe("beta\n");
      } finally {
        await first.client.close();
        await second.client.close();
      }
    });

    test("a stale whole-file write through instance 2, after a change through instance 1, is FS_STALE_VERSION and changes nothing", async () => {
      await restCall(one.url, token, "write", { path: "shared/stale.txt", content: "v1\n" }, "stale-setup");
      expect((await restCall(two.url, token, "view", { path: "shared/stale.txt" }, "stale-a")).body.isError).toBe(false);
      expect((await restCall(one.url, token, "view", { path: "shared/stale.txt" }, "stale-b")).body.isError).toBe(false);
      expect((await restCall(one.url, token, "write", { path: "shared/stale.txt", content: "v2 from one\n" }, "stale-b")).body.isError).toBe(false);
      const stale = await restCall(two.url, token, "write", { path: "shared/stale.txt", content: "v2 from two\n" }, "stale-a");
      expect(stale.body).toMatchObject({ isError: true, code: "FS_STALE_VERSION" });
      expect(stale.body.content.map((c) => c.text).join("\n")).toContain("view");
      expect(decode((await bucket.read("shared/stale.txt")).bytes)).toBe("v2 from one\n");
    });

    test(`${CLIENTS} clients x ${INCREMENTS} increments over both instances end at exactly ${CLIENTS * INCREMENTS}, each value written once`, async () => {
      expect((await restCall(one.url, token, "write", { path: "counter.txt", content: "0\n" }, "counter-setup")).body.isError).toBe(false);
      const written: number[] = [];
      let lostRaces = 0;
      const client = async (c: number) => {
        const session = `counter-${c}`;
        for (let k = 0; k < INCREMENTS; k++) {
          for (let attempt = 0; ; attempt++) {
            if (attempt >= MAX_TRIES) throw new Error(`client ${c} made no progress in ${MAX_TRIES} tries`);
            // View through one instance, write through the other, alternating per try.
            const [viewAt, writeAt] = (c + attempt) % 2 === 0 ? [one, two] : [two, one];
            const view = await restCall(viewAt.url, token, "view", { path: "counter.txt" }, session);
            if (view.body.isError) throw new Error(`view failed: ${JSON.stringify(view.body)}`);
            const next = Number(viewed(view.body.content[0].text)) + 1;
            const write = await restCall(writeAt.url, token, "write", { path: "counter.txt", content: `${next}\n` }, session);
            if (!write.body.isError) {
              written.push(next);
              break;
            }
            if (write.body.code !== "FS_STALE_VERSION") throw new Error(`write failed: ${JSON.stringify(write.body)}`);
            lostRaces++;
          }
        }
      };
      await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
      const total = CLIENTS * INCREMENTS;
      expect(decode((await bucket.read("counter.txt")).bytes)).toBe(`${total}\n`);
      expect(written.length).toBe(total);
      expect([...written].sort((a, b) => a - b)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
      console.log(`counter: ${total} increments, ${lostRaces} lost races answered FS_STALE_VERSION`);
    }, 600_000);
  });

  describe("start-up against the same server", () => {
    test("refused keys and a missing bucket stop `serve` with one line naming the endpoint and the reason", async () => {
      const endpoint = config.endpoint.replace(/\/+$/, "");
      const badKey = await runCli(["serve", `s3://${config.bucket}/${prefix}`, "--port", "0"], {
        env: { S3_SECRET_ACCESS_KEY: "wrong-secret-xyzzy" },
      });
      expect(badKey.code).toBe(1);
      expect(badKey.stderr).toBe(
        `toolwarden: storage s3://${config.bucket}/${prefix} at ${endpoint} bucket ${config.bucket} prefix ${prefix}/: the server refused the credentials ` +
          "(HTTP 403 SignatureDoesNotMatch); check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY)\n",
      );
      const missing = await runCli(["serve", "s3://toolwarden-no-such-bucket", "--port", "0"]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toBe(
        `toolwarden: storage s3://toolwarden-no-such-bucket at ${endpoint} bucket toolwarden-no-such-bucket: bucket toolwarden-no-such-bucket does not exist (HTTP 404 NoSuchBucket); create it or fix the name\n`,
      );
    }, 60_000);
  });
}
