/**
 * The workspace registry of a hosting server: workspaces as subdirectories
 * of a local directory, or as key prefixes in an S3 bucket
 * (`s3://BUCKET[/PREFIX]`, credentials from the S3_* environment variables).
 */
import { constants, openSync } from "node:fs";
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
import { cleanTempFiles, createLocalStorage } from "../storage/local/mod.ts";
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
 * stream) reads its own log, not the next one's.
 */
export async function localBackend(root: string): Promise<WorkspaceBackend> {
  const real = await realDirectory(root);
  await rm(join(real, TRASH_DIR), { recursive: true, force: true });
  await cleanTempFiles(real, { olderThanMs: TEMP_GRACE_MS });
  await mkdir(join(real, RECORDS_DIR), { recursive: true });
  await mkdir(join(real, TRASH_DIR), { recursive: true });
  const records = guardStorage(await createLocalStorage(join(real, RECORDS_DIR)));
  const opened = new Map<string, Storage>();
  return {
    records,
    async files(workspace) {
      let storage = opened.get(workspace);
      if (!storage) {
        const dir = join(real, workspace);
        if (!(await exists(dir))) {
          throw new FsError("FS_NOT_FOUND", `workspace ${JSON.stringify(workspace)} has no files directory (deleted, or never created)`, { path: "" });
        }
        opened.set(workspace, (storage = await createLocalStorage(dir)));
      }
      return storage;
    },
    async makeFiles(workspace) {
      await mkdir(join(real, workspace), { recursive: true });
    },
    async removeFiles(workspace) {
      opened.delete(workspace);
      const trashed = join(real, TRASH_DIR, `${workspace}.${randomTail()}`);
      try {
        await rename(join(real, workspace), trashed);
      } catch (error) {
        if ((error as { code?: string }).code === "ENOENT") return;
        throw error;
      }
      await removeTrashed(trashed);
    },
    history(workspace) {
      return pinnedHistory(join(real, workspace));
    },
  };
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
 * is held open from here on (the descriptor lives as long as the history),
 * and the history is found and made under it, wherever it is moved.
 */
function pinnedHistory(dir: string): Storage {
  let fd: number | undefined;
  const pin = (): number | undefined => {
    if (fd === undefined) {
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
  let made: Promise<Storage> | undefined;
  const open = () =>
    (made ??= Promise.resolve().then(async () => {
      const at = place();
      await mkdir(at, { recursive: true });
      return createLocalStorage(at);
    }));
  // Only a write makes the directory: a read (the audit route, the inspector) of a workspace that
  // does not exist, or has recorded nothing yet, finds an empty history and creates nothing.
  const reading = async () => {
    if (made) return made;
    if (pin() === undefined) return NOTHING_RECORDED;
    return (await exists(place())) ? open() : NOTHING_RECORDED;
  };
  return lazyStorage("local", reading, open);
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
