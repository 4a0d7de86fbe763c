/**
 * The files a search said it will scan next (`Storage.scanAhead`), read on
 * the pool's thread (./scan-pool.ts) while the main thread walks and
 * matches: each path's read, taken once by its scan (./scan.ts).
 *
 * Bounded: at most {@link AHEAD_FILES} files announced and not yet taken
 * (each at most `POOL_FILE_BYTES`), all let go when the search ends. A
 * directory's descriptor is pinned in the cache while the worker reads
 * through it.
 */
import type { DirCache } from "./dir-cache.ts";
import { plainSegment } from "./openat.ts";
import type { ScanPool } from "./scan-pool.ts";
import { isTempName } from "./temp-name.ts";

/** Most files announced and not taken. */
export const AHEAD_FILES = 256;
/** Most files in one job of the worker. */
export const JOB_FILES = 128;

export interface ScanAhead {
  /** Start reading `paths` (normalised, in the order they will be scanned), as far as the bound allows. */
  announce(paths: readonly string[]): void;
  /** The read started for `path`, once (undefined when none): its bytes, or undefined when the worker left it. */
  take(path: string): Promise<Uint8Array | undefined> | undefined;
  /** Let go of every read not taken. */
  clear(): void;
  /** How many reads are held (for tests). */
  readonly size: number;
}

export function createScanAhead(dirs: DirCache, pool: ScanPool): ScanAhead {
  const reads = new Map<string, Promise<Uint8Array | undefined>>();

  /** One job of files from any directories; each directory pinned until the job is done. */
  const startJob = (paths: string[], names: string[], dirFds: number[]) => {
    const job = pool.readFiles(Int32Array.from(dirFds), names).finally(() => {
      for (const fd of new Set(dirFds)) dirs.unpin(fd);
    });
    paths.forEach((path, i) => {
      reads.set(
        path,
        job.then((files) => files[i]),
      );
    });
  };

  return {
    announce(paths) {
      let group: string[] = [];
      let names: string[] = [];
      let dirFds: number[] = [];
      const pinned = new Map<string, number | undefined>();
      const announced = new Set<string>();
      // Every directory pinned here has a file in the job, which unpins it when done.
      const flush = () => {
        if (names.length > 0) startJob(group, names, dirFds);
        group = [];
        names = [];
        dirFds = [];
        pinned.clear();
      };
      for (const path of paths) {
        if (reads.size + names.length >= AHEAD_FILES) break;
        if (reads.has(path) || announced.has(path)) continue;
        announced.add(path);
        const slash = path.lastIndexOf("/");
        const name = path.slice(slash + 1);
        if (!plainSegment(name) || isTempName(name)) continue;
        const dir = slash === -1 ? "" : path.slice(0, slash);
        // One pin per directory per job.
        if (!pinned.has(dir)) pinned.set(dir, dirs.pin(dir));
        const dirFd = pinned.get(dir);
        if (dirFd === undefined) continue;
        group.push(path);
        names.push(name);
        dirFds.push(dirFd);
        if (names.length === JOB_FILES) flush();
      }
      flush();
    },
    take(path) {
      const read = reads.get(path);
      if (read !== undefined) reads.delete(path);
      return read;
    },
    clear() {
      reads.clear();
    },
    get size() {
      return reads.size;
    },
  };
}
