/**
 * A second thread for a search's reads. A search of a tree of small files
 * is system calls (open, fstat, read, close: ~85% of its time, see
 * docs/performance.md), and they scale with threads: 13,409 files read on
 * one thread in ~100 ms, on two in ~56 ms here. So the files a search will
 * scan next are read by a worker while the main thread walks, judges and
 * matches.
 *
 * The worker opens each file exactly as the main thread's scan does:
 * openat(2) on the directory's descriptor (pinned for the job, see
 * ./dir-cache.ts) with O_NOFOLLOW, a regular file by fstat, the bytes
 * read; it keeps no descriptor. Nothing it reads is shown unproven: a
 * file whose content a search will show is read again the careful way
 * (./scan.ts).
 *
 * Where it runs: Bun on Linux x64 and arm64 (openat through Bun's FFI, as
 * ./openat.ts). Anywhere else, or if the worker fails, there is no pool and
 * the main thread reads every file itself, as before.
 */
import { O_CLOEXEC } from "./openat.ts";
import { READ_FLAGS } from "./read.ts";

/**
 * Largest file the worker reads. Larger ones are read by the main thread,
 * which judges their head first: past this size a read is more copying
 * (into the answer, then across threads) than system calls.
 */
export const POOL_FILE_BYTES = 64 * 1024;
/** Longest name passed (NAME_MAX is 255 bytes; the buffer leaves room for the NUL). */
const MAX_NAME_BYTES = 1024;

/** Reads small files on another thread. */
export interface ScanPool {
  /**
   * The files `names[i]` (single segments) of the directories open as
   * `dirFds[i]`, each as its bytes, or undefined when the worker did not
   * read it (gone, not a regular file, over {@link POOL_FILE_BYTES},
   * growing, any error): the caller then reads it its own way. Every
   * descriptor must stay open until the promise settles. Never rejects.
   */
  readFiles(dirFds: Int32Array, names: readonly string[]): Promise<(Uint8Array | undefined)[]>;
}

/** What the worker answers for one job. */
interface JobAnswer {
  readonly id: number;
  readonly sizes: Int32Array;
  readonly bytes: ArrayBuffer;
}

/**
 * The worker. A string, so it needs no file of its own in a bundle or a
 * single executable. It answers `{ failed }` once if it cannot start.
 */
const WORKER_SOURCE = `
import { dlopen } from "bun:ffi";
import { closeSync, fstatSync, readSync } from "node:fs";
let openat;
try {
  openat = dlopen("libc.so.6", { openat: { args: ["i32", "ptr", "i32", "i32"], returns: "i32" } }).symbols.openat;
} catch (error) {
  postMessage({ failed: String(error) });
}
const encoder = new TextEncoder();
const name = new Uint8Array(${MAX_NAME_BYTES + 1});
// Reused from job to job: an answer copies out only the bytes read.
let out = new Uint8Array(1 << 20);
function readOne(fd, maxBytes, at) {
  const stats = fstatSync(fd);
  if (!stats.isFile() || stats.size > maxBytes) return -1;
  // One byte past the size: a file that grew since the fstat is left to the main thread.
  const want = stats.size + 1;
  if (at + want > out.length) {
    const larger = new Uint8Array(Math.max(out.length * 2, at + want));
    larger.set(out.subarray(0, at));
    out = larger;
  }
  let filled = 0;
  while (filled < want) {
    const n = readSync(fd, out, at + filled, want - filled, filled);
    // A first read that stops at the size is the end (as the main thread's scan takes it).
    if (n === 0 || (filled === 0 && n === stats.size)) return n === 0 ? filled : n;
    filled += n;
  }
  return filled > stats.size ? -1 : filled;
}
self.onmessage = ({ data }) => {
  if (!openat) return;
  const { id, dirFds, joined, flags, maxBytes } = data;
  // One string crosses threads faster than an array of them; a name holds no NUL.
  const names = joined.split("\\0");
  const sizes = new Int32Array(dirFds.length).fill(-1);
  if (names.length !== dirFds.length) return postMessage({ id, sizes, bytes: new ArrayBuffer(0) });
  let used = 0;
  for (let i = 0; i < names.length; i++) {
    const entry = names[i];
    // One entry of the directory itself, never a path (the caller checked too).
    if (entry === "" || entry === "." || entry === ".." || entry.includes("/") || entry.includes("\\0")) continue;
    const { read, written } = encoder.encodeInto(entry, name.subarray(0, ${MAX_NAME_BYTES}));
    if (read !== entry.length) continue;
    name[written] = 0;
    const fd = openat(dirFds[i], name, flags, 0);
    if (fd < 0) continue;
    try {
      const n = readOne(fd, maxBytes, used);
      if (n >= 0) { sizes[i] = n; used += n; }
    } catch {
      // Left to the main thread, which words the error.
    } finally {
      try { closeSync(fd); } catch {}
    }
  }
  const bytes = out.buffer.slice(0, used);
  postMessage({ id, sizes, bytes }, [bytes]);
};
`;

/** Split a job's answer into each file's bytes. */
export function splitAnswer(sizes: Int32Array, bytes: ArrayBuffer): (Uint8Array | undefined)[] {
  const files: (Uint8Array | undefined)[] = [];
  let at = 0;
  for (const size of sizes) {
    if (size < 0) files.push(undefined);
    else {
      files.push(new Uint8Array(bytes, at, size));
      at += size;
    }
  }
  return files;
}

/** Whether this runtime may have a pool: Bun on Linux x64 or arm64, with workers. */
export function poolPossible(): boolean {
  if (typeof (globalThis as { Bun?: unknown }).Bun === "undefined" || typeof Worker !== "function") return false;
  return process.platform === "linux" && (process.arch === "x64" || process.arch === "arm64");
}

/** Start the pool's worker; undefined when this runtime cannot. */
function startPool(): ScanPool | undefined {
  if (!poolPossible()) return undefined;
  let worker: Worker;
  try {
    worker = new Worker(URL.createObjectURL(new Blob([WORKER_SOURCE], { type: "application/javascript" })));
  } catch {
    return undefined;
  }
  // An idle pool must not keep the process alive.
  (worker as { unref?: () => void }).unref?.();
  const pending = new Map<number, (files: (Uint8Array | undefined)[]) => void>();
  let nextId = 0;
  let failed = false;
  const fail = () => {
    failed = true;
    for (const [id, resolve] of pending) {
      pending.delete(id);
      resolve([]);
    }
    worker.terminate();
  };
  worker.addEventListener("error", fail);
  worker.addEventListener("message", (event: MessageEvent) => {
    const answer = event.data as JobAnswer | { failed: string };
    if ("failed" in answer) return fail();
    const resolve = pending.get(answer.id);
    pending.delete(answer.id);
    resolve?.(splitAnswer(answer.sizes, answer.bytes));
  });
  return {
    readFiles(dirFds, names) {
      if (failed || names.length === 0) return Promise.resolve([]);
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        // A name with a NUL in it is sent as "" (which no file has): it must not split into two.
        const joined = names.map((name) => (name.includes("\0") ? "" : name)).join("\0");
        worker.postMessage({ id, dirFds, joined, flags: READ_FLAGS | O_CLOEXEC, maxBytes: POOL_FILE_BYTES });
      });
    },
  };
}

let pool: ScanPool | undefined | null;

/** The process's pool (started on first use), or undefined where there is none. */
export function scanPool(): ScanPool | undefined {
  if (pool === undefined) pool = startPool() ?? null;
  return pool ?? undefined;
}
