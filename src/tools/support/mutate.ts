/**
 * The shared spine of the content-proven mutations (`edit`, `batch_edit`):
 * the observation gate, then read -> plan -> compare-and-swap, retried on a
 * lost race. A retry re-plans against the new content, so a target that is
 * still proven (same text, same line ids) lands, and one that is not fails
 * with the current content instead of being written blind.
 */

import { decideEdit, type EditDecision } from "../../policy/decide.ts";
import type { HeldIds } from "../../policy/held-ids.ts";
import type { LineSpan, Observation, OwnEdits } from "../../policy/types.ts";
import { fail, type ToolResult } from "../../result.ts";
import { isFsError } from "../../storage/errors.ts";
import { parentPath } from "../../storage/path.ts";
import { Cond, type StatResult, type Version } from "../../storage/types.ts";
import type { TextDocument } from "../../text/document.ts";
import { breaksWithLoneCr } from "../../text/eol.ts";
import { loadTextFile, mib } from "./load.ts";
import { observed, observeEdited, observeHeldAfterEdit, observeShown } from "./observe.ts";
import { similarNames } from "../view/messages.ts";
import { quotedPath, sameCall, showsAsIs } from "./paths.ts";
import { remedyFor, shownPath, toolError } from "./remedy.ts";
import type { ToolContext } from "../types.ts";

/**
 * Read-plan-write rounds a mutation always gets before it gives up on a
 * file other writers keep changing. After them, rounds go on up to
 * {@link MAX_ROUNDS} unless `limits.casRetryMs` is set and spent: every lost
 * round means another writer landed, so contention drains, and a count (not
 * a clock) decides whether a burst of writers all land. With a time budget,
 * 16 writers of 3 edits each on R2 lost edits on a loaded machine (24
 * rounds had taken over 5 s). The call's own timeout still bounds it.
 */
export const MAX_ATTEMPTS = 24;
/** Hard cap on rounds: more lost rounds than this means other writers landed 200 times meanwhile. */
export const MAX_ROUNDS = 200;

/** A text file as one attempt saw it. */
export interface FileSnapshot {
  readonly doc: TextDocument;
  readonly version: Version;
  /** This is not the version the session last viewed (so a wrong id may be stale rather than mistyped). */
  readonly changedSinceView: boolean;
  /** Where the session's own edits since its view moved the lines it viewed (absent: none moved, or not known). */
  readonly own?: OwnEdits;
  /** The same, made before another writer's change: where the moved lines are now is not known (`OwnEdits.loose`). */
  readonly ownLoose?: OwnEdits;
  /** The line ids the session holds (`policy/held-ids.ts`), whatever the version: what its ids are checked against. */
  readonly held?: HeldIds;
}

/** What one attempt decided to do with the snapshot it was given. */
export type Plan =
  /**
   * Write `bytes` if the file is still the snapshot's version; `done` renders the success. `prepare`
   * is work `done` needs whatever the outcome (the diff): it runs while the write waits on its disk
   * or network, where the runtime can schedule it there (see {@link whileWriting}); `done` must not
   * rely on it having run.
   */
  | { readonly kind: "write"; readonly bytes: Uint8Array; readonly done: (outcome: Landed) => ToolResult; readonly prepare?: () => void }
  /** Nothing to write: return this result (a refusal, or a change that changes nothing); `shown`: lines it shows with their ids. */
  | { readonly kind: "stop"; readonly result: ToolResult; readonly shown?: readonly LineSpan[] };

/** How a written mutation landed. */
export interface Landed {
  readonly version: Version;
  /** The version the session had seen differs from the one the change was applied to. */
  readonly changedSinceView: boolean;
  /** Rounds it took (1 unless another writer won a race). */
  readonly attempts: number;
}

/** Options of {@link mutateFile}. */
export interface MutateOptions {
  /** Exact number of rounds; default: at least {@link MAX_ATTEMPTS}, then on within the time budget. */
  readonly maxAttempts?: number;
  /** The tool's name, for messages. */
  readonly tool: string;
  /** The call's arguments: a refusal that offers the call again with another path repeats them. */
  readonly args?: Readonly<Record<string, unknown>>;
}

