/**
 * The S3 provider against a real server that enforces conditional writes
 * (radosgw, started by scripts/s3-test.sh). Without S3_ENDPOINT the file
 * says so in one line and defines no tests.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { createS3Storage } from "../../src/storage/s3/provider.ts";
import { Cond } from "../../src/storage/types.ts";
import { storageConformance } from "../helpers/storage-conformance.ts";
import { deletePrefix, ensureBucket, listKeys, liveS3Config, openConnections, prefixMaker, recordingFetch } from "../helpers/s3-env.ts";

const live = liveS3Config();
const text = (s: string) => new TextEncoder().encode(s);
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

if (!live) {
  console.log("S3 suite skipped: set S3_ENDPOINT (see scripts/s3-test.sh) or run npm run test:s3");
} else {
  const config = live;
  const nextPrefix = prefixMaker("conformance");

  beforeAll(async () => {
    await ensureBucket(config);
  });

  storageConformance(
    `s3 (${config.endpoint})`,
    async () => {
      await ensureBucket(config);
      const prefix = nextPrefix();
      return { storage: await createS3Storage({ ...config, prefix }), cleanup: () => deletePrefix(config, prefix) };
      // Full concurrency; only the per-test timeout is raised. The 50-worker counter makes ~12,000
      // requests and takes 6-10 s on radosgw (its lost CAS races answer 500 and cost a HEAD each).
    },
    { timeoutMs: 60_000 },
  );

  describe("s3 on a live server", () => {
    const fresh = prefixMaker("s3-live");

    test("the probe passes and leaves no sentinel behind", async () => {
      const prefix = fresh();
      await createS3Storage({ ...config, prefix });
      expect(await listKeys(config, prefix)).toEqual([]);
    });

    test("a file is the key prefix + path, and its version is the ETag without quotes", async () => {
      const prefix = fresh();
      const { fetch, requests } = recordingFetch();
      const storage = await createS3Storage({ ...config, prefix, fetch, skipProbe: true });
      const { version } = await storage.write("dir/a b+c.txt", text("x"));
      expect(version).not.toContain('"');
      expect(version).toBe("9dd4e461268c8034f5c8564e155c67a6"); // MD5 of "x"
      expect(await listKeys(config, prefix)).toEqual([`${prefix}dir/a b+c.txt`]);
      expect(requests.at(-1)?.url.pathname).toEndWith("/dir/a%20b%2Bc.txt");
    });

    test("workspaces with different prefixes do not see each other", async () => {
      const one = await createS3Storage({ ...config, prefix: fresh(), skipProbe: true });
      const two = await createS3Storage({ ...config, prefix: fresh(), skipProbe: true });
      await one.write("f", text("one"));
      expect(await two.stat("f")).toBeNull();
      expect((await two.list("", { recursive: true })).entries).toEqual([]);
    });

    test("keys with XML and URL metacharacters list and read back exactly", async () => {
      const storage = await createS3Storage({ ...config, prefix: fresh(), skipProbe: true });
      const names = ["a&b", "<tag>", "q\"uote's", "sp ace", "plus+sign", "pct%20", "semi;colon", "é世🚀", "\uff0e\uff0e", "x\u0085y"];
      for (const name of names) await storage.write(`d/${name}`, text(name));
      const listed = (await storage.list("d")).entries.map((e) => e.name);
      expect(listed).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      for (const name of names) expect(decode((await storage.read(`d/${name}`)).bytes)).toBe(name);
    });

    test("listing pages through continuation tokens and a limit stops early", async () => {
      const prefix = fresh();
      const seed = await createS3Storage({ ...config, prefix, skipProbe: true });
      await Promise.all(Array.from({ length: 30 }, (_, i) => seed.write(`many/f${String(i).padStart(2, "0")}`, text(`${i}`))));
      const { fetch, requests } = recordingFetch();
      const storage = await createS3Storage({ ...config, prefix, fetch, skipProbe: true, listPageSize: 7 });
      const all = await storage.list("many");
      expect(all.entries.length).toBe(30);
      expect(all.truncated).toBe(false);
      expect(requests.length).toBe(5); // ceil(30 / 7) pages
      requests.length = 0;
      const cut = await storage.list("many", { limit: 3 });
      expect(cut.entries.map((e) => e.name)).toEqual(["f00", "f01", "f02"]);
      expect(cut.truncated).toBe(true);
      expect(requests.length).toBe(1);
    });

    test("a conditional write whose answer is lost is still reported as the success it was", async () => {
      const prefix = fresh();
      let lose = true;
      const { fetch } = recordingFetch(globalThis.fetch, async (request, _index, send) => {
        if (request.method !== "PUT" || !lose) return undefined;
        lose = false;
        await send();
        throw new TypeError("socket hang up");
      });
      const storage = await createS3Storage({ ...config, prefix, fetch, skipProbe: true });
      const result = await storage.write("f", text("mine"), Cond.ifAbsent);
      expect(result.created).toBe(true);
      expect((await storage.read("f")).version).toBe(result.version);
    });

    test("a stream cancelled after one chunk gives its connection back", async () => {
      // Unpooled connections (Bun's keepalive: false), so that one open connection is one unfinished
      // response, whatever earlier tests left in the pool.
      const unpooled = ((input: RequestInfo | URL, init?: RequestInit) => fetch(input as Request, { ...init, keepalive: false })) as typeof fetch;
      const storage = await createS3Storage({ ...config, prefix: fresh(), skipProbe: true, fetch: unpooled });
      const { version } = await storage.write("big", new Uint8Array(2 << 20).fill(120));
      const before = openConnections(config.endpoint) ?? 0;
      // An abandoned body holds its connection until the garbage collector finds it, so they pile up
      // between collections; a cancelled one is closed at once.
      let most = 0;
      for (let i = 0; i < 30; i++) {
        const reader = (await storage.readStream("big")).stream.getReader();
        expect((await reader.read()).done).toBe(false);
        await reader.cancel();
        most = Math.max(most, (openConnections(config.endpoint) ?? 0) - before);
      }
      expect(most).toBeLessThanOrEqual(3);
      expect((await storage.read("big")).version).toBe(version);
    });

    test("read with maxBytes refuses a large object by its Content-Length without fetching the body", async () => {
      const prefix = fresh();
      let bodyBytes = 0;
      const { fetch } = recordingFetch(globalThis.fetch, async (request, _index, send) => {
        if (request.method !== "GET" || !request.url.pathname.endsWith("/big")) return undefined;
        const response = await send();
        const counted = response.body!.pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, controller) {
              bodyBytes += chunk.length;
              controller.enqueue(chunk);
            },
          }),
        );
        return new Response(counted, { status: response.status, headers: response.headers });
      });
      const storage = await createS3Storage({ ...config, prefix, fetch, skipProbe: true });
      const size = 8 << 20;
      await storage.write("big", new Uint8Array(size));
      await expect(storage.read("big", { maxBytes: 1 << 20 })).rejects.toMatchObject({ code: "FS_TOO_LARGE", size, limit: 1 << 20 });
      expect(bodyBytes).toBeLessThan(size / 4);
    });

    test("a CAS with the version read wins; the loser sees FS_STALE_VERSION (radosgw: 412)", async () => {
      const storage = await createS3Storage({ ...config, prefix: fresh(), skipProbe: true });
      const { version } = await storage.write("f", text("base"));
      await storage.write("f", text("first"), Cond.ifVersion(version));
      await expect(storage.write("f", text("second"), Cond.ifVersion(version))).rejects.toMatchObject({ code: "FS_STALE_VERSION" });
    });
  });
}
