/** Thin helpers over the session's observation store, keyed by the caller's session. */

import { afterOwnEdit, type LineChange, shownByChanges, withShown } from "../../policy/own-edits.ts";
import { observeLines } from "../../policy/seen.ts";
import type { LineSpan, Observation } from "../../policy/types.ts";
import type { Version } from "../../storage/types.ts";
import type { ToolContext } from "../types.ts";

/** What this session last saw at `path` (undefined: never seen). */
export function observed(ctx: ToolContext, path: string): Promise<Observation | undefined> {
  return ctx.observations.get(ctx.caller.session, path);
}

/** Record that this session has seen `path` at `version`. */
export function observePresent(ctx: ToolContext, path: string, version: Version): Promise<void> {
  return ctx.observations.set(ctx.caller.session, path, { kind: "present", version });
}

/** Record that this session looked for `path` and found nothing. */
export function observeAbsent(ctx: ToolContext, path: string): Promise<void> {
  return ctx.observations.set(ctx.caller.session, path, { kind: "absent" });
}

/**
 * Record that this session saw lines `from..to` of the `total` lines of
 * `path` at `version`; ranged views of one version add up (see `observeLines`).
 */
export async function observeLinesSeen(ctx: ToolContext, path: string, version: Version, spans: readonly LineSpan[], total: number): Promise<void> {
  let observation = await observed(ctx, path);
  if (spans.length === 0) observation = observeLines(observation, version, 1, 0, total);
  for (const [from, to] of spans) observation = observeLines(observation, version, from, to, total);
  await ctx.observations.set(ctx.caller.session, path, observation!);
}

/**
 * Record the version a content-proven edit wrote. The session knows the new
 * content as well as it knew the old (its view plus its own change): after a
 * whole view, all of it, and where its edits moved the viewed lines
 * (`changes`, the result's changed ranges); after a partial one, its lines
 * are not mapped through the edit, so none count as seen and a whole-file
 * write asks for a view.
 */
export function observeEdited(
  ctx: ToolContext,
  path: string,
  version: Version,
  before: Observation | undefined,
  changes: readonly LineChange[] | undefined,
): Promise<void> {
  const own = afterOwnEdit(before?.kind === "present" ? before.own : undefined, changes, changes ? shownByChanges(changes) : []);
  // After a partial view none of the new version's lines count as seen, but the moves are kept all the same:
  // the ids the session viewed are as likely to be reused.
  const partial = before?.kind === "present" && before.seen !== undefined;
  return ctx.observations.set(ctx.caller.session, path, { kind: "present", version, ...(partial ? { seen: [] } : {}), ...(own ? { own } : {}) });
}

/** Record that this session was shown lines `spans` of the version it edited last (a refusal's excerpt): their ids are current to it. */
export async function observeShown(ctx: ToolContext, path: string, spans: readonly LineSpan[]): Promise<void> {
  const observation = await observed(ctx, path);
  if (observation?.kind !== "present" || !observation.own || spans.length === 0) return;
  await ctx.observations.set(ctx.caller.session, path, { ...observation, own: withShown(observation.own, spans) });
}
