/** How a bound's id that does not match its line is worded: what the session's observation says of the file. */

import { observed } from "../support/observe.ts";
import type { ToolContext } from "../types.ts";
import type { SinceView } from "./range.ts";

/** "unviewed" (no view this session), "unchanged" (still the version it viewed) or "changed" (see `SinceView`). */
export async function sinceView(ctx: ToolContext, path: string, version: string): Promise<SinceView> {
  const seen = await observed(ctx, path);
  if (seen?.kind !== "present") return "unviewed";
  return seen.version === version ? "unchanged" : "changed";
}
