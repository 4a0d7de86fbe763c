/**
 * Calls in flight across a DELETE of their workspace, on any backend. A
 * call holds its workspace's storage and history while it runs; on an
 * object store they are key prefixes, which the next workspace of the same
 * name reuses, so an old call's write landing after the next PUT would be a
 * file of the new tenant (and an old call's read would see one).
 *
 * So every storage and history the registry hands out for a name sits behind
 * the name's fence in this process. A DELETE closes it right after writing
 * its tombstone: from then on an operation through those handles is refused
 * before it reaches the storage, and the operations already under way (a
 * write perhaps already on its way to the bucket) are waited for before the
 * files are removed and the record goes. While the record is there the
 * name cannot be created again (a PUT is told the DELETE is still running,
 * and what it waits for), so nothing of the old calls lands in the next
 * workspace. The closed fence stays the name's current one while the DELETE
 * runs, so a call that asks for the workspace then is refused at once; the
 * DELETE drops it when done, and the next asker gets a new one.
 *
 * A storage and a history are taken under the same fence when the history
 * is taken first, in the same turn (see ../host.ts): a fence taken later
 * could be the next workspace's.
 *
 * Only this process's calls are fenced: calls of another process (another
 * server over the same bucket, another Worker isolate) are not waited for.
 */
import { FsError } from "../../storage/errors.ts";
import { createFence, type Fence, fencedStorage } from "../../storage/fence.ts";
import type { Storage } from "../../storage/types.ts";
import { deletedWhileRunning } from "./quota-storage.ts";
import type { RegistryState } from "./registry-state.ts";

/** The name's current fence in this process (a new, open one when it has none). */
export function fenceOf(state: RegistryState, workspace: string): Fence {
  let fence = state.fences.get(workspace);
  if (!fence) state.fences.set(workspace, (fence = createFence()));
  return fence;
}

/** `storage` of `workspace` behind `fence`: refused, as deleted while the call ran, once a DELETE closed it. */
export function fenced(workspace: string, storage: Storage, fence: Fence): Storage {
  return fencedStorage(storage, fence, (path, what) => deletedWhileRunning(workspace, path, what));
}

/** Forget `fence`, the closed fence of a DELETE that is done, unless the name already has another. */
export function dropFence(state: RegistryState, workspace: string, fence: Fence): void {
  if (state.fences.get(workspace) === fence) state.fences.delete(workspace);
}

/** Operations of calls to `workspace` that a DELETE of it is waiting for (0 when none runs). */
export function awaitedOperations(state: RegistryState, workspace: string): number {
  const fence = state.fences.get(workspace);
  return fence?.closed ? fence.inflight : 0;
}

/** The refusal of a call to a workspace a DELETE is removing (`since`: the DELETE's time, when known). */
export function beingDeleted(workspace: string, since?: number): FsError {
  return new FsError(
    "FS_NOT_FOUND",
    `workspace "${workspace}" is being deleted${since === undefined ? "" : ` (DELETE since ${new Date(since).toISOString()})`}: ` +
      "nothing in it can be read or written any more. Stop working in it and tell your user.",
  );
}
