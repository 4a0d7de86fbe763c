/**
 * The versions of what this process wrote (src/storage/local/known-versions.ts):
 * a hit only for exactly the bytes remembered, bounded memory, and local
 * storage's versions always those of the bytes actually read.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKnownVersions } from "../../src/storage/local/known-versions.ts";
import { createLocalStorage } from "../../src/storage/local/mod.ts";
import { Cond, type Storage } from "../../src/storage/types.ts";
import { contentVersion } from "../../src/storage/version.ts";

const text = (s: string) => new TextEncoder().encode(s);

describe("createKnownVersions", () => {
  test("answers only for exactly the bytes remembered at that key", () => {
    const known = createKnownVersions({ maxEntryBytes: 100, maxBytes: 1000 });
    known.remember("a", text("hello"), "v1");
    expect(known.lookup("a", text("hello"))).toBe("v1");
    expect(known.lookup("a", text("hellO"))).toBeUndefined();
    expect(known.lookup("a", text("hello!"))).toBeUndefined();
    expect(known.lookup("b", text("hello"))).toBeUndefined();
    known.remember("a", text("world"), "v2");
    expect(known.lookup("a", text("hello"))).toBeUndefined();
    expect(known.lookup("a", text("world"))).toBe("v2");
    known.forget("a");
    expect(known.lookup("a", text("world"))).toBeUndefined();
    expect(known.size).toBe(0);
  });

  test("keeps a copy: the writer's buffer changing later changes nothing", () => {
    const known = createKnownVersions({ maxEntryBytes: 100, maxBytes: 1000 });
    const buffer = text("abc");
    known.remember("a", buffer, "v-abc");
    buffer[0] = 0x78; // "xbc"
    expect(known.lookup("a", text("xbc"))).toBeUndefined();
    expect(known.lookup("a", text("abc"))).toBe("v-abc");
  });

  test("holds at most maxBytes, dropping the oldest first, and nothing over maxEntryBytes", () => {
    const known = createKnownVersions({ maxEntryBytes: 40, maxBytes: 100 });
    for (let i = 0; i < 5; i++) known.remember(`k${i}`, new Uint8Array(30).fill(i), `v${i}`);
    expect(known.size).toBe(90);
    expect(known.lookup("k0", new Uint8Array(30).fill(0))).toBeUndefined();
    expect(known.lookup("k1", new Uint8Array(30).fill(1))).toBeUndefined();
    expect(known.lookup("k4", new Uint8Array(30).fill(4))).toBe("v4");
    known.remember("big", new Uint8Array(41), "vbig");
    expect(known.lookup("big", new Uint8Array(41))).toBeUndefined();
    expect(known.size).toBe(90);
    // Remembering a key again replaces its entry (and counts its bytes once).
    known.remember("k4", new Uint8Array(10).fill(9), "v9");
    expect(known.size).toBe(70);
  });
});

describe("local storage: versions of what it wrote", () => {
  let root: string;
  let storage: Storage;
  beforeEach(async () => {
    root = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "tw-known-")));
    storage = await createLocalStorage(root);
  });
  afterEach(() => fs.rm(root, { recursive: true, force: true }));

  test("a file changed in place by another writer, same size, reads with its new content's version", async () => {
    const written = await storage.write("f.txt", text("aaaa\n"));
    expect((await storage.read("f.txt")).version).toBe(written.version);
    // Another process rewrites the same inode, same length, without a rename.
    const handle = await fs.open(join(root, "f.txt"), "r+");
    await handle.write("bbbb", 0);
    await handle.close();
    const read = await storage.read("f.txt");
    expect(new TextDecoder().decode(read.bytes)).toBe("bbbb\n");
    expect(read.version).toBe(await contentVersion(text("bbbb\n")));
    expect(read.version).not.toBe(written.version);
    expect((await storage.stat("f.txt"))?.version).toBe(read.version);
    // A compare-and-swap against the version it wrote is refused: nothing is lost.
    const refused = await storage.write("f.txt", text("cccc\n"), Cond.ifVersion(written.version, text("aaaa\n"))).catch((e) => e);
    expect(refused.code).toBe("FS_STALE_VERSION");
    expect(await fs.readFile(join(root, "f.txt"), "utf8")).toBe("bbbb\n");
    // The refused write's temp file (written and flushed before the re-read refused it) is gone.
    expect(await fs.readdir(root)).toEqual(["f.txt"]);
    // And the table did not take the refused bytes for the file's: a read still hashes what is there.
    expect((await storage.read("f.txt")).version).toBe(await contentVersion(text("bbbb\n")));
  });

  test("versions read back equal the content hash, written or not by this process", async () => {
    for (const content of ["one\n", "", "two\n", "one\n"]) {
      const written = await storage.write("g.txt", text(content));
      expect(written.version).toBe(await contentVersion(text(content)));
      expect((await storage.read("g.txt")).version).toBe(written.version);
    }
    await storage.delete("g.txt");
    await fs.writeFile(join(root, "g.txt"), "one\n");
    expect((await storage.read("g.txt")).version).toBe(await contentVersion(text("one\n")));
  });
});
