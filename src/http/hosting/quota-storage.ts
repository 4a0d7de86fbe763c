/**
 * A workspace's storage with its quota enforced. Every write and delete is
 * charged to the ledger before it happens and refunded when it fails, so a
 * call over the quota is refused with nothing written, and usage stays exact
 * with any number of concurrent writers:
 *
 * - the size a write replaces comes from a `stat`, and the write is made
 *   conditional on that stat's version (create-if-absent when there was no
 *   file), so a write that succeeds replaced exactly the bytes counted;
 * - growth is charged before a write and shrinkage credited after it, so the
 *   counters are never below what is stored, even for a moment;
 * - a write that loses its condition is refunded and fails as the provider
 *   says (a caller without a condition is retried a few times).
 */
import { CodedError } from "../../errors.ts";
import { FsError } from "../../storage/errors.ts";
import { Cond, type ScanFileOptions, type StatResult, type Storage, type WriteCondition, type WriteResult } from "../../storage/types.ts";
import { type DirectoryCounts, directoriesExceeded, missingParents } from "./directories.ts";
import { type Quota, QuotaExceededError, type Usage, type UsageLedger } from "./ledger.ts";

/** What {@link quotaStorage} needs. */
export interface QuotaStorageOptions {
  readonly workspace: string;
  readonly quota: Quota;
  readonly ledger: UsageLedger;
  /** Make the ledger know this workspace's usage (count its files once). */
  readonly ensureUsage: () => Promise<void>;
  /** Whether the workspace was deleted (its record gone): a write that found nothing there is told so. */
  readonly deleted?: () => Promise<boolean>;
  /** On storage with directories of its own: their counts, capped at `quota.maxFiles` (see ./directories.ts). */
  readonly directories?: DirectoryCounts;
}

/** Attempts of a write without a condition when other writers keep changing the file. */
const UNCONDITIONAL_ATTEMPTS = 5;

/** The LIMIT_EXCEEDED error: usage, limit and what the call would add; says nothing was written. */
export function quotaExceeded(workspace: string, what: string, usage: Usage, delta: Usage, quota: Quota): CodedError {
  const parts: string[] = [];
  if (delta.bytes > 0 && usage.bytes + delta.bytes > quota.maxBytes) {
    parts.push(`${delta.bytes} bytes to the ${usage.bytes} bytes in use, over the limit of ${quota.maxBytes} bytes`);
  }
  if (delta.files > 0 && usage.files + delta.files > quota.maxFiles) {
    parts.push(`${delta.files} file(s) to the ${usage.files} files in use, over the limit of ${quota.maxFiles} files`);
  }
  const detail = `${what} would add ${parts.join(", and ")}`;
  return new QuotaExceededError(
    `Workspace "${workspace}" is over its quota: ${detail}. Nothing was written. ` +
      "To go on: make room by writing shorter content over files here, or write less; if the work needs more room, " +
      "tell your user this workspace is full (its quota is raised by whoever hosts it).",
    detail,
  );
}

/** Charge `delta`, counting the workspace first when its usage is unknown; throws LIMIT_EXCEEDED. */
export async function chargeOrThrow(options: QuotaStorageOptions, delta: Usage, what: string): Promise<void> {
  let outcome = await options.ledger.charge(options.workspace, delta, options.quota);
  if (!outcome.ok && outcome.reason === "unknown") {
    await options.ensureUsage();
    outcome = await options.ledger.charge(options.workspace, delta, options.quota);
  }
  if (outcome.ok) return;
  if (outcome.reason === "unknown") throw new CodedError("INTERNAL_ERROR", `usage of workspace ${options.workspace} could not be established`);
  throw quotaExceeded(options.workspace, what, outcome.usage, delta, options.quota);
}

/**
 * `error`, or what it means when the workspace was deleted while the call
 * ran: its files went with it, so "not found" would send the agent to
 * create them again somewhere that no longer exists.
 */
async function deletedUnder(options: QuotaStorageOptions, error: unknown, path: string, what: string): Promise<unknown> {
  const code = (error as { code?: unknown } | null)?.code;
  // The provider's own codes, or the system's when the workspace's root itself is gone.
  // FS_ACCESS_DENIED: local storage refuses a directory moved away under it (a DELETE moves the workspace's out first).
  if (!["FS_NOT_FOUND", "FS_NOT_DIRECTORY", "FS_ACCESS_DENIED", "ENOENT", "ENOTDIR"].includes(code as string)) return error;
  if (!(await options.deleted?.().catch(() => false))) return error;
  return deletedWhileRunning(options.workspace, path, what, error);
}

/** The FS_NOT_FOUND of a call whose workspace was deleted while it ran: `path` `what` ("was not written", ...). */
export function deletedWhileRunning(workspace: string, path: string, what: string, cause?: unknown): FsError {
  return new FsError(
    "FS_NOT_FOUND",
    `workspace "${workspace}" was deleted while this call ran: ${path} ${what}, and nothing in it can be any more. ` +
      "Stop working in it and tell your user; a workspace created again under this name needs a new token.",
    { path, ...(cause === undefined ? {} : { cause }) },
  );
}

/** `run`, with an error that comes of the workspace's deletion said as such (see {@link deletedUnder}). */
async function unlessDeleted<T>(options: QuotaStorageOptions, path: string, what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw await deletedUnder(options, error, path, what);
  }
}

/** No limit: a refund must land whatever the usage (undoing a shrink grows it). */
const UNLIMITED = { maxBytes: Number.MAX_SAFE_INTEGER, maxFiles: Number.MAX_SAFE_INTEGER };

