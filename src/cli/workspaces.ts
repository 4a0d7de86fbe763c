/**
 * The workspaces a server (or `call`) reaches, opened through the storage
 * registry: the runtime-neutral providers (memory, s3) plus the local
 * directory, which needs a file system. A local directory is checked, swept
 * of temp files a crashed write left behind, and opened once at start-up;
 * an S3 bucket is probed for conditional writes before anything is served.
 */
import { realpath, stat } from "node:fs/promises";
import { isCodedError } from "../errors.ts";
import { guardStorage } from "../storage/guard.ts";
import { cleanTempFiles, createLocalStorage } from "../storage/local.ts";
import {
  NEUTRAL_PROVIDERS,
  openStorage,
  StorageOpenError,
  type OpenContext,
  type OpenedStorage,
  type StorageProvider,
  type StorageRegistry,
} from "../storage/registry.ts";
import { StartupError } from "./errors.ts";

/** One opened workspace (see {@link OpenedStorage}). */
export type Workspace = OpenedStorage;

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
 * A local directory. With `sweep`, first remove temp files a crashed write
 * left behind (a walk of the whole tree, so the server does it once at
 * start-up, not `call` on every run).
 */
const localProvider: StorageProvider<"local"> = {
  kind: "local",
  async open(spec, context) {
    const real = await realDirectory(spec.dir);
    if (context.sweep) await cleanTempFiles(real, { olderThanMs: TEMP_GRACE_MS });
    return { kind: "local", storage: guardStorage(await createLocalStorage(real)), name: real, where: real, localRoot: real };
  },
};

/** Every kind the command line offers: a directory, memory:, s3://. */
export const CLI_STORAGE: StorageRegistry = { local: localProvider, memory: NEUTRAL_PROVIDERS.memory, s3: NEUTRAL_PROVIDERS.s3 };

/** Open one workspace spec; a failure is one StartupError line naming the spec (and the endpoint) and the reason. */
export async function openWorkspace(spec: string, context: OpenContext): Promise<Workspace> {
  try {
    return await openStorage(CLI_STORAGE, spec, context);
  } catch (error) {
    if (!(error instanceof StorageOpenError)) throw error;
    // A missing directory keeps its own line; a bad spec or setting is the user's to change (2), the rest the environment's (1).
    if (error.cause instanceof StartupError) throw error.cause;
    throw new StartupError(error.message, isCodedError(error.cause) && error.cause.code === "INVALID_ARGUMENT" ? 2 : 1);
  }
}

/** Open (and sweep) each distinct spec once; the map is keyed by the specs as given. */
export async function openWorkspaces(specs: Iterable<string>, context: OpenContext): Promise<Map<string, Workspace>> {
  const opened = new Map<string, Workspace>();
  for (const spec of specs) {
    if (!opened.has(spec)) opened.set(spec, await openWorkspace(spec, { ...context, sweep: true }));
  }
  return opened;
}
