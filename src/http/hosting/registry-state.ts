/**
 * What the registry's parts (./creation.ts, ./imports.ts, ./removal.ts,
 * ./workspace-storage.ts) share: the registry's options and what this
 * process holds per workspace. One object, passed to each of them.
 */
import type { HistoryStore } from "../../history/mod.ts";
import type { Fence } from "../../storage/fence.ts";
import type { Storage } from "../../storage/types.ts";
import { createDirectoryCounts, type DirectoryCounts } from "./directories.ts";
import type { RunningImport } from "./imports.ts";
import type { RegistryOptions } from "./registry.ts";

export interface RegistryState {
  readonly options: RegistryOptions;
  // One storage per workspace, quota and fence, so the host's per-storage guard is reused across calls.
  readonly opened: Map<string, { key: string; fence: Fence; storage: Storage }>;
  /** Which creation of each workspace the last `storage` call found. */
  readonly incarnations: Map<string, string>;
  readonly histories: Map<string, { fence: Fence; history: HistoryStore }>;
  /**
   * The fence of each name's storages and histories handed out in this process (./fences.ts): a DELETE
   * closes it, waits for their operations in flight, and drops it once the name is free.
   */
  readonly fences: Map<string, Fence>;
  /** Imports in flight in this process, so a DELETE stops them (./imports.ts). */
  readonly running: Map<string, RunningImport>;
  /** Called with the name after each DELETE. */
  readonly removeListeners: ((workspace: string) => void)[];
  /** Directories of workspaces on local storage, against their cap (./directories.ts). */
  readonly directories: DirectoryCounts;
}

export function createRegistryState(options: RegistryOptions): RegistryState {
  return {
    options,
    opened: new Map(),
    incarnations: new Map(),
    histories: new Map(),
    fences: new Map(),
    running: new Map(),
    removeListeners: [],
    directories: createDirectoryCounts(),
  };
}
