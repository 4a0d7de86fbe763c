/**
 * How a local write's temp file is flushed (src/storage/local/flush.ts):
 * in place for a lone small write on a quick disk, on the thread pool
 * otherwise. The choice is pure and tested as such; both ways are then
 * driven through real writes, which must land or be refused with the same
 * bytes on disk and no temp file left.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { flushInPlace, INLINE_FLUSH_MAX_MS, nextRecentMs } from "../../src/storage/local/flush.ts";
import { SYNC_IO_BYTES } from "../../src/storage/local/io.ts";
import { createLocalStorage } from "../../src/storage/local/mod.ts";
import { Cond, type Storage } from "../../src/storage/types.ts";

describe("the choice", () => {
  test("in place only for a lone write of at most SYNC_IO_BYTES on a disk that has been quick", () => {
    const quick = { others: 0, bytes: 49_000, recentMs: 0.5 };
    expect(flushInPlace(quick)).toBe(true);
    expect(flushInPlace({ ...quick, bytes: SYNC_IO_BYTES })).toBe(true);
    // Another write under way: the pool lets the disk flush both together, and the loop stays free.
    expect(flushInPlace({ ...quick, others: 1 })).toBe(false);
    expect(flushInPlace({ ...quick, bytes: SYNC_IO_BYTES + 1 })).toBe(false);
    expect(flushInPlace({ ...quick, recentMs: INLINE_FLUSH_MAX_MS + 0.01 })).toBe(false);
  });

  test("a disk that turns slow stops flushes in place within a few writes, and one that turns quick again gets them back", () => {
    let recent = 0.4;
    let slowWrites = 0;
    while (flushInPlace({ others: 0, bytes: 1000, recentMs: recent })) {
      recent = nextRecentMs(recent, 30);
      slowWrites++;
    }
    expect(slowWrites).toBeLessThanOrEqual(1);
    let quickWrites = 0;
    while (!flushInPlace({ others: 0, bytes: 1000, recentMs: recent })) {
      recent = nextRecentMs(recent, 0.4);
      quickWrites++;
    }
    expect(quickWrites).toBeGreaterThan(0);
    expect(quickWrites).toBeLessThan(20);
  });
});

describe("both ways, through real writes", () => {
  let root: string;
  let storage: Storage;
  const text = (s: string) => new TextEncoder().encode(s);
  beforeEach(async () => {
    root = await fs.mkdtemp(join(tmpdir(), "tw-flush-"));
    storage = await createLocalStorage(root);
  });
  afterEach(() => fs.rm(root, { recursive: true, force: true }));
  const names = async () => (await fs.readdir(root)).sort();

  test("a lone write (in place) lands; a lone refused one changes nothing and leaves no temp file", async () => {
    const { version } = await storage.write("a.txt", text("one\n"));
    await storage.write("a.txt", text("two\n"), Cond.ifVersion(version, text("one\n")));
    expect(await fs.readFile(join(root, "a.txt"), "utf8")).toBe("two\n");
    await expect(storage.write("a.txt", text("three\n"), Cond.ifVersion(version, text("one\n")))).rejects.toMatchObject({ code: "FS_STALE_VERSION" });
    expect(await fs.readFile(join(root, "a.txt"), "utf8")).toBe("two\n");
    expect(await names()).toEqual(["a.txt"]);
  });

  test("writes at once (the later ones on the pool): each lands or is refused exactly, no temp file left", async () => {
    const versions = await Promise.all(Array.from({ length: 8 }, (_, k) => storage.write(`f${k}.txt`, text(`v1 ${k}\n`))));
    // Even files are written against what they hold, odd ones against content they never had: all at once.
    const outcomes = await Promise.allSettled(
      versions.map((w, k) =>
        storage.write(
          `f${k}.txt`,
          text(`v2 ${k}\n`),
          k % 2 === 0 ? Cond.ifVersion(w.version, text(`v1 ${k}\n`)) : Cond.ifVersion("0".repeat(32), text("v0\n")),
        ),
      ),
    );
    for (let k = 0; k < 8; k++) {
      expect(outcomes[k]!.status).toBe(k % 2 === 0 ? "fulfilled" : "rejected");
      expect(await fs.readFile(join(root, `f${k}.txt`), "utf8")).toBe(k % 2 === 0 ? `v2 ${k}\n` : `v1 ${k}\n`);
    }
    expect(await names()).toEqual(Array.from({ length: 8 }, (_, k) => `f${k}.txt`));
  });
});
