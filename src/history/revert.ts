/**
 * Revert recorded changes: each file goes back to its state before them,
 * as a compare-and-swap against its state after them. A file someone has
 * changed since is left untouched and reported as a conflict with a diff
 * from what the change left to what is there now.
 */
import { isCodedError } from "../errors.ts";
import type { Storage } from "../storage/types.ts";
import { Cond } from "../storage/types.ts";
import { diffLines, renderDiff } from "../text/diff.ts";
import { planRevert, type RevertStep } from "./plan.ts";
import type { AuditEntry, HistoryStore } from "./types.ts";

export interface RevertedFile {
  readonly path: string;
  /** restored: written back; deleted: it had been created; recreated: it had been deleted. */
  readonly action: "restored" | "deleted" | "recreated";
}

export interface RevertConflict {
  readonly path: string;
  readonly reason: string;
  /** From the state the change left to the state now ("" when one side is absent or not text). */
  readonly diff: string;
}

export interface RevertOutcome {
  readonly reverted: RevertedFile[];
  readonly conflicts: RevertConflict[];
}

const decoder = new TextDecoder("utf-8", { fatal: true });

function textLines(bytes: Uint8Array | undefined): string[] | undefined {
  if (!bytes) return undefined;
  try {
    const text = decoder.decode(bytes);
    const lines = text.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    return lines;
  } catch {
    return undefined;
  }
}

async function conflict(storage: Storage, history: HistoryStore, step: RevertStep, reason: string): Promise<RevertConflict> {
  const expected = step.expect ? textLines(await history.getBlob(step.expect.blob)) : [];
  let now: string[] | undefined = [];
  try {
    now = textLines((await storage.read(step.path)).bytes);
  } catch (error) {
    if (!(isCodedError(error) && error.code === "FS_NOT_FOUND")) now = undefined;
  }
  const diff = expected && now ? renderDiff(diffLines(expected, now, { context: 2 }), { maxLines: 80, maxLineChars: 400 }) : "";
  return { path: step.path, reason, diff };
}

/** Apply one step as a compare-and-swap: the result, or the conflict that left the file untouched. */
export async function revertStep(storage: Storage, history: HistoryStore, step: RevertStep): Promise<RevertedFile | RevertConflict> {
  const current = await storage.stat(step.path);
  const now = current?.kind === "file" ? current.version : undefined;
  if (current && current.kind !== "file") return conflict(storage, history, step, "it is a directory now");
  if (step.expect === null && now !== undefined) return conflict(storage, history, step, "it was created again since the change");
  if (step.expect !== null && now !== step.expect.version) {
    return conflict(storage, history, step, now === undefined ? "it was deleted since the change" : "it was changed since the change");
  }
  try {
    if (step.restore === null) {
      await storage.delete(step.path, { ifVersion: now });
      return { path: step.path, action: "deleted" };
    }
    const bytes = await history.getBlob(step.restore.blob);
    if (!bytes) return { path: step.path, reason: "its earlier version is no longer kept (the history bounds dropped it)", diff: "" };
    await storage.write(step.path, bytes, now === undefined ? Cond.ifAbsent : Cond.ifVersion(now));
    return { path: step.path, action: now === undefined ? "recreated" : "restored" };
  } catch (error) {
    if (isCodedError(error) && (error.code === "FS_STALE_VERSION" || error.code === "FS_ALREADY_EXISTS" || error.code === "FS_NOT_FOUND")) {
      return conflict(storage, history, step, "another writer changed it while reverting");
    }
    throw error;
  }
}

/** Revert `entries` through `storage` (a recording storage, so the revert is itself recorded). */
export async function revertEntries(storage: Storage, history: HistoryStore, entries: readonly AuditEntry[]): Promise<RevertOutcome> {
  const reverted: RevertedFile[] = [];
  const conflicts: RevertConflict[] = [];
  for (const step of planRevert(entries)) {
    const outcome = await revertStep(storage, history, step);
    if ("action" in outcome) reverted.push(outcome);
    else conflicts.push(outcome);
  }
  return { reverted, conflicts };
}
