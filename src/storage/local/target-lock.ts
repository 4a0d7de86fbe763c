/**
 * Exclusion across processes for replacing one file. The in-process lock
 * (../lock.ts) makes a compare-and-swap true among one server's calls; two
 * servers on one directory (two MCP clients on one checkout) each passed
 * their check and renamed, and both reported success while one change was
 * lost. So the check and the rename run holding a lock file next to the
 * target, created with O_EXCL: the kernel lets one process create it.
 *
 * A lock file says who holds it (`pid host`). One left by a process that
 * died is broken: at once when that process is known gone (same host, no
 * such pid), else once it is older than {@link STALE_LOCK_MS}, far longer
 * than any check and rename take; one whose holder still runs here, only
 * after {@link LIVE_STALE_LOCK_MS}. Anything else under the name (a link,
 * a directory) is judged by its age. Writers that are not toolwarden take
 * no lock; against them a write stays atomic, not compare-and-swap.
 */
import * as fsSync from "node:fs";
import { constants } from "node:fs";
import { hostname } from "node:os";
import { FsError } from "../errors.ts";
import { at } from "./dirfd.ts";
import { nodeErrorCode } from "./node-errors.ts";
import { lockNameFor, tempNameFor } from "./temp-name.ts";

const LOCK_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
/** A lock file older than this is a dead holder's, wherever it ran. */
export const STALE_LOCK_MS = 30_000;
/**
 * One whose holder still runs on this host is broken only after this long:
 * a server stopped (SIGSTOP, a debugger) between its check and its rename
 * must not have its change overwritten when it goes on; a pid that was
 * reused after a crash holds writes up for this long at most.
 */
export const LIVE_STALE_LOCK_MS = 10 * 60_000;
/** How long a write waits for another process's lock before it gives up. */
export const LOCK_WAIT_MS = 10_000;

/** Who holds a lock, as its file says. */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
}

let own: LockHolder | undefined;

/** What this process writes into its lock files. */
export function ownHolder(): LockHolder {
  if (own) return own;
  let host = "";
  try {
    host = hostname().replace(/\s/g, "");
  } catch {
    // Not allowed to ask (a sandboxed runtime): then no pid of ours is judged, only a lock's age.
  }
  own = { pid: process.pid, host };
  return own;
}

/** The holder a lock file's text names, if it names one. */
export function parseHolder(text: string): LockHolder | undefined {
  const match = /^(\d+) (\S*)\n?$/.exec(text);
  return match ? { pid: Number(match[1]), host: match[2] } : undefined;
}

/**
 * Whether a lock file (its holder, if readable, and age in ms) is a dead
 * holder's (pure, given whether `pid` lives on this host).
 */
export function isStale(holder: LockHolder | undefined, ageMs: number, self: LockHolder, alive: (pid: number) => boolean): boolean {
  // A pid means something only on the host that wrote it (and its pid namespace: a different host name
  // is the usual sign of another container).
  const ours = holder !== undefined && holder.host !== "" && holder.host === self.host && holder.pid !== self.pid;
  if (ours) return alive(holder.pid) ? ageMs > LIVE_STALE_LOCK_MS : true;
  // Another host's, or unreadable (being written, or not a lock file at all): by its age alone.
  return ageMs > STALE_LOCK_MS;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return nodeErrorCode(error) !== "ESRCH";
  }
}

/** Release of a held lock: removes the lock file if it is still this holder's. */
export type Unlock = () => void;

/**
 * Hold the lock of the entry `name` of the held directory `dirFd` (for
 * `path`, in messages). Waits while another live process holds it, up to
 * {@link LOCK_WAIT_MS}; then FS_IO_ERROR naming the lock file.
 */
