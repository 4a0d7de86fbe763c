/**
 * A search's reads on a second thread (src/storage/local/scan-pool.ts,
 * scan-ahead.ts): the worker reads exactly the regular files the main
 * thread's scan would open, and nothing else; a directory it reads through
 * stays open until its job is done; what is announced is bounded, taken
 * once and let go at the end of the search; and scans answer the same with
 * it as without it, a shown file being read again where it is.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { closeSync, constants, mkdirSync, mkdtempSync, openSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDirCache } from "../../src/storage/local/dir-cache.ts";
import { closeDir, probeDirFds } from "../../src/storage/local/dirfd.ts";
import { createLocalStorage } from "../../src/storage/local/mod.ts";
import { loadOpenAt, openAtSwitch } from "../../src/storage/local/openat.ts";
import { AHEAD_FILES, createScanAhead, JOB_FILES } from "../../src/storage/local/scan-ahead.ts";
import { POOL_FILE_BYTES, poolPossible, type ScanPool, scanPool, splitAnswer } from "../../src/storage/local/scan-pool.ts";
import type { ScanFileOptions } from "../../src/storage/types.ts";
import { fdNames } from "../helpers/fds.ts";

const O_PATH = 0o10000000;
let base: string;
let ws: string;
let wsFd: number;

beforeAll(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "tw-scan-ahead-")));
  ws = join(base, "ws");
  mkdirSync(join(ws, "d/e"), { recursive: true });
  writeFileSync(join(ws, "a.txt"), "alpha\n");
  writeFileSync(join(ws, "empty.txt"), "");
  writeFileSync(join(ws, "é 世.txt"), "unicode name\n");
  writeFileSync(join(ws, "d/e/f.txt"), "deep\n");
  writeFileSync(join(ws, "limit.txt"), "x".repeat(POOL_FILE_BYTES));
  writeFileSync(join(ws, "over.txt"), "x".repeat(POOL_FILE_BYTES + 1));
  writeFileSync(join(base, "secret.txt"), "SECRET\n");
  symlinkSync("a.txt", join(ws, "link.txt"));
  symlinkSync(join(base, "secret.txt"), join(ws, "out.txt"));
  spawnSync("mkfifo", [join(ws, "fifo")]);
  wsFd = openSync(ws, O_PATH | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  await loadOpenAt(wsFd);
});

afterAll(() => {
  openAtSwitch.enabled = true;
  closeSync(wsFd);
  rmSync(base, { recursive: true, force: true });
});

const decode = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : new TextDecoder().decode(bytes));

test("where there is no pool, local storage does not ask a search to announce its files", async () => {
  const storage = await createLocalStorage(ws);
  expect(storage.scanAhead !== undefined).toBe(poolPossible());
});

describe.if(poolPossible())("the pool's worker", () => {
  test("reads the regular files at those names, whole; nothing that is not one, nor any path", async () => {
    const pool = scanPool()!;
    const names = [
      "a.txt",
      "empty.txt",
      "é 世.txt",
      "limit.txt",
      "over.txt",
      "missing",
      "d",
      "link.txt",
      "out.txt",
      "fifo",
      "../secret.txt",
      "d/e",
      "..",
      ".",
      "",
      "a.txt\0x",
    ];
    const files = await pool.readFiles(Int32Array.from(names.map(() => wsFd)), names);
    expect(files.map(decode)).toEqual([
      "alpha\n",
      "",
      "unicode name\n",
      "x".repeat(POOL_FILE_BYTES),
      // Over the pool's size, a directory, symlinks (never followed), a FIFO (not waited on), paths: left to the main thread.
      ...Array.from({ length: names.length - 4 }, () => undefined),
    ]);
  });

  test("each name through its own directory's descriptor", async () => {
    const inner = openSync(join(ws, "d/e"), O_PATH | constants.O_DIRECTORY);
    try {
      const files = await scanPool()!.readFiles(Int32Array.from([inner, wsFd, inner]), ["f.txt", "a.txt", "a.txt"]);
      expect(files.map(decode)).toEqual(["deep\n", "alpha\n", undefined]);
    } finally {
      closeSync(inner);
    }
  });
});

test("an answer splits into each file's bytes, in order; a negative size is a file left unread", () => {
  const bytes = new TextEncoder().encode("abcdef").buffer;
  expect(splitAnswer(Int32Array.from([2, -1, 0, 4]), bytes).map(decode)).toEqual(["ab", undefined, "", "cdef"]);
});

/** A pool whose jobs settle when the test says, each file answered by `answer`. */
function heldPool(answer: (name: string) => string | undefined) {
  const jobs: { dirFds: Int32Array; names: readonly string[]; settle: () => void }[] = [];
  const pool: ScanPool = {
    readFiles: (dirFds, names) =>
      new Promise((resolve) => {
        jobs.push({
          dirFds,
          names,
          settle: () => resolve(names.map((name) => (answer(name) === undefined ? undefined : new TextEncoder().encode(answer(name))))),
        });
      }),
  };
  return { pool, jobs };
}

