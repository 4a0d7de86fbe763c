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
import { createStorageHistory, type HistoryBounds, type HistoryStore } from "../../history/mod.ts";
import { guardStorage } from "../../storage/guard.ts";
import { FsError, isFsError } from "../../storage/errors.ts";
import { Cond, type ListResult, type Storage, type Version } from "../../storage/types.ts";
import { WORKSPACE_NAME } from "../jwt.ts";
import { exportArchive, importArchive, type ImportLimits, type ImportReport } from "./archive.ts";
import type { Quota, Usage, UsageLedger } from "./ledger.ts";
import { quotaStorage, type QuotaStorageOptions } from "./quota-storage.ts";

/** Where workspaces live. */
export interface WorkspaceBackend {
  /** Holds the registry's records; never reachable from a workspace. */
  readonly records: Storage;
  /** A workspace's files (raw; the registry adds the quota). */
  files(workspace: string): Storage | Promise<Storage>;
  /** Remove every file of a workspace (its history too). */
  removeFiles(workspace: string): Promise<void>;
  /** Where a workspace's audit log and history live (under its reserved `.toolwarden/`, which no tool reaches). */
  history?(workspace: string): Storage;
}

/** The record kept per workspace. */
interface WorkspaceRecord {
  readonly state: "importing" | "ready";
  readonly quota: Quota;
  readonly created: string;
  /** Random per creation: observation sessions are keyed by it (see ./sessions.ts). */
  readonly incarnation?: string;
}

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