/**
 * Run a content-proven mutation of `path` (normalised) for the calling
 * session: refuse unless the policy allows it (`decideEdit`), then up to
 * `maxAttempts` rounds of load -> `plan` -> write with `ifVersion` of the
 * version just loaded. A lost race (FS_STALE_VERSION from the write) waits a
 * random, growing moment and plans again on the new content.
 *
 * A successful write records present(new version) when it was applied to
 * the version the session had seen: the session then knows the whole new
 * content (its view plus its own change). When another writer had changed
 * the file in between, the session has not seen those changes, so its
 * observation is left as it was: further content-proven edits still work,
 * but a whole-file `write` from the session's stale copy is refused
 * (FS_STALE_VERSION) instead of silently dropping the other writer's work.
 */
export async function mutateFile(
  ctx: ToolContext,
  path: string,
  plan: (file: FileSnapshot) => Plan | Promise<Plan>,
  options: MutateOptions,
): Promise<ToolResult> {
  const observation = await observed(ctx, path);
  if (observation?.kind !== "present") {
    // Without a view of the content there is nothing to prove against; ask storage what is there.
    const gate = await gateUnseen(ctx, path, observation, options);
    if (gate !== undefined) return gate;
  }
  const minAttempts = Math.max(1, options.maxAttempts ?? MAX_ATTEMPTS);
  const deadline = ctx.limits.casRetryMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + ctx.limits.casRetryMs;
  const mayRetry = (attempt: number) => attempt < minAttempts || (options.maxAttempts === undefined && attempt < MAX_ROUNDS && Date.now() < deadline);
  let attempt = 0;
  while (true) {
    attempt++;
    if (ctx.signal?.aborted) return cancelled(path);
    // Ids are hashed only if the plan uses them: a windowed edit of a large file does not.
    const loaded = await loadTextFile(ctx, path, { lazyColumns: true });
    if (!loaded.ok) {
      if (loaded.result.code !== "FS_NOT_FOUND") return loaded.result;
      const gone = decideEdit(observation, { kind: "absent" });
      return gone.kind === "refuse" ? refuseEdit(ctx, path, gone, options) : loaded.result;
    }
    const decision = decideEdit(observation, { kind: "file", version: loaded.version });
    if (decision.kind === "refuse") return refuseEdit(ctx, path, decision, options);
    if (breaksWithLoneCr(loaded.doc.body)) return fail("FS_NOT_TEXT", loneCrText(path, options.tool));

    // How the session's own edits moved the lines it viewed: exactly, when this is the version they made;
    // else (another writer changed it too) only as a doubt about ids from before them.
    const recorded = observation?.kind === "present" ? observation.own : undefined;
    const exact = recorded !== undefined && !decision.changedSinceView && recorded.loose !== true;
    const own = exact ? recorded : undefined;
    const ownLoose = exact || recorded === undefined ? undefined : { ...recorded, loose: true as const };
    const held = observation?.kind === "present" ? observation.held : undefined;
    const next = await plan({ doc: loaded.doc, version: loaded.version, changedSinceView: decision.changedSinceView, own, ownLoose, held });
    if (next.kind === "stop") {
      if (next.shown) await observeShown(ctx, path, next.shown, { hashes: loaded.doc.hashes, version: loaded.version });
      return next.result;
    }
    // A file past the size limit could not even be read back by the tools.
    if (next.bytes.length > ctx.limits.maxFileBytes) return tooLarge(path, next.bytes.length, ctx.limits.maxFileBytes, options.tool);
    // A call the host gave up on (timeout, client gone) must not write after its caller was told so.
    if (ctx.signal?.aborted) return cancelled(path);
    try {
      const writing = ctx.storage.write(path, next.bytes, Cond.ifVersion(loaded.version, loaded.bytes));
      // Only on a first attempt: a retry means other writers are landing, and work for a write that may
      // lose again is work taken from them (done makes it anyway for the attempt that lands).
      if (next.prepare && attempt === 1) whileWriting(next.prepare);
      const written = await writing;
      const result = next.done({ version: written.version, changedSinceView: decision.changedSinceView, attempts: attempt });
      if (!decision.changedSinceView) await observeEdited(ctx, path, written.version, observation, result.facts?.changes);
      else await observeHeldAfterEdit(ctx, path, observation, result.facts?.changes, { from: loaded.version, to: written.version });
      return result;
    } catch (error) {
      if (!(isFsError(error) && error.code === "FS_STALE_VERSION")) return toolError(error, path);
    }
    if (!mayRetry(attempt)) break;
    await backoff(attempt);
  }
  return lostEveryRace(path, attempt, options.tool);
}

