/**
 * Hosted workspaces: which exist, their quotas, their usage, and their
 * storage. A backend says where workspaces live (a local directory per
 * workspace, or a key prefix per workspace in S3 or R2); the registry keeps
 * one small record per workspace beside them (`<name>.json` in the
 * backend's `records` storage, which no workspace can reach) and gates tool
 * access on it: a workspace is served only once its record says `ready`, so
 * an import in progress, a failed import or a deleted workspace is never
 * visible to an agent.
 */
import { CodedError } from "../../errors.ts";
import type { HistoryBounds, HistoryStore } from "../../history/mod.ts";
import { FsError } from "../../storage/errors.ts";
import type { Fence } from "../../storage/fence.ts";
import type { Storage } from "../../storage/types.ts";
import { WORKSPACE_NAME } from "../jwt.ts";
import { exportArchive, type ImportLimits, type ImportReport } from "./archive.ts";
import { createWorkspace } from "./creation.ts";
import { beingDeleted, fenced, fenceOf } from "./fences.ts";
import type { Quota, Usage, UsageLedger } from "./ledger.ts";
import { deletes, listRecords, readRecord, readTombstone, staleToken, type WorkspaceRecord } from "./records.ts";
import { createRegistryState, type RegistryState } from "./registry-state.ts";
import { removeWorkspace } from "./removal.ts";
import { filesOf, openHistory, openStorage, usageOf } from "./workspace-storage.ts";

export { countUsage } from "./workspace-storage.ts";

/** Where workspaces live. */
export interface WorkspaceBackend {
  /** Holds the registry's records; never reachable from a workspace. */
  readonly records: Storage;
  /** A workspace's files (raw; the registry adds the quota). */
  files(workspace: string): Storage | Promise<Storage>;
  /**
   * Make the place of a new workspace's files (a directory, on local storage), which `files` then
   * never makes: a call still in flight when its workspace is deleted must not make it again.
   */
  makeFiles?(workspace: string): Promise<void>;
  /** Remove every file of a workspace (its history too). */
  removeFiles(workspace: string): Promise<void>;
  /** Where a workspace's audit log and history live (under its reserved `.toolwarden/`, which no tool reaches). */
  history?(workspace: string): Storage;
}

/** Where a workspace stands when it is not ready (for GET's answer). */
export type WorkspaceState = { readonly state: "absent" } | { readonly state: "importing"; readonly since: string };

/** What `GET /v1/workspaces/{ws}` reports. */
export interface WorkspaceInfo {
  readonly workspace: string;
  readonly createdAt: string;
  readonly usage: Usage;
  readonly quota: Quota;
}

/** An archive to seed a new workspace with. */
export interface ArchiveSource {
  readonly body: ReadableStream<Uint8Array>;
  readonly gzip: boolean;
}

/** Outcome of {@link WorkspaceRegistry.create}. */
export interface CreateOutcome {
  readonly created: boolean;
  readonly info: WorkspaceInfo;
  readonly imported?: ImportReport;
}

/** Options of {@link WorkspaceRegistry.create}. */
export interface CreateOptions {
  readonly quota?: Partial<Quota>;
  readonly archive?: ArchiveSource;
  /**
   * Whether the caller may raise a quota above the current one (or above the
   * default, for a new workspace): a global admin may, a workspace-bound one
   * only keeps or lowers it. Default true.
   */
  readonly mayRaiseQuota?: boolean;
}

/** The control plane's view of workspaces. */
export interface WorkspaceRegistry {
  /** Create (idempotent; a quota given for an existing workspace replaces its quota). */
  create(workspace: string, options?: CreateOptions): Promise<CreateOutcome>;
  info(workspace: string): Promise<WorkspaceInfo | undefined>;
  /** Why a workspace has no info: none, or an import still running (and since when). */
  state(workspace: string): Promise<WorkspaceState>;
  /**
   * Why a signed token (bound to `workspace`) may not reach it, or undefined:
   * it was issued no later than the name's last deletion, so it belongs to an
   * earlier workspace of that name. `orDeleted`: also when the name is
   * deleted and not created again (a PUT must not re-create it with such a token).
   */
  staleToken(workspace: string, iat: number | undefined, orDeleted?: boolean): Promise<string | undefined>;
  /** Called with the name after each DELETE (e.g. to end the workspace's MCP sessions). */
  onRemove(listener: (workspace: string) => void): void;
  list(): Promise<string[]>;
  /** Remove the workspace and its files; false when there was none. */
  remove(workspace: string): Promise<boolean>;
  /** The storage tools use: quota enforced. Throws FS_NOT_FOUND (as a CodedError) for a workspace that is not ready. */
  storage(workspace: string): Promise<Storage>;
  /** The workspace's files as a tar.gz stream. */
  archive(workspace: string): Promise<ReadableStream<Uint8Array>>;
  /** The workspace's audit log and history; undefined without history or for a name that is no workspace. */
  history(workspace: string): HistoryStore | undefined;
  /**
   * Which creation of the workspace the last `storage` call found (a random
   * id per creation), so a workspace deleted and created again under the same
   * name starts with fresh observation sessions (see ./sessions.ts).
   */
  incarnation(workspace: string): string | undefined;
}

