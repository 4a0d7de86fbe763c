/** Small fake tools and contexts for the pipeline tests (no storage, no real tools). */
import * as v from "valibot";
import { ok, type ToolResult } from "../../src/result.ts";
import type { ToolContext, ToolDef } from "../../src/tools/types.ts";
import { DEFAULT_LIMITS } from "../../src/tools/types.ts";

import type { Scope } from "../../src/scopes.ts";

/** A fake tool; `run` defaults to echoing its arguments as JSON. */
export function fakeTool<S extends v.GenericSchema>(
  name: string,
  scope: Scope,
  schema: S,
  run: (args: v.InferOutput<S>, ctx: ToolContext) => Promise<ToolResult> = async (args) => ok(JSON.stringify(args)),
): ToolDef<S> {
  return { name, description: `fake ${name}`, schema, annotations: {}, scope, run };
}

/** A context whose only real part is the caller; the pipeline never touches the rest. */
export function fakeCtx(scopes: Scope[] = ["read", "write", "exec"], signal?: AbortSignal): ToolContext {
  const unused = {} as never;
  return {
    storage: unused,
    observations: unused,
    hasher: unused,
    limits: DEFAULT_LIMITS,
    caller: { session: "s1", scopes: new Set(scopes) },
    signal,
  };
}

/** A read tool taking `{ path }` that echoes the path. */
export const echo = fakeTool("echo", "read", v.strictObject({ path: v.string() }), async ({ path }) => ok(`echo ${path}`));
