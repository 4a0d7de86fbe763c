/**
 * The workspace registry of a hosting server: workspaces as subdirectories
 * of a local directory, or as key prefixes in an S3 bucket
 * (`s3://BUCKET[/PREFIX]`, credentials from the S3_* environment variables).
 */
import { closeSync, constants, openSync } from "node:fs";
import { access, mkdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  createMemoryLedger,
  createWorkspaceRegistry,
  hostedStorage,
  prefixBackend,
  type WorkspaceBackend,
  type WorkspaceRegistry,
} from "../http/hosting/mod.ts";
import { randomTail } from "../history/random-tail.ts";
import { FsError } from "../storage/errors.ts";
import { guardStorage, RESERVED_SEGMENT } from "../storage/guard.ts";
import { createFence, type Fence, type FencedOperation, fencedStorage } from "../storage/fence.ts";
import { cleanTempFiles, createLocalStorage, type LocalStorage } from "../storage/local/mod.ts";
import { createMemoryStorage } from "../storage/memory/mod.ts";
import { connectS3Bucket, type S3Bucket, s3ConfigFromSpec } from "../storage/s3/mod.ts";
import type { Storage } from "../storage/types.ts";
import { mcpClientConfig, type BannerInfo } from "./banner.ts";
import { StartupError } from "./errors.ts";
import type { HostingSettings } from "./hosting-settings.ts";

export { hostedStorage };
import { realDirectory } from "./workspaces.ts";

/** Where the registry keeps its records inside a hosting directory (workspace names cannot start with "."). */
const RECORDS_DIR = ".toolwarden/workspaces";

/** A temp file younger than this may be a write in flight in another process: left alone (as for `serve DIR`). */
const TEMP_GRACE_MS = 60_000;

/** Where a DELETE moves a workspace's directory before removing it (on the same file system, so the move is one rename). */
const TRASH_DIR = ".toolwarden/trash";

/**
 * Workspaces as subdirectories of `root` (an existing directory), swept of
 * temp files a crashed write left and of removals a crash cut short.
 *
 * One incarnation of a name never reaches the next. A DELETE first renames
 * the directory into the trash, so the name is free at once and a removal
 * that takes long (or outlives its client) only ever removes the old tree;
 * the files storage and the history of an incarnation act through
 * descriptors of its own directory, so a call or a recording still in flight
 * when it is deleted writes into the trash, never into a workspace created
 * since under the same name, and a reader of its history (an inspector
 * stream) reads its own log, not the next one's. Those descriptors are
 * closed once the directory is removed and the calls using them have
 * ended; a call that starts on them after that is refused (see Holding).
 */
export async function localBackend(root: string): Promise<WorkspaceBackend> {
  const real = await realDirectory(root);
  await rm(join(real, TRASH_DIR), { recursive: true, force: true });
  await cleanTempFiles(real, { olderThanMs: TEMP_GRACE_MS });
  await mkdir(join(real, RECORDS_DIR), { recursive: true });
  await mkdir(join(real, TRASH_DIR), { recursive: true });
  const records = guardStorage(await createLocalStorage(join(real, RECORDS_DIR)));
  const held = new Map<string, Holding>();
  const holdingOf = (workspace: string) => {
    let holding = held.get(workspace);
    if (!holding) held.set(workspace, (holding = { fence: createFence(), closers: [] }));
    return holding;
  };
  return {
    records,
    async files(workspace) {
      const holding = holdingOf(workspace);
      if (holding.files) return holding.files;
      const dir = join(real, workspace);
      if (!(await exists(dir))) throw noFilesDirectory(workspace);
      const local = await createLocalStorage(dir);
      // Removed meanwhile: what it opened may be the trashed directory.
      if (holding.fence.closed) {
        local.close();
        throw noFilesDirectory(workspace);
      }
      if (holding.files) {
        local.close();
        return holding.files;
      }
      holding.closers.push(() => local.close());
      holding.files = fencedStorage(local, holding.fence, directoryGone(workspace));
      return holding.files;
    },
    async makeFiles(workspace) {
      await mkdir(join(real, workspace), { recursive: true });
    },
    async removeFiles(workspace) {
      const trashed = join(real, TRASH_DIR, `${workspace}.${randomTail()}`);
      const moved = await rename(join(real, workspace), trashed).then(
        () => true,
        (error: unknown) => {
          if ((error as { code?: string }).code === "ENOENT") return false;
          throw error;
        },
      );
      // Everything opened until now is of the moved directory (or of none).
      const holding = held.get(workspace);
      if (holding) {
        held.delete(workspace);
        release(holding);
      }
      if (moved) await removeTrashed(trashed);
    },
    history(workspace) {
      const holding = holdingOf(workspace);
      const pinned = pinnedHistory(join(real, workspace));
      holding.closers.push(pinned.close);
      return fencedStorage(pinned.storage, holding.fence, directoryGone(workspace));
    },
  };
}