/** The control plane's view of workspaces. */
export interface WorkspaceRegistry {
  /** Create (idempotent; a quota given for an existing workspace replaces its quota). */
  create(workspace: string, options?: { quota?: Partial<Quota>; archive?: ArchiveSource }): Promise<CreateOutcome>;
  info(workspace: string): Promise<WorkspaceInfo | undefined>;
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

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Count a workspace's files and bytes (a full listing). */
export async function countUsage(files: Storage): Promise<Usage> {
  try {
    const listing = await files.list("", { recursive: true });
    let bytes = 0;
    let count = 0;
    for (const entry of listing.entries) {
      if (entry.kind !== "file") continue;
      bytes += entry.size;
      count++;
    }
    return { bytes, files: count };
  } catch (error) {
    if (isFsError(error) && error.code === "FS_NOT_FOUND") return { bytes: 0, files: 0 };
    throw error;
  }
}

/** Build the registry over a backend. */
export function createWorkspaceRegistry(options: RegistryOptions): WorkspaceRegistry {
  const { backend, ledger } = options;
  const recordPath = (workspace: string) => `${workspace}.json`;
  // One storage per workspace and quota, so the host's per-storage guard is reused across calls.
  const opened = new Map<string, { key: string; storage: Storage }>();
  const incarnations = new Map<string, string>();
  const histories = new Map<string, HistoryStore>();
  // Through the guard: imports cannot write, and counts and exports do not see, the reserved `.toolwarden/`.
  const filesOf = async (workspace: string) => guardStorage(await backend.files(workspace));

  async function readRecord(workspace: string): Promise<{ record: WorkspaceRecord; version: Version } | undefined> {
    try {
      const { bytes, version } = await backend.records.read(recordPath(workspace));
      return { record: JSON.parse(decoder.decode(bytes)) as WorkspaceRecord, version };
    } catch (error) {
      if (isFsError(error) && error.code === "FS_NOT_FOUND") return undefined;
      throw error;
    }
  }

  async function writeRecord(workspace: string, record: WorkspaceRecord, condition = Cond.none): Promise<Version> {
    return (await backend.records.write(recordPath(workspace), encoder.encode(JSON.stringify(record)), condition)).version;
  }

  function quotaOptions(workspace: string, files: Storage, quota: Quota): QuotaStorageOptions {
    return {
      workspace,
      quota,
      ledger,
      ensureUsage: async () => ledger.init(workspace, await countUsage(files)),
    };
  }

  async function usageOf(workspace: string): Promise<Usage> {
    const known = await ledger.usage(workspace);
    if (known) return known;
    await ledger.init(workspace, await countUsage(await filesOf(workspace)));
    return (await ledger.usage(workspace)) ?? { bytes: 0, files: 0 };
  }

  function notFound(workspace: string): CodedError {
    return new FsError("FS_NOT_FOUND", `workspace ${JSON.stringify(workspace)} does not exist; an admin creates it with PUT /v1/workspaces/${workspace}`);
  }

  /** Refuse to seed over files already there (a removal after a failed import would take them too). */
  async function checkEmpty(workspace: string, archive: ArchiveSource): Promise<void> {
    const present = await countUsage(await filesOf(workspace));
    if (present.files === 0) return;
    await archive.body.cancel().catch(() => undefined);
    throw new FsError(
      "FS_ALREADY_EXISTS",
      `workspace ${workspace} has no record but its storage already holds ${present.files} file(s); PUT it without a body to adopt them, or DELETE it first`,
    );
  }

  async function seed(workspace: string, quota: Quota, archive: ArchiveSource): Promise<ImportReport> {
    const files = await filesOf(workspace);
    await ledger.clear(workspace);
    await ledger.init(workspace, { bytes: 0, files: 0 });
    return importArchive(archive.body, archive.gzip, quotaStorage(files, quotaOptions(workspace, files, quota)), options.importLimits);
  }

  async function create(workspace: string, createOptions: { quota?: Partial<Quota>; archive?: ArchiveSource } = {}): Promise<CreateOutcome> {
    checkWorkspaceName(workspace);
    const existing = await readRecord(workspace);
    if (existing) {
      await createOptions.archive?.body.cancel().catch(() => undefined);
      if (existing.record.state !== "ready") {
        throw new FsError(
          "FS_ALREADY_EXISTS",
          `workspace ${workspace} is being created by another request (if that import died, DELETE the workspace and PUT it again)`,
        );
      }
      if (createOptions.archive) {
        throw new FsError(
          "FS_ALREADY_EXISTS",
          `workspace ${workspace} already exists; an archive seeds only a new workspace: DELETE it first, or PUT without a body`,
        );
      }
      let record = existing.record;
      if (createOptions.quota) {
        record = { ...record, quota: { ...record.quota, ...createOptions.quota } };
        await writeRecord(workspace, record, Cond.ifVersion(existing.version));
      }
      return { created: false, info: { workspace, createdAt: record.created, usage: await usageOf(workspace), quota: record.quota } };
    }

    const quota: Quota = { ...options.defaultQuota, ...createOptions.quota };
    const creating: WorkspaceRecord = { state: "importing", quota, created: new Date().toISOString(), incarnation: crypto.randomUUID() };
    let version: Version;
    try {
      version = await writeRecord(workspace, creating, Cond.ifAbsent);
    } catch (error) {
      await createOptions.archive?.body.cancel().catch(() => undefined);
      if (isFsError(error) && error.code === "FS_ALREADY_EXISTS")
        throw new FsError("FS_ALREADY_EXISTS", `workspace ${workspace} is being created by another request`);
      throw error;
    }
    let imported: ImportReport | undefined;
    let seeding = false;
    try {
      if (createOptions.archive) {
        await checkEmpty(workspace, createOptions.archive);
        seeding = true;
        imported = await seed(workspace, quota, createOptions.archive);
      } else {
        await ledger.clear(workspace);
        await ledger.init(workspace, await countUsage(await filesOf(workspace)));
      }
      await writeRecord(workspace, { ...creating, state: "ready" }, Cond.ifVersion(version));
    } catch (error) {
      // A failed import leaves nothing: its files, its counters and its record go.
      if (seeding) await backend.removeFiles(workspace).catch(() => undefined);
      await ledger.clear(workspace).catch(() => undefined);
      await backend.records.delete(recordPath(workspace)).catch(() => undefined);
      throw error;
    }
    return { created: true, info: { workspace, createdAt: creating.created, usage: await usageOf(workspace), quota }, ...(imported ? { imported } : {}) };
  }

  async function ready(workspace: string): Promise<WorkspaceRecord> {
    checkWorkspaceName(workspace);
    const found = await readRecord(workspace);
    if (found?.record.state !== "ready") throw notFound(workspace);
    return found.record;
  }

  return {
    create,
    async info(workspace) {
      checkWorkspaceName(workspace);
      const found = await readRecord(workspace);
      if (found?.record.state !== "ready") return undefined;
      return { workspace, createdAt: found.record.created, usage: await usageOf(workspace), quota: found.record.quota };
    },
    async list() {
      let listing: ListResult;
      try {
        listing = await backend.records.list("");
      } catch (error) {
        if (isFsError(error) && error.code === "FS_NOT_FOUND") return [];
        throw error;
      }
      return listing.entries
        .filter((e) => e.kind === "file" && e.name.endsWith(".json"))
        .map((e) => e.name.slice(0, -".json".length))
        .filter((name) => WORKSPACE_NAME.test(name));
    },
    async remove(workspace) {
      checkWorkspaceName(workspace);
      const found = await readRecord(workspace);
      if (!found) {
        // No record, but perhaps files (a delete that failed half-way, files put there by hand): remove them too.
        const left = await countUsage(await filesOf(workspace));
        await backend.removeFiles(workspace);
        if (left.files === 0) return false;
        await ledger.clear(workspace);
        return true;
      }
      // The record goes first: from then on no tool call reaches the workspace.
      await backend.records.delete(recordPath(workspace));
      opened.delete(workspace);
      incarnations.delete(workspace);
      histories.delete(workspace);
      await backend.removeFiles(workspace);
      await ledger.clear(workspace);
      return true;
    },
    async storage(workspace) {
      const record = await ready(workspace);
      incarnations.set(workspace, record.incarnation ?? record.created);
      const key = JSON.stringify(record.quota);
      const cached = opened.get(workspace);
      if (cached?.key === key) return cached.storage;
      const files = await filesOf(workspace);
      const storage = quotaStorage(files, quotaOptions(workspace, files, record.quota));
      opened.set(workspace, { key, storage });
      return storage;
    },
    incarnation: (workspace) => incarnations.get(workspace),
    history(workspace) {
      if (options.history === false || !backend.history || !WORKSPACE_NAME.test(workspace)) return undefined;
      let history = histories.get(workspace);
      if (!history) histories.set(workspace, (history = createStorageHistory(backend.history(workspace), { bounds: options.historyBounds ?? {} })));
      return history;
    },
    async archive(workspace) {
      await ready(workspace);
      return exportArchive(await filesOf(workspace));
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