/** What {@link createWorkspaceRegistry} needs. */
export interface RegistryOptions {
  readonly backend: WorkspaceBackend;
  readonly ledger: UsageLedger;
  /** Quota of a workspace created without one. */
  readonly defaultQuota: Quota;
  readonly importLimits?: ImportLimits;
  /** Keep an audit log and history per workspace (when the backend has a place for it). Default true. */
  readonly history?: boolean;
  /** Each workspace's history bounds (docs/history.md, "Bounds"); those not given are the defaults. */
  readonly historyBounds?: Partial<HistoryBounds>;
}

/** Default quota: 1 GiB in 100 000 files. */
export const DEFAULT_QUOTA: Quota = { maxBytes: 1024 * 1024 * 1024, maxFiles: 100_000 };

/** Throws INVALID_ARGUMENT unless `name` is a workspace name. */
export function checkWorkspaceName(name: string): void {
  if (!WORKSPACE_NAME.test(name)) {
    throw new CodedError(
      "INVALID_ARGUMENT",
      `${JSON.stringify(name.slice(0, 140))} is not a workspace name: use 1-128 of A-Z a-z 0-9 . _ - starting with a letter or digit.`,
    );
  }
}

function notReady(workspace: string, since: string): CodedError {
  return new FsError(
    "FS_NOT_FOUND",
    `workspace ${JSON.stringify(workspace)} is being imported (since ${since}) and is not ready yet; try again once the admin's PUT has answered`,
  );
}

function notFound(workspace: string): CodedError {
  return new FsError("FS_NOT_FOUND", `workspace ${JSON.stringify(workspace)} does not exist; an admin creates it with PUT /v1/workspaces/${workspace}`);
}

/** The record of a ready workspace; FS_NOT_FOUND (saying why) for one importing, absent or being deleted. */
async function ready(records: Storage, workspace: string): Promise<WorkspaceRecord> {
  checkWorkspaceName(workspace);
  // The tombstone too: from a DELETE's first step (in any process) every token is refused, static ones
  // included, which no tombstone refuses otherwise; this process's own DELETEs also close the fence.
  const [found, tombstone] = await Promise.all([readRecord(records, workspace), readTombstone(records, workspace)]);
  if (found?.record.state === "importing") throw notReady(workspace, found.record.created);
  if (found?.record.state !== "ready") throw notFound(workspace);
  if (deletes(tombstone, found.record)) throw beingDeleted(workspace, tombstone.deletedAt);
  return found.record;
}

/** Attempts to find a workspace ready under a fence that no DELETE closed meanwhile (one came and went: look again). */
const FENCE_ATTEMPTS = 3;

/**
 * The record of a ready workspace and the fence its storages go behind (./fences.ts): taken before
 * the record is read, so a DELETE that begins meanwhile has closed it by the time it is used.
 */
async function readyUnderFence(state: RegistryState, workspace: string): Promise<{ record: WorkspaceRecord; fence: Fence }> {
  for (let attempt = 1; ; attempt++) {
    const fence = fenceOf(state, workspace);
    if (fence.closed) throw beingDeleted(workspace);
    const record = await ready(state.options.backend.records, workspace);
    if (!fence.closed) return { record, fence };
    if (state.fences.get(workspace) === fence || attempt >= FENCE_ATTEMPTS) throw beingDeleted(workspace);
  }
}

/**
 * Build the registry over a backend. The methods check workspace names
 * here and hand the shared state to the modules that do the jobs: ./records.ts
 * (records and tombstones), ./creation.ts (PUT: ./quota-change.ts, and
 * ./imports.ts for an archive), ./removal.ts (DELETE),
 * ./workspace-storage.ts (storage, usage and history).
 */
export function createWorkspaceRegistry(options: RegistryOptions): WorkspaceRegistry {
  const { backend } = options;
  const state = createRegistryState(options);
  return {
    async create(workspace, createOptions) {
      checkWorkspaceName(workspace);
      return createWorkspace(state, workspace, createOptions);
    },
    async info(workspace) {
      checkWorkspaceName(workspace);
      const found = await readRecord(backend.records, workspace);
      if (found?.record.state !== "ready") return undefined;
      return { workspace, createdAt: found.record.created, usage: await usageOf(state, workspace), quota: found.record.quota };
    },
    list: () => listRecords(backend.records),
    async remove(workspace) {
      checkWorkspaceName(workspace);
      return removeWorkspace(state, workspace);
    },
    state: async (workspace) => {
      checkWorkspaceName(workspace);
      const found = await readRecord(backend.records, workspace);
      return found?.record.state === "importing" ? { state: "importing", since: found.record.created } : { state: "absent" };
    },
    staleToken: (workspace, iat, orDeleted) => staleToken(backend.records, workspace, iat, orDeleted),
    onRemove: (listener) => void state.removeListeners.push(listener),
    async storage(workspace) {
      const { record, fence } = await readyUnderFence(state, workspace);
      return openStorage(state, workspace, record, fence);
    },
    incarnation: (workspace) => state.incarnations.get(workspace),
    history: (workspace) => openHistory(state, workspace),
    async archive(workspace) {
      const { fence } = await readyUnderFence(state, workspace);
      return exportArchive(fenced(workspace, await filesOf(state, workspace), fence));
    },
  };
}

/** A tool call's storage on a hosting server; a global admin token (ws "*") reaches no tool. */
export function hostedStorage(registry: WorkspaceRegistry, workspace: string): Promise<Storage> {
  if (workspace === "*") {
    return Promise.reject(
      new CodedError("FORBIDDEN", 'A global admin token (ws "*") administers workspaces and calls no tool. Mint a token for one workspace to call tools.'),
    );
  }
  return registry.storage(workspace);
}
