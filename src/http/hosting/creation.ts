/**
 * A PUT of a workspace: a new one gets its record (importing), then its
 * files (an archive's, or those already there), then `ready`; an existing
 * one at most gets its quota changed. An archive seeds only a new workspace.
 */
import { FsError, isFsError } from "../../storage/errors.ts";
import { Cond, type Version } from "../../storage/types.ts";
import type { ImportReport } from "./archive.ts";
import { awaitedOperations } from "./fences.ts";
import { deletedWhileImporting, importInto } from "./imports.ts";
import type { Quota } from "./ledger.ts";
import { checkNotRaised, updateQuota } from "./quota-change.ts";
import { beingDeleted, readRecord, readTombstone, type WorkspaceRecord, writeRecord } from "./records.ts";
import type { CreateOptions, CreateOutcome } from "./registry.ts";
import type { RegistryState } from "./registry-state.ts";
import { cleanUpCreation } from "./removal.ts";
import { clearCounts, filesOf, initCounts, makeFilesOf, usageOf } from "./workspace-storage.ts";

/** The PUT answer while an import runs: what is going on and what to do. */
function beingImported(workspace: string, since: string): FsError {
  return new FsError(
    "FS_ALREADY_EXISTS",
    `workspace ${workspace} is being imported by another PUT (since ${since}); wait for that PUT's answer. ` +
      `If it died (its client went away or the server restarted), DELETE /v1/workspaces/${workspace} stops it, then PUT again`,
  );
}

/** The PUT answer while a DELETE of the name runs (`awaited`: operations of the old workspace's calls it waits for). */
function stillBeingDeleted(workspace: string, awaited: number): FsError {
  const waiting =
    awaited === 0
      ? ""
      : `. It is waiting for ${awaited} operation${awaited === 1 ? "" : "s"} of calls to the old workspace still running, ` +
        "so that none of them lands in a workspace created after it: retry the PUT in a moment";
  return new FsError(
    "FS_ALREADY_EXISTS",
    `workspace ${workspace} is being deleted by a DELETE still running; PUT again once it has answered (GET /v1/workspaces/${workspace} answers 404 then), ` +
      `or DELETE it again if that DELETE failed${waiting}`,
  );
}

/** Create (idempotent; a quota given for an existing workspace replaces its quota); `workspace` is a valid name. */
export async function createWorkspace(state: RegistryState, workspace: string, createOptions: CreateOptions = {}): Promise<CreateOutcome> {
  const { records } = state.options.backend;
  const existing = await readRecord(records, workspace);
  if (!existing) return createNew(state, workspace, createOptions);
  await createOptions.archive?.body.cancel().catch(() => undefined);
  if (existing.record.state !== "ready") throw beingImported(workspace, existing.record.created);
  // A DELETE is removing it now (its record goes last).
  if (await beingDeleted(records, workspace, existing.record)) throw stillBeingDeleted(workspace, awaitedOperations(state, workspace));
  if (createOptions.archive) {
    throw new FsError(
      "FS_ALREADY_EXISTS",
      `workspace ${workspace} already exists; an archive seeds only a new workspace: DELETE it first, or PUT without a body`,
    );
  }
  const record = createOptions.quota
    ? await updateQuota(records, workspace, existing, createOptions.quota, createOptions.mayRaiseQuota !== false)
    : existing.record;
  return { created: false, info: { workspace, createdAt: record.created, usage: await usageOf(state, workspace), quota: record.quota } };
}

async function createNew(state: RegistryState, workspace: string, createOptions: CreateOptions): Promise<CreateOutcome> {
  const { backend, defaultQuota } = state.options;
  const quota: Quota = { ...defaultQuota, ...createOptions.quota };
  if (createOptions.mayRaiseQuota === false) checkNotRaised(workspace, defaultQuota, quota, "the default quota");
  const tombstone = await readTombstone(backend.records, workspace);
  const creating: WorkspaceRecord = {
    state: "importing",
    quota,
    created: new Date().toISOString(),
    incarnation: crypto.randomUUID(),
    ...(tombstone ? { tokensIssuedAfter: tombstone.deletedAt } : {}),
  };
  let version: Version;
  try {
    version = await writeRecord(backend.records, workspace, creating, Cond.ifAbsent);
  } catch (error) {
    await createOptions.archive?.body.cancel().catch(() => undefined);
    if (isFsError(error) && error.code === "FS_ALREADY_EXISTS")
      throw new FsError(
        "FS_ALREADY_EXISTS",
        `workspace ${workspace} is being created by another request; GET /v1/workspaces/${workspace} says when it is ready`,
      );
    throw error;
  }
  // A name deleted before starts empty. On an object store a call still in flight when it was deleted may
  // have written after the removal (local storage fences those by descriptor): its files are not this one's.
  if (tombstone) {
    try {
      await backend.removeFiles(workspace);
    } catch (error) {
      await createOptions.archive?.body.cancel().catch(() => undefined);
      await cleanUpCreation(state, workspace, creating, false);
      throw error;
    }
  }
  let imported: ImportReport | undefined;
  if (createOptions.archive) {
    imported = await importInto(state, workspace, creating, version, createOptions.archive);
  } else {
    try {
      await clearCounts(state, workspace);
      await makeFilesOf(state, workspace);
      await initCounts(state, workspace, await filesOf(state, workspace));
      await writeRecord(backend.records, workspace, { ...creating, state: "ready" }, Cond.ifVersion(version));
    } catch (error) {
      if (!(await cleanUpCreation(state, workspace, creating, false))) throw deletedWhileImporting(workspace);
      throw error;
    }
  }
  return {
    created: true,
    info: { workspace, createdAt: creating.created, usage: await usageOf(state, workspace), quota },
    ...(imported ? { imported } : {}),
  };
}