const immediate = (globalThis as { setImmediate?: (work: () => void) => unknown }).setImmediate;

/**
 * Run `work` on the next turn of the event loop, where the runtime has
 * `setImmediate` (Bun, Node). A write started just before has by then
 * issued its flush (local storage) or request (buckets): everything before
 * that is a chain of settled promises. So `work` runs while the write waits
 * on the disk (~0.4 ms for a small file here), instead of after it (a
 * lone small local write flushes in place, see storage/local/flush.ts:
 * then `done` does it, and this run finds it done). Where
 * there is no such turn (Deno, Workers: `setTimeout(0)` waits 1-2 ms,
 * longer than the write) nothing is scheduled and `done` does the work.
 */
function whileWriting(work: () => void): void {
  if (!immediate) return;
  immediate(() => {
    try {
      work();
    } catch {
      // Outside any call, a throw would end the process; `done` does the work again and fails the call.
    }
  });
}

function tooLarge(path: string, bytes: number, limit: number, tool: string): ToolResult {
  return fail(
    "LIMIT_EXCEEDED",
    `This \`${tool}\` would make \`${shownPath(path)}\` ${mib(bytes)}, over the ${mib(limit)} file size limit (maxFileBytes); nothing was written. ` +
      "Add less content per call, or split the content across several files.",
  );
}

/** The gate for a session that has not seen the file's content: undefined when it may go on (it cannot). */
async function gateUnseen(ctx: ToolContext, path: string, observation: Observation | undefined, call: MutateOptions): Promise<ToolResult | undefined> {
  let stat: StatResult | null;
  try {
    stat = await ctx.storage.stat(path);
  } catch (error) {
    return toolError(error, path);
  }
  if (stat?.kind === "directory") {
    return fail("FS_IS_DIRECTORY", `\`${shownPath(path)}\` is a directory, not a file.${remedyFor("FS_IS_DIRECTORY", path)}`);
  }
  const current = stat ? { kind: "file" as const, version: stat.version ?? "" } : { kind: "absent" as const };
  const decision = decideEdit(observation, current);
  return decision.kind === "refuse" ? refuseEdit(ctx, path, decision, call) : undefined;
}

/** The model-facing refusal of an edit decision; records what the decision says to record. */
export async function refuseEdit(
  ctx: ToolContext,
  path: string,
  decision: Extract<EditDecision, { kind: "refuse" }>,
  call: Pick<MutateOptions, "tool" | "args">,
): Promise<ToolResult> {
  if ("record" in decision) await ctx.observations.set(ctx.caller.session, path, decision.record);
  // A view of the missing name found nothing there, but not the name that was likely meant.
  const absent = decision.reason === "missing" || decision.reason === "seen-absent";
  const similar = absent ? await similarPaths(ctx, path) : [];
  return fail(decision.code, editRefusalText(path, decision, call.tool, similar, call.args));
}

/** Existing paths next to `path` whose names are close to its name (a typo's likely target). */
async function similarPaths(ctx: ToolContext, path: string): Promise<string[]> {
  try {
    const dir = parentPath(path);
    const listing = await ctx.storage.list(dir, { limit: 2000 });
    const name = path.slice(path.lastIndexOf("/") + 1);
    const files = listing.entries.filter((e) => e.kind === "file").map((e) => e.name);
    return similarNames(name, files).map((n) => (dir === "" ? n : `${dir}/${n}`));
  } catch {
    return []; // a courtesy; the refusal stands without it
  }
}

