/** Thin helpers over the session's observation store, keyed by the caller's session. */

import { type HeldIds, heldAfterEdit, hold, holdSpans } from "../../policy/held-ids.ts";
import { afterOwnEdit, type LineChange, loosened, shownByChanges, withShown, withVersions } from "../../policy/own-edits.ts";
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

/** Lines shown to the session with their ids: the first line's number and the lines' hashes. */
export interface ShownIds {
  readonly first: number;
  readonly hashes: ArrayLike<number>;
}

/**
 * Record that this session saw lines `from..to` of the `total` lines of
 * `path` at `version`; ranged views of one version add up (see `observeLines`).
 * `ids`: the hashes those lines were shown with, which the session now holds.
 */
export async function observeLinesSeen(
  ctx: ToolContext,
  path: string,
  version: Version,
  spans: readonly LineSpan[],
  total: number,
  ids: readonly ShownIds[] = [],
): Promise<void> {
  const prior = await observed(ctx, path);
  let observation = prior;
  if (spans.length === 0) observation = observeLines(observation, version, 1, 0, total);
  for (const [from, to] of spans) observation = observeLines(observation, version, from, to, total);
  let held = prior?.kind === "present" ? prior.held : undefined;
  for (const { first, hashes } of ids) held = hold(held, first, hashes, version);
  await ctx.observations.set(ctx.caller.session, path, withHeld(observation!, held));
}

function withHeld(observation: Observation, held: HeldIds | undefined): Observation {
  if (observation.kind !== "present") return observation;
  const { held: _, ...rest } = observation;
  return held && held.length > 0 ? { ...rest, held } : rest;
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
  const prior = before?.kind === "present" ? before.own : undefined;
  const moved = afterOwnEdit(prior, changes, changes ? shownByChanges(changes) : []);
  // The versions whose held ids sit where these moves put them: the one viewed when the record began, and
  // each own edit's, until another writer's change makes the record loose (then ids shown are of their versions).
  const own =
    moved === undefined || prior?.loose ? moved : withVersions(moved, prior ? undefined : before?.kind === "present" ? before.version : undefined, version);
  // After a partial view none of the new version's lines count as seen, but the moves are kept all the same:
  // the ids the session viewed are as likely to be reused.
  const partial = before?.kind === "present" && before.seen !== undefined;
  const held = before?.kind === "present" ? heldAfterEdit(before.held, changes, { from: before.version, to: version }) : undefined;
  const next: Observation = { kind: "present", version, ...(partial ? { seen: [] } : {}), ...(own ? { own } : {}) };
  return ctx.observations.set(ctx.caller.session, path, withHeld(next, held));
}

/**
 * After an edit applied over another writer's change: the observation stays
 * at the version the session viewed (see `mutateFile`), but the ids it holds
 * move with its own edit, as the result told it, and its own edits' moves
 * are kept as a doubt (`loosened`): an id from before them may name a line
 * the session itself moved, wherever the other writer's change put it.
 */
export function observeHeldAfterEdit(
  ctx: ToolContext,
  path: string,
  before: Observation | undefined,
  changes: readonly LineChange[] | undefined,
  versions: { readonly from: Version; readonly to: Version },
): Promise<void> {
  if (before?.kind !== "present") return Promise.resolve();
  const shown = changes ? shownByChanges(changes) : [];
  // Moves that cancel out leave no record (nothing the session viewed is elsewhere); a record begun here knows the viewed version.
  const fresh = afterOwnEdit(before.own, changes, shown);
  const moved = fresh && before.own === undefined ? withVersions(fresh, before.version) : fresh;
  const { own: _, ...rest } = before;
  // Only what this result showed is current: lines shown before the other writer's change may have moved.
  const next: Observation = moved ? { ...rest, own: loosened(moved, shown) } : rest;
  const held = before.held === undefined ? undefined : heldAfterEdit(before.held, changes, versions);
  return ctx.observations.set(ctx.caller.session, path, withHeld(next, held));
}

/**
 * Record that this session was shown lines `spans` of the current file (a
 * refusal's excerpt, `hashes` its lines' hashes): it now holds their ids, and
 * after its own edits, they are current to it.
 */
export async function observeShown(
  ctx: ToolContext,
  path: string,
  spans: readonly LineSpan[],
  shown: { readonly hashes: ArrayLike<number>; readonly version: Version },
): Promise<void> {
  const observation = await observed(ctx, path);
  if (observation?.kind !== "present" || spans.length === 0) return;
  const next = observation.own ? { ...observation, own: withShown(observation.own, spans) } : observation;
  await ctx.observations.set(ctx.caller.session, path, withHeld(next, holdSpans(observation.held, spans, shown.hashes, shown.version)));
}
