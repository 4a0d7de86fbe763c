/**
 * Seeding a new workspace from an archive, and the imports in flight in
 * this process, by workspace name (`RegistryState.running`), so that a DELETE of
 * a workspace still importing stops its import (instead of racing it) and
 * waits until the import has cleaned up after itself. Without that, the
 * import's clean-up could run after a new workspace of the same name was
 * created, and its writes could land in it.
 */
import { CodedError } from "../../errors.ts";
import { FsError } from "../../storage/errors.ts";
import { Cond, type Version } from "../../storage/types.ts";
import { type ImportReport, importArchive } from "./archive.ts";
import { type Quota, QuotaExceededError } from "./ledger.ts";
import { quotaStorage } from "./quota-storage.ts";
import { type WorkspaceRecord, writeRecord } from "./records.ts";
import type { ArchiveSource } from "./registry.ts";
import type { RegistryState } from "./registry-state.ts";
import { cleanUpCreation } from "./removal.ts";
import { clearCounts, countUsage, filesOf, initCounts, makeFilesOf, quotaOptions } from "./workspace-storage.ts";

/** One running import. */
export interface RunningImport {
  /** Stop reading the archive: the import fails at its next read and cleans up. */
  stop(): void;
  /** Settles once the import has finished: true when it made the workspace ready, false when it failed and cleaned up. */
  readonly done: Promise<boolean>;
}

/**
 * `body`, failing at once when `signal` aborts, even while a read waits on a
 * stalled client (the import would otherwise wait for its next byte forever).
 */
export function cancellableBody(body: ReadableStream<Uint8Array>, signal: AbortSignal): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const stopped = new Promise<never>((_, reject) => {
    signal.addEventListener(
      "abort",
      () => {
        reject(signal.reason);
        reader.cancel(signal.reason).catch(() => undefined);
      },
      { once: true },
    );
  });
  stopped.catch(() => undefined);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await Promise.race([reader.read(), stopped]);
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** The answer of an import whose workspace was deleted while it ran. */
export function deletedWhileImporting(workspace: string): FsError {
  return new FsError(
    "FS_NOT_FOUND",
    `workspace ${workspace} was deleted (DELETE /v1/workspaces/${workspace}) while this import ran: the import was stopped and nothing of it was kept. ` +
      `PUT the archive again to create the workspace anew.`,
  );
}

/** The quota's refusal as the admin who PUT the archive needs it (the agents' wording sends them to their user). */
function archiveOverQuota(workspace: string, error: QuotaExceededError): CodedError {
  return new CodedError(
    "LIMIT_EXCEEDED",
    `The archive does not fit workspace ${workspace}'s quota: ${error.detail}. Nothing of it was kept and the workspace was not created. ` +
      `PUT it again with a larger quota (?maxBytes=N&maxFiles=N; raising it above the default needs a global admin token), or with a smaller archive.`,
  );
}

/** Seed a workspace whose record (`version`) says importing; registered so a DELETE stops it and waits for its clean-up. */
export async function importInto(
  state: RegistryState,
  workspace: string,
  record: WorkspaceRecord,
  version: Version,
  archive: ArchiveSource,
): Promise<ImportReport> {
  const controller = new AbortController();
  const source = { body: cancellableBody(archive.body, controller.signal), gzip: archive.gzip };
  const run = (async () => {
    let seeding = false;
    try {
      await makeFilesOf(state, workspace);
      await checkEmpty(state, workspace, source);
      seeding = true;
      const report = await seed(state, workspace, record.quota, source);
      await writeRecord(state.options.backend.records, workspace, { ...record, state: "ready" }, Cond.ifVersion(version));
      return report;
    } catch (error) {
      const own = await cleanUpCreation(state, workspace, record, seeding);
      if (controller.signal.aborted || !own) throw deletedWhileImporting(workspace);
      throw error instanceof QuotaExceededError ? archiveOverQuota(workspace, error) : error;
    }
  })();
  const entry: RunningImport = {
    stop: () => controller.abort(),
    done: run.then(
      () => true,
      () => false,
    ),
  };
  state.running.set(workspace, entry);
  try {
    return await run;
  } finally {
    if (state.running.get(workspace) === entry) state.running.delete(workspace);
  }
}

/** Refuse to seed over files already there (a removal after a failed import would take them too). */
async function checkEmpty(state: RegistryState, workspace: string, archive: ArchiveSource): Promise<void> {
  const present = await countUsage(await filesOf(state, workspace));
  if (present.files === 0) return;
  await archive.body.cancel().catch(() => undefined);
  throw new FsError(
    "FS_ALREADY_EXISTS",
    `workspace ${workspace} has no record but its storage already holds ${present.files} file(s); PUT it without a body to adopt them, or DELETE it first`,
  );
}

async function seed(state: RegistryState, workspace: string, quota: Quota, archive: ArchiveSource): Promise<ImportReport> {
  const { importLimits } = state.options;
  const files = await filesOf(state, workspace);
  await clearCounts(state, workspace);
  await initCounts(state, workspace, "empty");
  return importArchive(archive.body, archive.gzip, quotaStorage(files, quotaOptions(state, workspace, files, quota)), importLimits);
}
