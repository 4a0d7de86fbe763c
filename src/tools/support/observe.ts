/** Thin helpers over the session's observation store, keyed by the caller's session. */

import type { Observation } from "../../policy/types.ts";
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
