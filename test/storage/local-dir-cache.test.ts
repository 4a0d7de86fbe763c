/** Local storage's directory descriptors kept for a burst of reads (src/storage/local/dir-cache.ts). */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { closeSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { at, closeDir, probeDirFds } from "../../src/storage/local/dirfd.ts";
import { createDirCache, openThroughCache } from "../../src/storage/local/dir-cache.ts";

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
  expect(openThroughCache(dirs, "swap")).toBeUndefined();
  rmSync(join(base, "ws/swap"));
});

test("openThroughCache: a descriptor of the caller's own, through the parent's", () => {
  const dirs = createDirCache(rootFd);
  const own = openThroughCache(dirs, "a/b")!;
  expect(readlinkSync(at(own))).toBe(join(base, "ws/a/b"));
  dirs.clear();
  // Still open after the cache let go of the parent.
  expect(readdirSync(at(own))).toEqual(["c"]);
  closeSync(own);
  const root = openThroughCache(dirs, "")!;
  expect(readlinkSync(at(root))).toBe(join(base, "ws"));
  closeSync(root);
  expect(openThroughCache(dirs, "out")).toBeUndefined();
  dirs.clear();
});

test("an idle cache lets its descriptors go", async () => {
  const dirs = createDirCache(rootFd, 32, 0);
  dirs.get("a/b");
  expect(dirs.size).toBe(2);
  // The cache's timer (0 ms) was armed before this one, so it has run when this resolves.
  await new Promise((resolve) => setTimeout(resolve, 5));
  expect(dirs.size).toBe(0);
});
