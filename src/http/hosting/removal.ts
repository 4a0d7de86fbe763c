/**
 * Removing workspaces: a DELETE (record, files, counters and what this
 * process caches, then the listeners told), and the clean-up of a creation
 * that failed, which removes only what is still its own.
 */
import { isFsError } from "../../storage/errors.ts";
import { beingDeleted, deleteRecord, incarnationOf, readRecord, type WorkspaceRecord, writeTombstone } from "./records.ts";
import { dropFence, fenceOf } from "./fences.ts";
import type { RegistryState } from "./registry-state.ts";
import { clearCounts, countUsage, filesOf, forget } from "./workspace-storage.ts";

/** Remove the workspace (a valid name) and its files; false when there was none. */
export async function removeWorkspace(state: RegistryState, workspace: string): Promise<boolean> {
  const { backend } = state.options;
  const found = await readRecord(backend.records, workspace);
  if (!found) {
    // No record, but perhaps files (a delete that failed half-way, files put there by hand): remove them too.
    const left = await filesOf(state, workspace).then(countUsage, (error: unknown) => {
      if (isFsError(error) && error.code === "FS_NOT_FOUND") return { bytes: 0, files: 0 };
      throw error;
    });
    await backend.removeFiles(workspace);
    if (left.files === 0) return false;
    await clearCounts(state, workspace);
    return true;
  }
  // Before the record goes, so that whichever PUT creates the name next sees it and refuses the older tokens.
  await writeTombstone(backend.records, workspace, { deletedAt: Date.now() });
  // No call of this process starts on the old workspace's storage or history from here (./fences.ts).
  const fence = fenceOf(state, workspace);
  fence.close();
  forget(state, workspace);
  const importing = state.running.get(workspace);
  // An import of this process stops first; what it wrote is removed below with the rest (seeing the
  // tombstone, it leaves that to this DELETE).
  if (importing) {
    importing.stop();
    await importing.done;
  }
  // The operations of calls already under way end first: a write on its way to a bucket lands now, and
  // is removed with the rest, never after the next PUT of the name.
  await fence.drained;
  // The files go while the record still holds the name, so no creation under it starts before they are
  // gone (a removal by path would take the new workspace's files); the tombstone already refuses every
  // token issued before it.
  forget(state, workspace);
  await backend.removeFiles(workspace);
  forget(state, workspace);
  // An import of another process, its files gone under it, may have removed the record itself by now.
  await deleteRecord(backend.records, workspace).catch((error: unknown) => {
    if (!(isFsError(error) && error.code === "FS_NOT_FOUND")) throw error;
  });
  await clearCounts(state, workspace);
  dropFence(state, workspace, fence);
  return removed(state, workspace);
}

/** Tell the listeners (e.g. end the workspace's MCP sessions). */
function removed(state: RegistryState, workspace: string): true {
  for (const listener of state.removeListeners) {
    try {
      listener(workspace);
    } catch {
      // A listener must not stop a DELETE.
    }
  }
  return true;
}

/**
 * A failed creation leaves nothing: its files (when it wrote some), its
 * counters and its record go, but only while the record is still its own
 * (same incarnation). Once a DELETE took the name, and perhaps a PUT made a
 * new workspace of it, nothing under the name is this creation's to remove.
 * True when it was still its own.
 */
export async function cleanUpCreation(state: RegistryState, workspace: string, record: WorkspaceRecord, seeding: boolean): Promise<boolean> {
  const { backend } = state.options;
  const current = await readRecord(backend.records, workspace).catch(() => undefined);
  if (!current || incarnationOf(current.record) !== incarnationOf(record)) return false;
  // A DELETE is removing it (its files first, its record last): what is left is that DELETE's to remove.
  if (await beingDeleted(backend.records, workspace, current.record).catch(() => false)) return false;
  if (seeding) await backend.removeFiles(workspace).catch(() => undefined);
  await clearCounts(state, workspace).catch(() => undefined);
  await deleteRecord(backend.records, workspace, { ifVersion: current.version }).catch(() => undefined);
  return true;
}
