/**
 * The lock file that makes a local compare-and-swap hold across processes
 * (src/storage/local/target-lock.ts): a write waits while another live
 * holder has it and then checks against what that holder wrote; a dead
 * holder's lock is broken; the names are reserved like temp files.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { isStale, LIVE_STALE_LOCK_MS, parseHolder, STALE_LOCK_MS } from "../../src/storage/local/target-lock.ts";
import { isTempName, lockNameFor } from "../../src/storage/local/temp-name.ts";
import { createLocalStorage } from "../../src/storage/local/mod.ts";
import { Cond, type Storage } from "../../src/storage/types.ts";

const bytes = (s: string) => new TextEncoder().encode(s);
const self = { pid: 1000, host: "h1" };

describe("lock files, pure parts", () => {
  test("a holder is read back from what a lock file says", () => {
    expect(parseHolder("4242 box-7\n")).toEqual({ pid: 4242, host: "box-7" });
    expect(parseHolder("")).toBeUndefined();
    expect(parseHolder("garbage")).toBeUndefined();
  });

  test("stale: a dead pid of this host at once; any lock past the age; never a live or foreign fresh one", () => {
    const dead = () => false;
    const alive = () => true;
    expect(isStale({ pid: 7, host: "h1" }, 5, self, dead)).toBe(true);
    expect(isStale({ pid: 7, host: "h1" }, 5, self, alive)).toBe(false);
    // A live holder here may be a server stopped between its check and its rename: its lock holds far longer.
    expect(isStale({ pid: 7, host: "h1" }, STALE_LOCK_MS + 1, self, alive)).toBe(false);
    expect(isStale({ pid: 7, host: "h1" }, LIVE_STALE_LOCK_MS + 1, self, alive)).toBe(true);
    // Another host's pid says nothing here.
    expect(isStale({ pid: 7, host: "h2" }, 5, self, dead)).toBe(false);
    // Being written (unreadable yet): wait for it.
    expect(isStale(undefined, 5, self, dead)).toBe(false);
    expect(isStale({ pid: 7, host: "h2" }, STALE_LOCK_MS + 1, self, alive)).toBe(true);
    expect(isStale(undefined, STALE_LOCK_MS + 1, self, alive)).toBe(true);
    // A host that could not be named names no machine: only the age counts.
    expect(isStale({ pid: 7, host: "" }, 5, { pid: 1000, host: "" }, dead)).toBe(false);
  });

  test("lock names are reserved like temp names, and stay under NAME_MAX", () => {
    expect(lockNameFor("f.txt")).toBe(".f.txt.tw-lock");
    expect(isTempName(".f.txt.tw-lock")).toBe(true);
    expect(isTempName("f.txt.tw-lock")).toBe(false);
    expect(new TextEncoder().encode(lockNameFor("é".repeat(127))).length).toBeLessThanOrEqual(255);
  });
});

describe("local storage: a write waits for another process's lock", () => {
  let dir: string;
  let storage: Storage;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "tw-target-lock-"));
    writeFileSync(join(dir, "f.txt"), "v1\n");
    storage = await createLocalStorage(dir);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const lockPath = () => join(dir, ".f.txt.tw-lock");
  const strays = () => readdirSync(dir).filter((n) => n !== "f.txt");

  /** Resolves once the write has its temp file (so it is past its flush, at or before the lock), or settles. */
  async function untilWaiting(write: Promise<unknown>): Promise<void> {
    let settled = false;
    write.then(
      () => (settled = true),
      () => (settled = true),
    );
    while (!settled && !readdirSync(dir).some((n) => n.endsWith(".tmp"))) await new Promise((r) => setImmediate(r));
  }

  test("the other holder's change lands first, and the compare-and-swap then sees it: stale, nothing of ours written", async () => {
    const { version } = await storage.read("f.txt");
    // Another server (alive: this process's own pid and host) holds the lock of f.txt.
    writeFileSync(lockPath(), `${process.pid} ${hostname()}\n`);
    const mine = storage.write("f.txt", bytes("mine\n"), Cond.ifVersion(version));
    await untilWaiting(mine);
    // It writes the file the way a toolwarden write does (temp + rename), then releases.
    writeFileSync(join(dir, "theirs.tmp-x"), "theirs\n");
    renameSync(join(dir, "theirs.tmp-x"), join(dir, "f.txt"));
    unlinkSync(lockPath());
    await expect(mine).rejects.toMatchObject({ code: "FS_STALE_VERSION" });
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("theirs\n");
    expect(strays()).toEqual([]);
  });

  test("a delete by version waits too, and then sees the other holder's change", async () => {
    const { version } = await storage.read("f.txt");
    writeFileSync(lockPath(), `${process.pid} ${hostname()}\n`);
    const removal = storage.delete("f.txt", { ifVersion: version });
    // The delete makes no temp file: it is waiting once it has looked at the lock (a few turns).
    for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
    writeFileSync(join(dir, "f.txt"), "theirs\n");
    unlinkSync(lockPath());
    await expect(removal).rejects.toMatchObject({ code: "FS_STALE_VERSION" });
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("theirs\n");
    expect(strays()).toEqual([]);
  });

  test("with no other holder the write takes and releases the lock: nothing is left", async () => {
    const { version } = await storage.read("f.txt");
    await storage.write("f.txt", bytes("v2\n"), Cond.ifVersion(version));
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("v2\n");
    expect(strays()).toEqual([]);
  });

  test("a lock left by a process that died on this host is broken at once", async () => {
    const gone = Bun.spawnSync(["true"]).pid;
    writeFileSync(lockPath(), `${gone} ${hostname()}\n`);
    const { version } = await storage.read("f.txt");
    await storage.write("f.txt", bytes("v2\n"), Cond.ifVersion(version));
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("v2\n");
    expect(strays()).toEqual([]);
  });

  test("another host's lock is broken only once it is old", async () => {
    writeFileSync(lockPath(), "1 some-other-host\n");
    const old = (Date.now() - STALE_LOCK_MS - 5_000) / 1000;
    utimesSync(lockPath(), old, old);
    const { version } = await storage.read("f.txt");
    await storage.write("f.txt", bytes("v2\n"), Cond.ifVersion(version));
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("v2\n");
    expect(existsSync(lockPath())).toBe(false);
  });

  test("an old symlink or directory planted under the lock's name is broken, and nothing of it is left", async () => {
    const { mkdirSync, symlinkSync, lutimesSync } = await import("node:fs");
    const old = (Date.now() - STALE_LOCK_MS - 5_000) / 1000;
    symlinkSync("/etc/passwd", lockPath());
    lutimesSync(lockPath(), old, old);
    const first = await storage.read("f.txt");
    await storage.write("f.txt", bytes("v2\n"), Cond.ifVersion(first.version));
    expect(strays()).toEqual([]);
    mkdirSync(lockPath());
    writeFileSync(join(lockPath(), "inside"), "x");
    utimesSync(lockPath(), old, old);
    const second = await storage.read("f.txt");
    await storage.write("f.txt", bytes("v3\n"), Cond.ifVersion(second.version));
    expect(readFileSync(join(dir, "f.txt"), "utf8")).toBe("v3\n");
    expect(strays()).toEqual([]);
    expect(readFileSync("/etc/passwd", "utf8").length).toBeGreaterThan(0);
  });

  test("lock files are hidden from listings and refused as paths", async () => {
    writeFileSync(lockPath(), `${process.pid} ${hostname()}\n`);
    const listed = await storage.list("");
    expect(listed.entries.map((e) => e.name)).toEqual(["f.txt"]);
    await expect(storage.read(".f.txt.tw-lock")).rejects.toMatchObject({ code: "FS_INVALID_PATH" });
  });
});
