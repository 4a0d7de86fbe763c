/**
 * Revert recorded changes: each file goes back to its state before them,
 * as a compare-and-swap against its state after them. A file someone has
 * changed since, or in between (./plan.ts), is left untouched and reported
 * as a conflict with a diff. Each file stands alone: one that cannot be
 * reverted (a conflict, the quota, a storage fault) is reported as such and
 * the others still are, so the answer always says what was written.
 */
import { type ErrorCode, isCodedError } from "../errors.ts";
import type { Storage } from "../storage/types.ts";
import { Cond } from "../storage/types.ts";
import { diffLines, renderDiff } from "../text/diff.ts";
import { applyOrder, type Interleaved, planRevert, type RevertStep } from "./plan.ts";
import { sha256Hex } from "./store.ts";
import type { AuditEntry, FileState, HistoryStore } from "./types.ts";

export interface RevertedFile {
  readonly path: string;
  /**
   * restored: written back; deleted: it had been created; recreated: it had been deleted;
   * unchanged: it already was as before the change(s) (an earlier revert put it back), nothing written.
   */
  readonly action: "restored" | "deleted" | "recreated" | "unchanged";
}

export interface RevertConflict {
  readonly path: string;
  /** Why nothing of this file was written: EDIT_CONFLICT (someone else's change), LIMIT_EXCEEDED (the quota), or the storage's code. */
  readonly code: ErrorCode;
  /** What happened and what to do, with the call that does it when there is one. */
  readonly reason: string;
  /**
   * From the state the change left to the state now; for a file changed in
   * between, the other writer's change ("" when one side is not text or not kept).
   */
  readonly diff: string;
  /** What `diff` is, when there is one: "between" for another writer's change between the reverted changes. */
  readonly diffOf?: "between";
}

export interface RevertOutcome {
  readonly reverted: RevertedFile[];
  readonly conflicts: RevertConflict[];
}

