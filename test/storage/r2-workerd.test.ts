/**
 * The R2 provider inside workerd (Miniflare's R2): the shared conformance
 * suite, once with R2's full 1000-key pages and once with 2-key pages so
 * that every listing pages through cursors, plus what is particular to R2.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { guardStorage } from "../../src/storage/guard.ts";
import { Cond } from "../../src/storage/types.ts";
import { startStorageWorker, type StorageWorker } from "../helpers/worker-storage.ts";
import { storageConformance } from "../helpers/storage-conformance.ts";

let started: Promise<StorageWorker> | undefined;
const worker = () => (started ??= startStorageWorker());
afterAll(async () => {
  await (await started)?.dispose();
});

// Every test gets a fresh prefix in the one bucket, which also shows that workspaces never see each other's keys.
let next = 0;
const fresh = () => `t${++next}`;

// Every call is an HTTP round trip into workerd, so the contended counter runs lighter than in memory;
// the 2-key-page run is about listings, so its concurrency tests only need to run at all.
const load = { casWriters: 20, counterWorkers: 10, creators: 20, timeoutMs: 30_000 };
const light = { casWriters: 5, casRounds: 2, counterWorkers: 4, creators: 5, timeoutMs: 30_000 };
storageConformance("r2 (workerd)", async () => ({ storage: (await worker()).storage(fresh()) }), load);
storageConformance("r2 (workerd, 2-key list pages)", async () => ({ storage: (await worker()).storage(fresh(), { pageSize: 2 }) }), light);

const text = (s: string) => new TextEncoder().encode(s);
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

describe("r2 (workerd) specifics", () => {
  test("the start-up probe passes against workerd's R2 and leaves no key behind", async () => {
    const w = await worker();
    await w.probe();
    const root = await w.storage("").list("", { recursive: true });
    expect(root.entries.filter((e) => e.name.startsWith(".toolwarden-probe"))).toEqual([]);
  });

  test("a version that is not an ETag never matches: '*' and lists cannot bypass the compare-and-swap", async () => {
    const storage = guardStorage((await worker()).storage(fresh()));
    const { version } = await storage.write("f", text("one"));
    for (const bogus of ["*", `${version}, *`, `"${version}"`, `W/"${version}"`]) {
      await expect(storage.write("f", text("pwned"), Cond.ifVersion(bogus))).rejects.toMatchObject({ code: "FS_STALE_VERSION" });
    }
    expect(decode((await storage.read("f")).bytes)).toBe("one");
  });

  test("versions are content ETags: identical bytes keep the version, and a compare-and-swap on it still holds", async () => {
    const storage = guardStorage((await worker()).storage(fresh()));
    const first = await storage.write("f", text("same"));
    expect(first.version).toMatch(/^[0-9a-f]{32}$/);
    const again = await storage.write("f", text("same"));
    expect(again.version).toBe(first.version);
    const changed = await storage.write("f", text("other"), Cond.ifVersion(first.version));
    expect(changed.version).not.toBe(first.version);
  });

  test("a workspace prefix is a boundary: ws1 sees nothing of ws10 or of the bare bucket", async () => {
    const w = await worker();
    const ws1 = guardStorage(w.storage("iso/ws1"));
    const ws10 = guardStorage(w.storage("iso/ws10/"));
    await ws10.write("secret.txt", text("ws10"));
    await w.storage("iso").write("ws1.txt", text("beside"));
    expect(await ws1.list("", { recursive: true })).toEqual({ entries: [], truncated: false });
    expect(await ws1.stat("secret.txt")).toBeNull();
    await ws1.write("mine.txt", text("ws1"));
    expect((await ws10.list("")).entries.map((e) => e.path)).toEqual(["secret.txt"]);
  });

  test("a path whose key would pass R2's 1024-byte limit is an invalid path, refused before R2 is asked", async () => {
    const storage = guardStorage((await worker()).storage(fresh()));
    const long = Array.from({ length: 4 }, (_, i) => String(i).repeat(255)).join("/"); // 1023 bytes, valid as a path
    await expect(storage.write(long, text("x"))).rejects.toMatchObject({ code: "FS_INVALID_PATH" });
    await expect(storage.read(long)).rejects.toMatchObject({ code: "FS_INVALID_PATH" });
    expect(await storage.list("", { recursive: true })).toEqual({ entries: [], truncated: false });
  });

  test("in workerd, a 6 MiB object streams in many chunks as R2 delivers them, none empty, with its ETag", async () => {
    const w = await worker();
    const prefix = fresh();
    const bytes = new Uint8Array(6 << 20).map((_, i) => i % 251);
    const { version } = await w.storage(prefix).write("big.bin", bytes);
    const seen = await w.streamChunks(prefix, "big.bin");
    expect(seen).toMatchObject({ bytes: bytes.length, size: bytes.length, emptyChunks: 0, cancelled: false, version });
    expect(seen.chunks).toBeGreaterThan(1);
    // No chunk is the object: a view of its end holds a chunk at a time.
    expect(seen.largest).toBeLessThan(bytes.length / 4);
  }, 30_000);

  test("in workerd, a stream cancelled after one chunk releases the object: rewrite, read and stream it again", async () => {
    const w = await worker();
    const prefix = fresh();
    const storage = guardStorage(w.storage(prefix));
    const { version } = await storage.write("big.bin", new Uint8Array(4 << 20).fill(65));
    for (let i = 0; i < 3; i++) expect(await w.streamChunks(prefix, "big.bin", 1)).toMatchObject({ chunks: 1, cancelled: true, version });
    const next = await storage.write("big.bin", text("after"), Cond.ifVersion(version));
    expect(decode((await storage.read("big.bin")).bytes)).toBe("after");
    expect(await w.streamChunks(prefix, "big.bin")).toMatchObject({ bytes: 5, cancelled: false, version: next.version });
  }, 30_000);

  test("listings with small pages and a limit agree with full pages", async () => {
    const w = await worker();
    const prefix = fresh();
    const names = ["a!", "a/b", "a0", "a-x/y", "a.b/c/d", "b", "\u00e9/x", "\ud83d\ude80", "\uff01", "z/z/z"];
    const full = guardStorage(w.storage(prefix));
    for (const name of names) await full.write(name, text(name));
    const paged = guardStorage(w.storage(prefix, { pageSize: 1 }));
    for (const options of [{}, { recursive: true }, { recursive: true, depth: 2 }]) {
      const all = await full.list("", options);
      for (const limit of [0, 1, 2, 3, 5, 8, 13, 20]) {
        const expected = { entries: all.entries.slice(0, limit), truncated: all.entries.length > limit };
        expect(await paged.list("", { ...options, limit })).toEqual(expected);
        expect(await full.list("", { ...options, limit })).toEqual(expected);
      }
    }
  });
});