/** Undo a charge. */
async function refund(options: QuotaStorageOptions, delta: Usage): Promise<void> {
  await options.ledger.charge(options.workspace, { bytes: -delta.bytes, files: -delta.files }, UNLIMITED);
}

/** `raw` with the quota enforced on `write` and usage kept on `delete`. */
export function quotaStorage(raw: Storage, options: QuotaStorageOptions): Storage {
  async function conditionalWrite(path: string, bytes: Uint8Array, condition: WriteCondition): Promise<WriteResult> {
    const before = await raw.stat(path);
    if (before?.kind === "directory") throw new FsError("FS_IS_DIRECTORY", `is a directory: ${path}`, { path });
    if (condition.kind === "ifAbsent" && before) throw new FsError("FS_ALREADY_EXISTS", `already exists: ${path}`, { path });
    if (condition.kind === "ifVersion" && before?.version !== condition.version) {
      throw new FsError("FS_STALE_VERSION", `version changed: ${path}`, { path });
    }
    const directories = options.directories;
    if (before || !directories) return chargedWrite(path, bytes, before);
    return directories.exclusive(options.workspace, () => createWithParents(directories, path, bytes));
  }

  /**
   * A new file, with the directories it makes charged first (alone in the workspace: see
   * ./directories.ts). After a failure, the directories it did not make are refunded.
   */
  async function createWithParents(directories: DirectoryCounts, path: string, bytes: Uint8Array): Promise<WriteResult> {
    const missing = await missingParents(raw, path);
    if (missing.length === 0) return chargedWrite(path, bytes, null);
    let used = directories.count(options.workspace);
    if (used === undefined) {
      await options.ensureUsage();
      used = directories.count(options.workspace) ?? 0;
    }
    if (used + missing.length > options.quota.maxFiles) throw directoriesExceeded(options.workspace, path, missing.length, used, options.quota.maxFiles);
    directories.add(options.workspace, missing.length);
    try {
      return await chargedWrite(path, bytes, null);
    } catch (error) {
      const left = (await Promise.all(missing.map((dir) => raw.stat(dir).catch(() => null)))).filter((stat) => stat === null).length;
      directories.add(options.workspace, -left);
      throw error;
    }
  }

  /** The write of `bytes` over `before` (null: a new file), its growth charged to the ledger first. */
  async function chargedWrite(path: string, bytes: Uint8Array, before: StatResult | null): Promise<WriteResult> {
    // Growth is charged before the write, shrinkage credited after it: the counters never fall
    // below what is stored, so a shrink that loses its race cannot let another write past the quota.
    const change = bytes.length - (before?.size ?? 0);
    const growth: Usage = { bytes: Math.max(0, change), files: before ? 0 : 1 };
    await chargeOrThrow(options, growth, `writing ${path} (${bytes.length} bytes)`);
    let written: WriteResult;
    try {
      written = await raw.write(path, bytes, before ? Cond.ifVersion(before.version!) : Cond.ifAbsent);
    } catch (error) {
      await refund(options, growth);
      throw await deletedUnder(options, error, path, "was not written");
    }
    if (change < 0) await refund(options, { bytes: -change, files: 0 });
    return written;
  }

  async function anyWrite(path: string, bytes: Uint8Array, condition: WriteCondition): Promise<WriteResult> {
    if (condition.kind !== "none") return conditionalWrite(path, bytes, condition);
    for (let attempt = 1; ; attempt++) {
      const before = await raw.stat(path);
      const cond = before?.kind === "file" ? Cond.ifVersion(before.version!) : Cond.ifAbsent;
      try {
        return await conditionalWrite(path, bytes, cond);
      } catch (error) {
        const lost = error instanceof FsError && (error.code === "FS_STALE_VERSION" || error.code === "FS_ALREADY_EXISTS");
        if (!lost || attempt >= UNCONDITIONAL_ATTEMPTS) throw error;
      }
    }
  }

  return {
    kind: raw.kind,
    stat: (path) => unlessDeleted(options, path, "could not be read", () => raw.stat(path)),
    read: (path, readOptions) => unlessDeleted(options, path, "could not be read", () => raw.read(path, readOptions)),
    ...(raw.readStream ? { readStream: (path: string) => unlessDeleted(options, path, "could not be read", () => raw.readStream!(path)) } : {}),
    ...(raw.scanFile ? { scanFile: <T>(path: string, options: ScanFileOptions<T>) => raw.scanFile!(path, options) } : {}),
    ...(raw.endScan ? { endScan: () => raw.endScan!() } : {}),
    ...(raw.scanAhead ? { scanAhead: (paths: readonly string[]) => raw.scanAhead!(paths) } : {}),
    list: (path, listOptions) => unlessDeleted(options, path || ".", "could not be listed", () => raw.list(path, listOptions)),
    write: (path, bytes, condition = Cond.none) => unlessDeleted(options, path, "was not written", () => anyWrite(path, bytes, condition)),
    async delete(path, deleteOptions) {
      const before = await raw.stat(path);
      if (before?.kind !== "file") return raw.delete(path, deleteOptions);
      if (deleteOptions?.ifVersion !== undefined && deleteOptions.ifVersion !== before.version) {
        throw new FsError("FS_STALE_VERSION", `version changed: ${path}`, { path });
      }
      // Counters first: a refund to unknown counters would be lost while a count runs.
      if (!(await options.ledger.usage(options.workspace))) await options.ensureUsage();
      await raw.delete(path, { ifVersion: before.version! });
      await refund(options, { bytes: before.size, files: 1 });
    },
  };
}