export async function lockTarget(dirFd: number, name: string, path: string): Promise<Unlock> {
  const lockName = lockNameFor(name);
  const self = ownHolder();
  let waitedMs = 0;
  for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
    const held = tryCreate(dirFd, lockName, self, path);
    if (held) return held;
    if (breakIfStale(dirFd, lockName, self)) continue;
    if (waitedMs >= LOCK_WAIT_MS) {
      throw new FsError(
        "FS_IO_ERROR",
        `another toolwarden process has been writing ${path} for over ${LOCK_WAIT_MS / 1000} s (its lock file is ${lockName} in the same directory); ` +
          "nothing was written: send the call again in a moment, and if no other toolwarden server works on this directory, delete that lock file",
        { path },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
    waitedMs += pause;
  }
}

/** Create the lock file; its release, or undefined when another holds it. */
function tryCreate(dirFd: number, lockName: string, self: LockHolder, path: string): Unlock | undefined {
  let fd: number;
  try {
    fd = fsSync.openSync(at(dirFd, lockName), LOCK_FLAGS, 0o644);
  } catch (error) {
    if (nodeErrorCode(error) === "EEXIST") return undefined;
    throw new FsError("FS_IO_ERROR", `cannot create the write lock of ${path} (${lockName}): ${String(error)}`, { cause: error, path });
  }
  let ino: number;
  try {
    fsSync.writeSync(fd, `${self.pid} ${self.host}\n`);
    ino = fsSync.fstatSync(fd).ino;
  } finally {
    fsSync.closeSync(fd);
  }
  return () => {
    try {
      // Only our own file: a lock broken as stale and made anew by another holder is theirs.
      if (fsSync.lstatSync(at(dirFd, lockName)).ino === ino) fsSync.unlinkSync(at(dirFd, lockName));
    } catch {
      // Gone already; a stray would be broken as stale.
    }
  };
}

/** The holder a lock file names; undefined for anything but a small regular file (never follows a link, never blocks). */
function readHolder(full: string): LockHolder | undefined {
  const fd = fsSync.openSync(full, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  try {
    if (!fsSync.fstatSync(fd).isFile()) return undefined;
    const buffer = new Uint8Array(256);
    const n = fsSync.readSync(fd, buffer, 0, buffer.length, 0);
    return parseHolder(new TextDecoder().decode(buffer.subarray(0, n)));
  } finally {
    fsSync.closeSync(fd);
  }
}

/** {@link readHolder}, undefined when it cannot be read (gone, swapped for a link or a socket). */
function readHolderQuietly(full: string): LockHolder | undefined {
  try {
    return readHolder(full);
  } catch {
    return undefined;
  }
}

/** Remove the lock file if its holder is dead; true when it was (or it vanished meanwhile). */
function breakIfStale(dirFd: number, lockName: string, self: LockHolder): boolean {
  const full = at(dirFd, lockName);
  let ino: number;
  let holder: LockHolder | undefined;
  try {
    const stats = fsSync.lstatSync(full);
    ino = stats.ino;
    holder = stats.isFile() ? readHolderQuietly(full) : undefined;
    if (!isStale(holder, Date.now() - stats.mtimeMs, self, pidAlive)) return false;
    // Moved aside, then checked: two processes breaking one stale lock must not remove the fresh lock
    // one of them made in its place.
    const aside = tempNameFor(lockName); // a temp name: hidden, refused as a path, swept if left
    fsSync.renameSync(full, at(dirFd, aside));
    if (fsSync.lstatSync(at(dirFd, aside)).ino !== ino) {
      // A live lock was moved: put it back (link never replaces a lock made since).
      try {
        fsSync.linkSync(at(dirFd, aside), full);
      } catch {
        // A newer lock is in place; the moved one's holder unlocks nothing of ours.
      }
    }
    // A directory planted under the lock's name goes too: left aside, nothing would ever sweep it.
    fsSync.rmSync(at(dirFd, aside), { recursive: true, force: true });
    return true;
  } catch (error) {
    return nodeErrorCode(error) === "ENOENT";
  }
}
