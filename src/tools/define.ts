/**
 * `defineTool`: the one way a file tool is made. It infers the argument
 * types from the valibot schema and does the opening every file tool shares:
 * the `path` argument normalised once at the boundary (absolute paths inside
 * a local root, a trailing "/" refused for tools that change a file), so
 * `run` receives the path in the form observations and storage use.
 */
import type * as v from "valibot";
import type { ToolResult } from "../result.ts";
import { checkArgPath } from "./support/paths.ts";
import type { ToolAnnotations, ToolContext, ToolDef } from "./types.ts";
import type { Scope } from "../scopes.ts";

/** A schema whose output carries the `path` every file tool takes. */
export type PathSchema = v.GenericSchema<unknown, { readonly path: string }>;

/** What {@link defineTool} takes. */
export interface FileToolSpec<S extends PathSchema> {
  readonly name: string;
  readonly description: string;
  readonly schema: S;
  readonly annotations: ToolAnnotations;
  readonly scope: Scope;
  /** `file`: the tool changes a file, so a path ending in "/" (a directory) is refused; `any`: files and directories. */
  readonly target: "file" | "any";
  /** The call, with `path` normalised; a refused path never reaches it. */
  run(args: v.InferOutput<S>, ctx: ToolContext, path: string): Promise<ToolResult>;
}

/** A {@link ToolDef} whose `run` opens with the shared path check. */
export function defineTool<S extends PathSchema>(spec: FileToolSpec<S>): ToolDef<S> {
  const { run, target, ...rest } = spec;
  return {
    ...rest,
    async run(args, ctx) {
      const checked = await checkArgPath(args.path, ctx.storage, { file: target === "file", call: { tool: rest.name, args } });
      if (!checked.ok) return checked.result;
      return run(args, ctx, checked.path);
    },
  };
}
