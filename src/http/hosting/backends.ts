/**
 * Workspace backends that need no file system: one storage per key prefix
 * (S3, R2) or per name (memory). The local backend (a directory per
 * workspace) lives in src/cli, where node:fs may be imported.
 */
import { RESERVED_SEGMENT } from "../../storage/guard.ts";
import { createMemoryStorage } from "../../storage/memory/mod.ts";
import type { ListResult, Storage } from "../../storage/types.ts";
import type { WorkspaceBackend } from "./registry.ts";

/** Where the registry's records live under a prefix; workspace names cannot start with ".", so no workspace reaches it. */
export const RECORDS_PREFIX = ".toolwarden/workspaces/";

/** Deletes in flight at once when a workspace is removed key by key. */
const DELETE_CONCURRENCY = 8;

/** Delete every file of `storage`. */
export async function deleteEveryFile(storage: Storage): Promise<void> {
  let listing: ListResult;
  try {
    listing = await storage.list("", { recursive: true });
  } catch (error) {
    if ((error as { code?: string }).code === "FS_NOT_FOUND") return;
    throw error;
  }
  const files = listing.entries.filter((e) => e.kind === "file").map((e) => e.path);
  for (let i = 0; i < files.length; i += DELETE_CONCURRENCY) {
    await Promise.all(files.slice(i, i + DELETE_CONCURRENCY).map((path) => storage.delete(path)));
  }
}

/** A storage made on its first call (e.g. once a bucket is connected). */
export function deferredStorage(make: () => Storage): Storage {
  let made: Storage | undefined;
  const get = () => (made ??= make());
  return {
    get kind() {
      return made?.kind ?? "deferred";
    },
    stat: (path) => get().stat(path),
    read: (path, options) => get().read(path, options),
    readStream: (path) => {
      const storage = get();
      if (!storage.readStream) return Promise.reject(new Error(`${storage.kind} storage cannot stream`));
      return storage.readStream(path);
    },
    write: (path, bytes, condition) => get().write(path, bytes, condition),
    list: (path, options) => get().list(path, options),
    delete: (path, options) => get().delete(path, options),
  };
}

/**
 * Workspaces as key prefixes: `open(prefix)` gives the storage rooted at a
 * prefix of the bucket; workspace `ws` is `ws/`, the records `.toolwarden/workspaces/`.
 */
export function prefixBackend(open: (prefix: string) => Storage): WorkspaceBackend {
  const files = new Map<string, Storage>();
  const filesOf = (workspace: string) => {
    let storage = files.get(workspace);
    if (!storage) files.set(workspace, (storage = open(`${workspace}/`)));
    return storage;
  };
  return {
    records: open(RECORDS_PREFIX),
    files: filesOf,
    removeFiles: (workspace) => deleteEveryFile(filesOf(workspace)),
    history: (workspace) => open(`${workspace}/${RESERVED_SEGMENT}/history/`),
  };
}

/** Workspaces in memory (tests, `memory:`). */
export function memoryBackend(): WorkspaceBackend {
  const spaces = new Map<string, Storage>();
  const histories = new Map<string, Storage>();
  const filesOf = (workspace: string) => {
    let storage = spaces.get(workspace);
    if (!storage) spaces.set(workspace, (storage = createMemoryStorage()));
    return storage;
  };
  return {
    records: createMemoryStorage(),
    files: filesOf,
    removeFiles: (workspace) => {
      spaces.delete(workspace);
      histories.delete(workspace);
      return Promise.resolve();
    },
    history(workspace) {
      let storage = histories.get(workspace);
      if (!storage) histories.set(workspace, (storage = createMemoryStorage()));
      return storage;
    },
  };
}
