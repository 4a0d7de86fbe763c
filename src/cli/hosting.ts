/**
 * The workspace registry of a hosting server: workspaces as subdirectories
 * of a local directory, or as key prefixes in an S3 bucket
 * (`s3://BUCKET[/PREFIX]`, credentials from the S3_* environment variables).
 */
import { access, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  createMemoryLedger,
  createWorkspaceRegistry,
  hostedStorage,
  prefixBackend,
  type WorkspaceBackend,
  type WorkspaceRegistry,
} from "../http/hosting/mod.ts";
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

/** Workspaces as subdirectories of `root` (an existing directory), swept of temp files a crashed write left. */
export async function localBackend(root: string): Promise<WorkspaceBackend> {
  const real = await realDirectory(root);
  await cleanTempFiles(real, { olderThanMs: TEMP_GRACE_MS });
  await mkdir(join(real, RECORDS_DIR), { recursive: true });
  const records = guardStorage(await createLocalStorage(join(real, RECORDS_DIR)));
  const opened = new Map<string, Storage>();
  return {
    records,
    async files(workspace) {
      let storage = opened.get(workspace);
      if (!storage) {
        const dir = join(real, workspace);
        await mkdir(dir, { recursive: true });
        opened.set(workspace, (storage = await createLocalStorage(dir)));
      }
      return storage;
    },
    async removeFiles(workspace) {
      opened.delete(workspace);
      await rm(join(real, workspace), { recursive: true, force: true });
    },
    history(workspace) {
      const dir = join(real, workspace, RESERVED_SEGMENT, "history");
      let made: Promise<Storage> | undefined;
      const open = () => (made ??= mkdir(dir, { recursive: true }).then(() => createLocalStorage(dir)));
      // Only a write makes the directory: a read (the audit route, the inspector) of a workspace that
      // does not exist, or has recorded nothing yet, finds an empty history and creates nothing.
      const reading = async () =>
        made ??
        ((await access(dir).then(
          () => true,
          () => false,
        ))
          ? open()
          : NOTHING_RECORDED);
      return lazyStorage("local", reading, open);
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