export interface RevertContext {
  /** The workspace (hosted), named in the quota's recovery. */
  readonly workspace?: string;
  /**
   * A file already holding the bytes to put back is `unchanged`, not a
   * conflict: a change or session revert sent again after stopping on
   * another file. Off for `{"path", "version", "expect"}`, where `expect` is
   * the person's own claim about the file and a wrong one is a conflict.
   */
  readonly acceptDone?: boolean;
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

/** The lines of a recorded state ([] when absent, undefined when not text or no longer kept). */
async function stateLines(history: HistoryStore, state: FileState | null): Promise<string[] | undefined> {
  return state ? textLines(await history.getBlob(state.blob)) : [];
}

function diffText(from: string[] | undefined, to: string[] | undefined): string {
  return from && to ? renderDiff(diffLines(from, to, { context: 2 }), { maxLines: 80, maxLineChars: 400 }) : "";
}

async function conflict(storage: Storage, history: HistoryStore, step: RevertStep, reason: string, code: ErrorCode = "EDIT_CONFLICT"): Promise<RevertConflict> {
  let now: string[] | undefined = [];
  try {
    now = textLines((await storage.read(step.path)).bytes);
  } catch (error) {
    if (!(isCodedError(error) && error.code === "FS_NOT_FOUND")) now = undefined;
  }
  return { path: step.path, code, reason, diff: diffText(await stateLines(history, step.expect), now) };
}

/** A revert body as the operator sends it. */
const call = (body: Record<string, unknown>) => `POST /v1/revert ${JSON.stringify(body)}`;

/** Who changed `path` between the reverted changes `previous` and `next`, from the log. */
async function interleavers(history: HistoryStore, path: string, previous: string, next: string): Promise<string> {
  const page = await history.query({ path, changesOnly: true, cursor: previous, limit: 1000 });
  const between = page.entries.filter((e) => e.id < next && e.changes.some((c) => c.path === path));
  if (between.length === 0) return "a writer the log does not know (a shell command, or a change made outside the tools)";
  const names = [...new Set(between.map((e) => `${e.principal} (change ${e.id}${e.session ? `, session ${e.session}` : ""})`))];
  return names.slice(0, 3).join(", ") + (names.length > 3 ? ` and ${names.length - 3} more` : "");
}

/** The conflict of a file someone else changed between the reverted changes: nothing of it is written. */
async function interleavedConflict(history: HistoryStore, step: RevertStep, gap: Interleaved): Promise<RevertConflict> {
  const who = await interleavers(history, step.path, gap.previous, gap.run[0]!);
  const more = gap.gaps > 1 ? ` (and ${gap.gaps - 1} more time(s) before that)` : "";
  const undoRun =
    gap.found === null
      ? `It did not exist before change ${gap.run[0]} made it again; if it should go, delete it (e.g. bash rm with an exec token).`
      : `To undo only the changes since (${gap.run.join(", ")}), back to the version they left: ` +
        call({ path: step.path, version: gap.found.version, expect: step.expect?.version ?? null }) +
        `. GET /v1/history?path=${encodeURIComponent(step.path)} lists every version, to pick another.`;
  const reason =
    `${who} changed it between the reverted changes ${gap.previous} and ${gap.run[0]}${more}: putting back its state from before ` +
    `them would undo that work too, so nothing of this file was written (the diff is their change). ${undoRun}`;
  const diff = diffText(await stateLines(history, gap.left), await stateLines(history, gap.found));
  return { path: step.path, code: "EDIT_CONFLICT", reason, diff, diffOf: "between" };
}

/** The quota's own figures ("it would add N bytes to ..."), without its advice, which is for agents. */
function quotaFigures(message: string): string {
  const match = /would add (.+?)\. Nothing was written/.exec(message);
  return match ? `it would add ${match[1]}` : message;
}

/** A step the storage refused (quota, I/O): nothing of it written, said with what to do. */
async function refusedConflict(
  storage: Storage,
  history: HistoryStore,
  step: RevertStep,
  error: unknown,
  now: string | undefined,
  context: RevertContext,
): Promise<RevertConflict> {
  const code: ErrorCode = isCodedError(error) ? error.code : "INTERNAL_ERROR";
  const message = error instanceof Error ? error.message : String(error);
  const retry = step.restore
    ? `revert this file alone: ${call({ path: step.path, version: step.restore.version, expect: now ?? null })}`
    : "send the same revert again";
  if (code === "LIMIT_EXCEEDED") {
    const ws = context.workspace ?? "<ws>";
    const reason =
      `Putting back its earlier version (${step.restore?.size ?? 0} bytes) would pass the workspace's quota: ${quotaFigures(message)}. ` +
      `Nothing of this file was written. Free space in the workspace, or raise its quota with a global admin token ` +
      `(PUT /v1/workspaces/${ws}?maxBytes=N), then ${retry}.`;
    return conflict(storage, history, step, reason, code);
  }
  const reason = `The storage refused to revert it (${code}: ${message}); nothing of it was written. Once that is fixed, ${retry}.`;
  return conflict(storage, history, step, reason, code);
}

/**
 * Whether the file now has exactly the bytes `step` would put back. An absent
 * file never counts: who deleted it is not known here, and a file that
 * became a directory's parent must stay a conflict.
 */
async function alreadyRestored(storage: Storage, step: RevertStep, now: string | undefined): Promise<boolean> {
  if (step.restore === null || now === undefined) return false;
  if (step.restore.version === now) return true;
  const { bytes } = await storage.read(step.path);
  return bytes.byteLength === step.restore.size && (await sha256Hex(bytes)) === step.restore.blob;
}

/** Apply one step as a compare-and-swap: the result, or the conflict that left the file untouched. */
async function applyStep(storage: Storage, history: HistoryStore, step: RevertStep, context: RevertContext): Promise<RevertedFile | RevertConflict> {
  if (step.interleaved) return interleavedConflict(history, step, step.interleaved);
  const current = await storage.stat(step.path);
  const now = current?.kind === "file" ? current.version : undefined;
  if (current && current.kind !== "file") return conflict(storage, history, step, "it is a directory now");
  if (step.expect === null && now !== undefined) {
    if (context.acceptDone && (await alreadyRestored(storage, step, now))) return { path: step.path, action: "unchanged" };
    return conflict(storage, history, step, "it was created again since the change");
  }
  if (step.expect !== null && now !== step.expect.version) {
    // Already back (a revert that stopped on one file, sent again): not someone else's change.
    if (context.acceptDone && (await alreadyRestored(storage, step, now))) return { path: step.path, action: "unchanged" };
    return conflict(
      storage,
      history,
      step,
      now === undefined
        ? "it was deleted since the change (by another writer, or by an earlier revert of it: then nothing is left to do)"
        : "it was changed since the change",
    );
  }
  try {
    if (step.restore === null) {
      await storage.delete(step.path, { ifVersion: now });
      return { path: step.path, action: "deleted" };
    }
    const bytes = await history.getBlob(step.restore.blob);
    if (!bytes)
      return {
        path: step.path,
        code: "FS_NOT_FOUND",
        reason: `its earlier version is no longer kept (the history bounds dropped it); nothing of it was written. GET /v1/history?path=${encodeURIComponent(step.path)} lists the versions still kept, and ${call({ path: step.path, version: "V", expect: now ?? null })} puts one back.`,
        diff: "",
      };
    await storage.write(step.path, bytes, now === undefined ? Cond.ifAbsent : Cond.ifVersion(now));
    return { path: step.path, action: now === undefined ? "recreated" : "restored" };
  } catch (error) {
    if (isCodedError(error) && (error.code === "FS_STALE_VERSION" || error.code === "FS_ALREADY_EXISTS" || error.code === "FS_NOT_FOUND")) {
      return conflict(storage, history, step, "another writer changed it while reverting");
    }
    return refusedConflict(storage, history, step, error, now, context);
  }
}

/**
 * Apply one step: the result, or the conflict that says why the file was not
 * written. Never throws for one file's trouble, so a revert of many files
 * reports (and records) the ones it did write.
 */
export async function revertStep(
  storage: Storage,
  history: HistoryStore,
  step: RevertStep,
  context: RevertContext = {},
): Promise<RevertedFile | RevertConflict> {
  try {
    return await applyStep(storage, history, step, context);
  } catch (error) {
    // A stat or read failing before any write: nothing of this file was written.
    const code: ErrorCode = isCodedError(error) ? error.code : "INTERNAL_ERROR";
    const message = error instanceof Error ? error.message : String(error);
    return {
      path: step.path,
      code,
      reason: `Reverting it failed (${code}: ${message}); nothing of it was written. Send the same revert again once that is fixed.`,
      diff: "",
    };
  }
}

/** Revert `entries` through `storage` (a recording storage, so the revert is itself recorded). */
export async function revertEntries(
  storage: Storage,
  history: HistoryStore,
  entries: readonly AuditEntry[],
  context: RevertContext = {},
): Promise<RevertOutcome> {
  const reverted: RevertedFile[] = [];
  const conflicts: RevertConflict[] = [];
  for (const step of applyOrder(planRevert(entries))) {
    const outcome = await revertStep(storage, history, step, { ...context, acceptDone: true });
    if ("action" in outcome) reverted.push(outcome);
    else conflicts.push(outcome);
  }
  const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  return { reverted: reverted.sort(byPath), conflicts: conflicts.sort(byPath) };
}
