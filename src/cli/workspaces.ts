/**
 * The local directories a server reaches: each is checked, swept of temp
 * files a crashed write left behind, and opened once at start-up.
 */
import { realpath, stat } from "node:fs/promises";
import { isFsError } from "../storage/errors.ts";
import { guardStorage } from "../storage/guard.ts";
import { cleanTempFiles, createLocalStorage } from "../storage/local/mod.ts";
import type { Storage } from "../storage/types.ts";
import { StartupError } from "./errors.ts";

/** One opened workspace. */
export interface Workspace {
  /** Real (symlink-free) path of the directory. */
  readonly real: string;
  readonly storage: Storage;
}

/** The real path of `dir`, which must be an existing directory. */
export async function realDirectory(dir: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(dir);
  } catch {
    throw new StartupError(`${dir}: no such directory`);
  }
  if (!(await stat(real)).isDirectory()) throw new StartupError(`${dir}: not a directory`);
  return real;
}

/**
 * A temp file younger than this may be a write in flight in another process
 * on the same directory (a second server, a `toolwarden call`): left alone.
 */
const TEMP_GRACE_MS = 60_000;

/**
 * Open one directory as guarded local storage. With `sweep`, first remove
 * temp files a crashed write left behind (a walk of the whole tree, so the
 * server does it once at start-up, not `call` on every run).
 */
export async function openWorkspace(dir: string, sweep: boolean): Promise<Workspace> {
  const real = await realDirectory(dir);
  if (sweep) await cleanTempFiles(real, { olderThanMs: TEMP_GRACE_MS });
  let storage;
  try {
    storage = await createLocalStorage(real);
  } catch (error) {
    // The provider's refusal to serve without what keeps writes inside (see storage/local/dirfd.ts).
    if (isFsError(error)) throw new StartupError(`${dir}: ${error.message}`, 1);
    throw error;
  }
  return { real, storage: guardStorage(storage) };
}

/** Open (and sweep) each distinct directory once; the map is keyed by the paths as given. */
export async function openWorkspaces(dirs: Iterable<string>): Promise<Map<string, Workspace>> {
  const opened = new Map<string, Workspace>();
  for (const dir of dirs) {
    if (!opened.has(dir)) opened.set(dir, await openWorkspace(dir, true));
  }
  return opened;
}