/** Wording of each edit refusal (exported for the tests that pin it). */
export function editRefusalText(
  path: string,
  decision: Extract<EditDecision, { kind: "refuse" }>,
  tool: string,
  similar: readonly string[] = [],
  args?: Readonly<Record<string, unknown>>,
): string {
  const p = `\`${shownPath(path)}\``;
  const create = `write {"path": ${JSON.stringify(shownPath(path))}, "content": "..."}`;
  switch (decision.reason) {
    case "unseen":
      return (
        `${p} has not been viewed in this session, so \`${tool}\` will not change it (a view also gives the line ids \`batch_edit\` needs)` +
        remedyFor("FS_NOT_OBSERVED", path)
      );
    case "created":
      return `${p} did not exist when you last looked, and it has been created since; you have not seen its content${remedyFor("FS_NOT_OBSERVED", path)}`;
    case "deleted":
      return (
        `${p} no longer exists: it was deleted after you viewed it. Nothing was changed. ` +
        `To create it again, use write (a new file needs no view): ${create}.`
      );
    case "seen-absent":
      if (similar.length > 0) return `${p} does not exist (as you found earlier); nothing was changed. ${similarText(path, similar, tool, args)}`;
      return `${p} does not exist (as you found earlier). Nothing was changed. To create it, use write: ${create}.`;
    case "missing":
      if (similar.length > 0) return `${p} does not exist; nothing was changed. ${similarText(path, similar, tool, args)}`;
      return (
        `${p} does not exist. Nothing was changed. To create it, use write: ${create}. ` +
        `To find the file you meant: view {"path": ${JSON.stringify(shownPath(parentPath(path)))}} lists what exists there.`
      );
  }
}

/**
 * The names close to a missing one, and the call with the one meant. A name
 * that does not show as it is (an invisible character, a look-alike letter)
 * is written as JSON, and so is the path in the call, which repeats the
 * other arguments when they are known: it can be sent as it is.
 */
function similarText(path: string, similar: readonly string[], tool: string, args: Readonly<Record<string, unknown>> | undefined): string {
  const p = `\`${shownPath(path)}\``;
  const create = `write {"path": ${JSON.stringify(shownPath(path))}, "content": "..."}`;
  const names = similar.map(quotedPath).join(", ");
  const head = `Similar ${similar.length === 1 ? "name" : "names"} in the same directory: ${names}.`;
  const instead = `To create ${p} instead, use write: ${create}.`;
  if (similar.length === 1 && args) return `${head} If you meant it, send:\n${sameCall({ tool, args }, similar[0], !showsAsIs(similar[0]))}\n${instead}`;
  return `${head} If you meant ${similar.length === 1 ? "it" : "one of them"}, send the same \`${tool}\` call with that path. ${instead}`;
}

/** Why a CR-only file is not edited by lines (text/eol.ts breaksWithLoneCr), and the call that changes it. */
export function loneCrText(path: string, tool: string): string {
  return (
    `\`${shownPath(path)}\` breaks its lines with lone CRs ("\\r", classic Mac line endings). \`${tool}\` edits lines ended by "\\n" or "\\r\\n", ` +
    `and here the whole file is one line with "\\r" inside it, so any change could write a line ending the file never had; nothing was changed. ` +
    `To change it, replace it whole with write, which writes such a file's content with its line endings exactly as sent: ` +
    `put "\\r" between lines to keep its CR line endings, or "\\n" to convert it to LF: write {"path": ${JSON.stringify(shownPath(path))}, "content": "..."}.`
  );
}

function cancelled(path: string): ToolResult {
  return fail("TIMEOUT", `The call was cancelled before \`${shownPath(path)}\` was written; nothing was written.`);
}

function lostEveryRace(path: string, attempts: number, tool: string): ToolResult {
  return fail(
    "FS_STALE_VERSION",
    `\`${shownPath(path)}\` kept changing while \`${tool}\` applied your change: other writers won the race ${attempts} times in a row. ` +
      `Nothing was written by this call` +
      remedyFor("FS_STALE_VERSION", path),
  );
}

/**
 * Random wait before round `attempt + 1`, growing with each loss. Writers
 * that collided re-read at different moments instead of colliding again;
 * every lost race means another writer succeeded, so contention drains.
 */
function backoff(attempt: number): Promise<void> {
  const ceiling = Math.min(100, 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}