describe("announced reads", () => {
  test("a directory read through stays open until its job is done, whatever the cache lets go meanwhile", async () => {
    const rootFd = probeDirFds(ws);
    try {
      const dirs = createDirCache(rootFd);
      const { pool, jobs } = heldPool((name) => name);
      const ahead = createScanAhead(dirs, pool);
      ahead.announce(["d/e/f.txt", "d/e/g.txt", "a.txt"]);
      expect(jobs).toHaveLength(1);
      const [dirFd] = jobs[0]!.dirFds;
      expect(fdNames(dirFd!, join(ws, "d/e"))).toBe(true);
      // The search ends (and the cache lets go) while the worker still reads through it.
      ahead.clear();
      dirs.clear();
      expect(fdNames(dirFd!, join(ws, "d/e"))).toBe(true);
      jobs[0]!.settle();
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(fdNames(dirFd!, join(ws, "d/e"))).toBe(false);
      expect(fdNames(rootFd, ws)).toBe(true);
    } finally {
      closeDir(rootFd);
    }
  });

  test("taken once, in jobs of at most JOB_FILES, at most AHEAD_FILES held; names that are not plain, temp files and repeats are left out", async () => {
    const rootFd = probeDirFds(ws);
    try {
      const dirs = createDirCache(rootFd);
      const { pool, jobs } = heldPool((name) => `bytes of ${name}`);
      const ahead = createScanAhead(dirs, pool);
      const many = Array.from({ length: AHEAD_FILES + 10 }, (_, i) => `d/n${i}.txt`);
      ahead.announce(["a.txt", "a.txt", ".x.tw-0123456789ab.tmp", "missing-dir/x.txt", ...many]);
      expect(ahead.size).toBe(AHEAD_FILES);
      expect(jobs.every((job) => job.names.length <= JOB_FILES)).toBe(true);
      expect(jobs.flatMap((job) => job.names).filter((name) => name === "a.txt")).toHaveLength(1);
      expect(ahead.take(".x.tw-0123456789ab.tmp")).toBeUndefined();
      // Announcing more while full adds nothing.
      ahead.announce(["d/more.txt"]);
      expect(ahead.take("d/more.txt")).toBeUndefined();
      for (const job of jobs) job.settle();
      expect(decode(await ahead.take("a.txt"))).toBe("bytes of a.txt");
      expect(ahead.take("a.txt")).toBeUndefined();
      expect(decode(await ahead.take("d/n0.txt"))).toBe("bytes of n0.txt");
      expect(ahead.size).toBe(AHEAD_FILES - 2);
      ahead.clear();
      expect(ahead.size).toBe(0);
      expect(ahead.take("d/n1.txt")).toBeUndefined();
      dirs.clear();
    } finally {
      closeDir(rootFd);
    }
  });
});

describe.if(poolPossible())("scans of announced files", () => {
  const decoder = new TextDecoder();
  const codeOf = (p: Promise<unknown>) =>
    p.then(
      (r) => r,
      (e: { code?: string }) => e.code,
    );
  /** Shows every file (asks for its version, as a search does for a match) or only judges it. */
  const scanning = (show: boolean): ScanFileOptions<string> => ({
    maxBytes: 1 << 20,
    headBytes: 64,
    head: (bytes) => (bytes.includes(0) ? "binary" : undefined),
    whole: (bytes, version) => {
      const text = decoder.decode(bytes);
      return show ? `${text}|${version()}` : `${text.length}`;
    },
  });

  test("answer what the main thread alone answers, shown or judged", async () => {
    const storage = await createLocalStorage(ws);
    const paths = ["a.txt", "empty.txt", "é 世.txt", "d/e/f.txt", "limit.txt", "over.txt", "link.txt", "out.txt", "missing", "d", "fifo"];
    const answers = async (announce: boolean) => {
      const out: unknown[] = [];
      for (const show of [true, false]) {
        if (announce) storage.scanAhead!(paths);
        for (const path of paths) out.push(await codeOf(storage.scanFile!(path, scanning(show))));
        storage.endScan!();
      }
      return out;
    };
    const pooled = await answers(true);
    expect(pooled).toEqual(await answers(false));
    expect(pooled.slice(0, 2)).toEqual([expect.stringMatching(/^alpha\n\|/), expect.stringMatching(/^\|/)]);
  });

  test("a file shown from a directory moved out of the root after it was announced is read again where it is, never from outside", async () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "tw-scan-ahead-moved-")));
    try {
      mkdirSync(join(root, "ws/p/d"), { recursive: true });
      mkdirSync(join(root, "out"));
      writeFileSync(join(root, "ws/p/d/f.txt"), "inside\n");
      writeFileSync(join(root, "ws/p/d/g.txt"), "inside too\n");
      writeFileSync(join(root, "out/secret.txt"), "SECRET-OUTSIDE\n");
      const local = await createLocalStorage(join(root, "ws"));
      await local.list("p/d", { sizes: false });
      local.scanAhead!(["p/d/f.txt", "p/d/g.txt"]);
      // Another process moves the directory out and an outside file into it; the worker may read before or after.
      renameSync(join(root, "ws/p/d"), join(root, "out/moved"));
      renameSync(join(root, "out/secret.txt"), join(root, "out/moved/f.txt"));
      expect(await codeOf(local.scanFile!("p/d/f.txt", scanning(true)))).toBe("FS_NOT_FOUND");
      expect(await codeOf(local.scanFile!("p/d/g.txt", scanning(true)))).toBe("FS_NOT_FOUND");
      local.endScan!();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test("switched off with openat (tests compare with /proc), nothing is read ahead", async () => {
    const storage = await createLocalStorage(ws);
    openAtSwitch.enabled = false;
    try {
      storage.scanAhead!(["a.txt"]);
      // Read where it is now, not as it was when announced.
      writeFileSync(join(ws, "a.txt"), "changed\n");
      expect(await storage.scanFile!("a.txt", scanning(false))).toBe("8");
    } finally {
      writeFileSync(join(ws, "a.txt"), "alpha\n");
      openAtSwitch.enabled = true;
      storage.endScan!();
    }
  });
});
