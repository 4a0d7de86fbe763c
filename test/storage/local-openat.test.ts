/**
 * openat(2) through Bun's FFI (src/storage/local/openat.ts): found here,
 * it opens exactly the entry `/proc/self/fd/N/name` opens, refuses what is
 * not one plain name (a NUL must not cut "a\0b" to "a"), and a search reads
 * the same through it as through /proc.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { closeSync, constants, fstatSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openEntry } from "../../src/storage/local/dirfd.ts";
import { createLocalStorage } from "../../src/storage/local/mod.ts";
import { loadOpenAt, openAtNow, openAtSwitch } from "../../src/storage/local/openat.ts";
import { READ_FLAGS } from "../../src/storage/local/read.ts";
import type { Storage } from "../../src/storage/types.ts";

const O_PATH = 0o10000000;
let base: string;
let ws: string;
let dirFd: number;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), "tw-openat-"));
  ws = join(base, "ws");
  mkdirSync(join(ws, "d"), { recursive: true });
  writeFileSync(join(ws, "a"), "alpha\n");
  writeFileSync(join(ws, "é 世.txt"), "unicode name\n");
  writeFileSync(join(ws, "d/inner.txt"), "inner\n");
  writeFileSync(join(base, "secret.txt"), "secret\n");
  symlinkSync(join(base, "secret.txt"), join(ws, "out.txt"));
  symlinkSync("d", join(ws, "link-dir"));
  dirFd = openSync(ws, O_PATH | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  await loadOpenAt(dirFd);
});

afterAll(() => {
  openAtSwitch.enabled = true;
  closeSync(dirFd);
  rmSync(base, { recursive: true, force: true });
});

const onLinuxBun = process.platform === "linux" && (process.arch === "x64" || process.arch === "arm64");

test.if(onLinuxBun)("found on Linux under Bun, it opens the entry /proc names: same file, and a directory as a directory", () => {
  const openAt = openAtNow();
  expect(openAt).toBeDefined();
  for (const name of ["a", "é 世.txt"]) {
    const fd = openAt!(dirFd, name, READ_FLAGS);
    expect(fd).toBeGreaterThanOrEqual(0);
    try {
      expect(fstatSync(fd).ino).toBe(statSync(join(ws, name)).ino);
    } finally {
      closeSync(fd);
    }
  }
  const dir = openAt!(dirFd, "d", O_PATH | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  expect(dir).toBeGreaterThanOrEqual(0);
  try {
    expect(openAt!(dir, "inner.txt", READ_FLAGS)).toBeGreaterThanOrEqual(0);
  } finally {
    closeSync(dir);
  }
});

test.if(onLinuxBun)("a symlink at the name is never followed, and anything but one plain name is refused", () => {
  const openAt = openAtNow()!;
  expect(openAt(dirFd, "out.txt", READ_FLAGS)).toBe(-1);
  expect(openAt(dirFd, "link-dir", O_PATH | constants.O_DIRECTORY | constants.O_NOFOLLOW)).toBe(-1);
  // "a" exists: a name the C string would cut at its NUL must not open it.
  for (const name of ["", ".", "..", "d/inner.txt", "a\0b", "a\0"]) expect(openAt(dirFd, name, READ_FLAGS)).toBe(-1);
  expect(openAt(dirFd, "x".repeat(2000), READ_FLAGS)).toBe(-1);
  // Where it refuses, openEntry asks /proc, which throws the error that says why.
  expect(() => openEntry(dirFd, "out.txt", READ_FLAGS)).toThrow(expect.objectContaining({ code: "ELOOP" }));
  expect(() => openEntry(dirFd, "missing", READ_FLAGS)).toThrow(expect.objectContaining({ code: "ENOENT" }));
});

test("a search's reads answer the same through openat and through /proc", async () => {
  const storage: Storage = await createLocalStorage(ws);
  const scan = (path: string) =>
    storage.scanFile!(path, {
      maxBytes: 1 << 20,
      headBytes: 64,
      head: () => undefined,
      whole: (bytes, version) => `${new TextDecoder().decode(bytes)}|${version()}`,
    }).then(
      (r) => r,
      (e: { code?: string }) => e.code,
    );
  const paths = ["a", "é 世.txt", "d/inner.txt", "out.txt", "link-dir/inner.txt", "missing", "d"];
  const answers = async () => ({ listing: await storage.list("", { sizes: false, recursive: true }), scans: await Promise.all(paths.map(scan)) });
  const through = await answers();
  storage.endScan!();
  openAtSwitch.enabled = false;
  const proc = await answers();
  storage.endScan!();
  expect(through).toEqual(proc);
  expect(through.scans.slice(0, 3)).toEqual([
    expect.stringMatching(/^alpha\n\|/),
    expect.stringMatching(/^unicode name\n\|/),
    expect.stringMatching(/^inner\n\|/),
  ]);
  // A symlink leading outside is refused; one inside reads its target.
  expect(through.scans.slice(3)).toEqual(["FS_ACCESS_DENIED", through.scans[2], "FS_NOT_FOUND", "FS_IS_DIRECTORY"]);
});
