/** Local storage's directory descriptors kept for a burst of reads (src/storage/local/dir-cache.ts). */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { at, closeDir, probeDirFds } from "../../src/storage/local/dirfd.ts";
import { createDirCache } from "../../src/storage/local/dir-cache.ts";
import { fdNames } from "../helpers/fds.ts";

let base: string;
let rootFd: number;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "tw-dir-cache-")));
  mkdirSync(join(base, "ws/a/b/c"), { recursive: true });
  mkdirSync(join(base, "outside"));
  writeFileSync(join(base, "outside/o.txt"), "o");
  writeFileSync(join(base, "ws/a/file.txt"), "f");
  writeFileSync(join(base, "ws/a/b/c/deep.txt"), "d");
  symlinkSync(join(base, "outside"), join(base, "ws/out"));
  symlinkSync("a", join(base, "ws/alias"));
  rootFd = probeDirFds(join(base, "ws"));
});

afterAll(() => {
  closeDir(rootFd);
  rmSync(base, { recursive: true, force: true });
});

test("a directory reached without a symlink on the way is held; anything else is undefined", () => {
  const dirs = createDirCache(rootFd);
  expect(dirs.get("")).toBe(rootFd);
  const deep = dirs.get("a/b/c")!;
  expect(readlinkSync(at(deep))).toBe(join(base, "ws/a/b/c"));
  expect(readdirSync(at(deep))).toEqual(["deep.txt"]);
  // Its ancestors were opened on the way and are held too.
  expect(dirs.size).toBe(3);
  expect(dirs.get("a/b/c")).toBe(deep);
  expect(dirs.size).toBe(3);
  for (const refused of ["out", "alias", "alias/b", "a/file.txt", "missing", "a/missing/x"]) expect(dirs.get(refused)).toBeUndefined();
  dirs.clear();
  expect(dirs.size).toBe(0);
});

test("at most maxHeld descriptors, least recently used out", () => {
  const dirs = createDirCache(rootFd, 2);
  dirs.get("a/b/c");
  expect(dirs.size).toBe(2);
  // The deepest (used last) is still held; it still names its directory.
  expect(readdirSync(at(dirs.get("a/b/c")!))).toEqual(["deep.txt"]);
  dirs.clear();
});

test("a directory swapped for a symlink after it was held: the held descriptor still reads the directory it opened", () => {
  mkdirSync(join(base, "ws/swap"));
  writeFileSync(join(base, "ws/swap/in.txt"), "in");
  const dirs = createDirCache(rootFd);
  const held = dirs.get("swap")!;
  rmSync(join(base, "ws/swap"), { recursive: true });
  symlinkSync(join(base, "outside"), join(base, "ws/swap"));
  // The old directory is gone (not outside): nothing is read from outside through the descriptor.
  expect(() => readdirSync(at(held))).toThrow();
  // A fresh lookup refuses the symlink.
  dirs.clear();
  expect(dirs.get("swap")).toBeUndefined();
  expect(dirs.pin("swap")).toBeUndefined();
  rmSync(join(base, "ws/swap"));
});

test("a pinned descriptor outlives clear and eviction: it closes at its last unpin", () => {
  const dirs = createDirCache(rootFd, 2);
  const b = dirs.pin("a/b")!;
  expect(dirs.pin("a/b")).toBe(b);
  dirs.clear();
  // Let go by the cache, still open for its two pins; a fresh get opens another descriptor.
  expect(fdNames(b, join(base, "ws/a/b"))).toBe(true);
  expect(readdirSync(at(b))).toEqual(["c"]);
  dirs.unpin(b);
  expect(fdNames(b, join(base, "ws/a/b"))).toBe(true);
  dirs.unpin(b);
  expect(fdNames(b, join(base, "ws/a/b"))).toBe(false);
  // Evicted (most held: 2) while pinned: the same.
  const c = dirs.pin("a/b/c")!;
  dirs.get("a");
  dirs.get("a/b");
  expect(dirs.size).toBe(2);
  expect(fdNames(c, join(base, "ws/a/b/c"))).toBe(true);
  dirs.unpin(c);
  expect(fdNames(c, join(base, "ws/a/b/c"))).toBe(false);
  // Held and not pinned: an unpin too many changes nothing.
  const a = dirs.get("a")!;
  dirs.unpin(a);
  expect(fdNames(a, join(base, "ws/a"))).toBe(true);
  // The root is the caller's: pinning it neither counts nor closes it.
  expect(dirs.pin("")).toBe(rootFd);
  dirs.unpin(rootFd);
  dirs.clear();
  expect(fdNames(rootFd, join(base, "ws"))).toBe(true);
  expect(dirs.pin("out")).toBeUndefined();
});

test("an idle cache lets its descriptors go", async () => {
  const dirs = createDirCache(rootFd, 32, 0);
  dirs.get("a/b");
  expect(dirs.size).toBe(2);
  // The cache's timer (0 ms) was armed before this one, so it has run when this resolves.
  await new Promise((resolve) => setTimeout(resolve, 5));
  expect(dirs.size).toBe(0);
});