/**
 * The descriptors a workspace directory's storages hold (its files', its
 * histories'), behind one fence: when the directory is removed they are
 * closed, once no call is using them. A descriptor closed under a call
 * could be reused by the next open, and the call would act in that directory.
 */
interface Holding {
  readonly fence: Fence;
  files?: Storage;
  readonly closers: (() => void)[];
}

/** Refuse new use of `holding`'s storages, and close their descriptors once the calls in flight have ended. */
function release(holding: Holding): void {
  holding.fence.close();
  void holding.fence.drained.then(() => {
    for (const close of holding.closers) close();
  });
}

function noFilesDirectory(workspace: string): FsError {
  return new FsError("FS_NOT_FOUND", `workspace ${JSON.stringify(workspace)} has no files directory (deleted, or never created)`, { path: "" });
}

/** The refusal of a storage operation begun after the workspace's directory was removed. */
function directoryGone(workspace: string) {
  return (path: string, what: FencedOperation) => new FsError("FS_NOT_FOUND", `workspace ${JSON.stringify(workspace)} was deleted: ${path} ${what}`, { path });
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** Attempts to remove a trashed tree while calls still in flight finish writing into it. */
const TRASH_ATTEMPTS = 5;

/**
 * Remove a trashed workspace tree. A call that was writing when the DELETE
 * came may still add a file to it while it is removed; once its top
 * directory is gone nothing can be added. What is left after a few tries is
 * removed at the next start.
 */
async function removeTrashed(trashed: string): Promise<void> {
  for (let attempt = 1; attempt <= TRASH_ATTEMPTS; attempt++) {
    await rm(trashed, { recursive: true, force: true }).catch(() => undefined);
    if (!(await exists(trashed))) return;
    await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
  }
}

/**
 * The history of the workspace directory `dir` as it is now: its directory
 * is held open from here on (until `close`), and the history is found and
 * made under it, wherever it is moved.
 */
function pinnedHistory(dir: string): { storage: Storage; close(): void } {
  let fd: number | undefined;
  let closed = false;
  const pin = (): number | undefined => {
    if (fd === undefined && !closed) {
      try {
        fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
      } catch {
        // No directory yet (or any more): nothing recorded to read; a write finds out below.
      }
    }
    return fd;
  };
  pin();
  const place = () => {
    const held = pin();
    if (held === undefined) throw new FsError("FS_NOT_FOUND", `workspace directory not found: ${dir}`, { path: "" });
    return `/proc/self/fd/${held}/${RESERVED_SEGMENT}/history`;
  };
  let made: Promise<LocalStorage> | undefined;
  const open = () =>
    (made ??= Promise.resolve().then(async () => {
      const at = place();
      await mkdir(at, { recursive: true });
      return createLocalStorage(at);
    }));
  // Only a write makes the directory: a read (the audit route, the inspector) of a workspace that
  // does not exist, or has recorded nothing yet, finds an empty history and creates nothing.
  const reading = async (): Promise<Storage> => {
    if (made) return made;
    if (pin() === undefined) return NOTHING_RECORDED;
    return (await exists(place())) ? open() : NOTHING_RECORDED;
  };
  return {
    storage: lazyStorage("local", reading, open),
    close() {
      closed = true;
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
      void made?.then(
        (storage) => storage.close(),
        () => undefined,
      );
    },
  };
}

/** Workspaces as key prefixes of `s3://BUCKET[/PREFIX]`; endpoint and keys from the environment (as for `serve s3://...`). */
export async function s3Backend(location: string, env: Readonly<Record<string, string | undefined>>): Promise<WorkspaceBackend> {
  const match = /^s3:\/\/([^/]+)\/?(.*)$/.exec(location);
  if (!match) throw new StartupError(`--workspaces ${location}: use s3://BUCKET or s3://BUCKET/PREFIX`);
  // One probe of conditional writes for the whole bucket; each workspace's storage is handed out without another.
  let bucket: S3Bucket;
  try {
    bucket = await connectS3Bucket(s3ConfigFromSpec(match[1], match[2], { ...env }));
  } catch (error) {
    throw new StartupError(`--workspaces ${location}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const connected = bucket;
  return prefixBackend((prefix) => connected.storage(prefix.replace(/\/$/, "")));
}

/** What a history never written to reads as. */
const NOTHING_RECORDED: Storage = createMemoryStorage();

/** A storage made on first use: reads through `reading`, writes (which may create its place) through `writing`. */
function lazyStorage(kind: string, reading: () => Promise<Storage>, writing: () => Promise<Storage>): Storage {
  return {
    kind,
    stat: async (path) => (await reading()).stat(path),
    read: async (path, options) => (await reading()).read(path, options),
    readStream: async (path) => {
      const storage = await reading();
      if (!storage.readStream) throw new Error("no readStream");
      return storage.readStream(path);
    },
    write: async (path, bytes, condition) => (await writing()).write(path, bytes, condition),
    list: async (path, options) => (await reading()).list(path, options),
    delete: async (path, options) => (await reading()).delete(path, options),
  };
}

/** The registry for `settings`. */
export async function openRegistry(settings: HostingSettings, env: Readonly<Record<string, string | undefined>>, history: boolean): Promise<WorkspaceRegistry> {
  const backend = settings.location.startsWith("s3://") ? await s3Backend(settings.location, env) : await localBackend(settings.location);
  return createWorkspaceRegistry({
    backend,
    ledger: createMemoryLedger(),
    defaultQuota: settings.quota,
    importLimits: settings.importLimits,
    history,
  });
}

/** The start-up banner of a hosting server: where workspaces live and how to create one. */
export function renderHostingBanner(info: BannerInfo): string {
  const { auth } = info;
  const lines = [`toolwarden ${info.version} hosting workspaces in ${info.root}`, `  url:    ${info.url}`];
  if (auth.mode === "bearer") {
    if (auth.source === "config") {
      if (auth.grants.length > 0) lines.push(`  tokens: ${auth.grants.length} from the config file (not shown)`);
    } else
      lines.push(
        `  admin token: ${auth.grants[0].token}  (global admin, ${auth.source === "generated" ? "generated for this run" : `from ${auth.source === "env" ? "TOOLWARDEN_TOKEN" : "--token"}`})`,
      );
    if (auth.jwt) lines.push(`  signed tokens: ${auth.jwt.keys.length} key(s); mint with toolwarden token mint`);
  }
  lines.push(
    `  tools:  ${info.tools.join(", ")}`,
    "",
    "Create a workspace from a tar.gz (docs/hosting.md):",
    `  curl -s -X PUT -H "Authorization: Bearer $ADMIN" -H "Content-Type: application/gzip" --data-binary @seed.tar.gz ${info.url}/v1/workspaces/ws1`,
    "",
    "MCP client configuration for an agent (with a token minted for its workspace):",
    JSON.stringify(mcpClientConfig(info.url, "<agent token>"), null, 2),
    "",
  );
  return lines.join("\n");
}
