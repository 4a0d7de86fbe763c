/**
 * A workspace as the registry opens it: its files behind the guard, the
 * quota over them (usage counted once into the ledger), and its audit log
 * and history. The storage and history are kept per workspace in this
 * process until a DELETE forgets them.
 */
import { createStorageHistory, type HistoryStore } from "../../history/mod.ts";
import { isFsError } from "../../storage/errors.ts";
import type { Fence } from "../../storage/fence.ts";
import { guardStorage } from "../../storage/guard.ts";
import type { Storage } from "../../storage/types.ts";
import { WORKSPACE_NAME } from "../jwt.ts";
import { fenced, fenceOf } from "./fences.ts";
import type { Quota, Usage } from "./ledger.ts";
import { type QuotaStorageOptions, quotaStorage } from "./quota-storage.ts";
import { incarnationOf, readRecord, type WorkspaceRecord } from "./records.ts";
import type { RegistryState } from "./registry-state.ts";

/** Count a workspace's files, bytes and directories (one full listing). */
export async function countWorkspace(files: Storage): Promise<{ usage: Usage; directories: number }> {
  try {
    const listing = await files.list("", { recursive: true });
    let bytes = 0;
    let count = 0;
    let directories = 0;
    for (const entry of listing.entries) {
      if (entry.kind === "directory") directories++;
      if (entry.kind !== "file") continue;
      bytes += entry.size;
      count++;
    }
    return { usage: { bytes, files: count }, directories };
  } catch (error) {
    if (isFsError(error) && error.code === "FS_NOT_FOUND") return { usage: { bytes: 0, files: 0 }, directories: 0 };
    throw error;
  }
}

/** Count a workspace's files and bytes (a full listing). */
export async function countUsage(files: Storage): Promise<Usage> {
  return (await countWorkspace(files)).usage;
}

/** Forget the workspace's counters (usage and directories). */
export async function clearCounts(state: RegistryState, workspace: string): Promise<void> {
  state.directories.clear(workspace);
  await state.options.ledger.clear(workspace);
}

/** Set the workspace's counters from a count of `files` (or to nothing at all), unless they are known already. */
export async function initCounts(state: RegistryState, workspace: string, files: Storage | "empty"): Promise<void> {
  const counted = files === "empty" ? { usage: { bytes: 0, files: 0 }, directories: 0 } : await countWorkspace(files);
  state.directories.init(workspace, counted.directories);
  await state.options.ledger.init(workspace, counted.usage);
}

/** Make the place of a new workspace's files (see WorkspaceBackend.makeFiles). */
export async function makeFilesOf(state: RegistryState, workspace: string): Promise<void> {
  await state.options.backend.makeFiles?.(workspace);
}

/** A workspace's raw files through the guard: imports cannot write, and counts and exports do not see, the reserved `.toolwarden/`. */
export async function filesOf(state: RegistryState, workspace: string): Promise<Storage> {
  return guardStorage(await state.options.backend.files(workspace));
}

/**
 * What a quota storage of the workspace needs: its usage is counted from `files` the first time the ledger
 * lacks it. With `incarnation`, "deleted" means that creation of the name is gone, even if another took its place.
 */
export function quotaOptions(state: RegistryState, workspace: string, files: Storage, quota: Quota, incarnation?: string): QuotaStorageOptions {
  const { backend, ledger } = state.options;
  return {
    workspace,
    quota,
    ledger,
    ensureUsage: () => initCounts(state, workspace, files),
    deleted: async () => {
      const found = await readRecord(backend.records, workspace);
      return found === undefined || (incarnation !== undefined && incarnationOf(found.record) !== incarnation);
    },
    // Only local storage has directories of its own (object stores and memory have none to count).
    ...(files.kind === "local" ? { directories: state.directories } : {}),
  };
}

/** The workspace's usage from the ledger, counted first when the ledger does not know it. */
export async function usageOf(state: RegistryState, workspace: string): Promise<Usage> {
  const { ledger } = state.options;
  const known = await ledger.usage(workspace);
  if (known) return known;
  await initCounts(state, workspace, await filesOf(state, workspace));
  return (await ledger.usage(workspace)) ?? { bytes: 0, files: 0 };
}

/**
 * The quota-guarded storage of a ready workspace (`record`) behind `fence` (./fences.ts), reused while
 * its quota and fence stay the same.
 */
export async function openStorage(state: RegistryState, workspace: string, record: WorkspaceRecord, fence: Fence): Promise<Storage> {
  state.incarnations.set(workspace, incarnationOf(record));
  const key = JSON.stringify(record.quota);
  const cached = state.opened.get(workspace);
  if (cached?.key === key && cached.fence === fence) return cached.storage;
  const files = await filesOf(state, workspace);
  const storage = fenced(workspace, quotaStorage(files, quotaOptions(state, workspace, files, record.quota, incarnationOf(record))), fence);
  if (!fence.closed) state.opened.set(workspace, { key, fence, storage });
  return storage;
}

/**
 * The workspace's audit log and history, behind the name's current fence (./fences.ts); undefined
 * without history or for a name that is no workspace.
 */
export function openHistory(state: RegistryState, workspace: string): HistoryStore | undefined {
  const { options, histories } = state;
  if (options.history === false || !options.backend.history || !WORKSPACE_NAME.test(workspace)) return undefined;
  const fence = fenceOf(state, workspace);
  let cached = histories.get(workspace);
  if (cached?.fence !== fence) {
    const storage = fenced(workspace, options.backend.history(workspace), fence);
    cached = { fence, history: createStorageHistory(storage, { bounds: options.historyBounds ?? {} }) };
    histories.set(workspace, cached);
  }
  return cached.history;
}

/** Drop what this process caches of the workspace. */
export function forget(state: RegistryState, workspace: string): void {
  state.opened.delete(workspace);
  state.incarnations.delete(workspace);
  state.histories.delete(workspace);
}
