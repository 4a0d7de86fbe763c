/**
 * The model-facing `view` tool: read a file with line ids, list a directory,
 * or search text in either. One tool rather than three because the model
 * always knows the path it is curious about, rarely whether it is a file.
 */

import type { ToolResult } from "../../result.ts";
import type { ReadStreamResult, StatResult } from "../../storage/types.ts";
import { toolError } from "../support/remedy.ts";
import { defineTool } from "../define.ts";
import type { ToolContext } from "../types.ts";
import { DESCRIPTION, type ViewArgs, ViewArgsSchema } from "./schema.ts";
import { listDirectory } from "./directory.ts";
import { viewCall } from "./format.ts";
import { invalidArgument, notFound } from "./messages.ts";
import { badIdText, boundsWithLineNumbers } from "./range.ts";
import { viewFile } from "./file.ts";
import { search } from "./search.ts";

type Mode = "file" | "directory" | "search-file" | "search-directory";

/** Arguments the model set that the mode it reached does not use: said in a note, never silently dropped. */
function unusedArgs(args: ViewArgs, mode: Mode): string[] {
  const notes: string[] = [];
  const searching = mode === "search-file" || mode === "search-directory";
  const ignored = (names: string[], why: string) => {
    if (names.length > 0) notes.push(`ignored ${names.map((n) => `"${n}"`).join(", ")}: ${why}`);
  };
  if (!searching) {
    ignored(
      (["regex", "case_sensitive", "context"] as const).filter((k) => args[k] !== undefined),
      'they apply to a search (give "content")',
    );
  }
  if (mode === "file" || mode === "search-file") {
    const dirOnly: string[] = [];
    if (args.pattern !== undefined) dirOnly.push("pattern");
    if (args.depth !== undefined) dirOnly.push("depth");
    if (args.hidden === true) dirOnly.push("hidden");
    if (args.gitignore === false) dirOnly.push("gitignore");
    ignored(dirOnly, "they apply to directories, and this path is a file");
  } else {
    ignored(
      (["start", "end"] as const).filter((k) => args[k] !== undefined),
      "they select lines of a file, and this path is a directory",
    );
  }
  return notes;
}

async function run(args: ViewArgs, ctx: ToolContext, path: string): Promise<ToolResult> {
  const refused = badIdBounds(args, path);
  if (refused) return refused;
  try {
    return await dispatch(args, path, ctx);
  } catch (error) {
    // A storage failure mid-listing or mid-search is still an answer the model can act on.
    return toolError(error, path);
  }
}

/**
 * A bound written as an id with a malformed hash ("3:zz"): a view positions
 * by the number alone, so the refusal gives the view with the number
 * instead of sending the model off to view the file for an id.
 */
function badIdBounds(args: ViewArgs, path: string): ToolResult | undefined {
  const fixed = boundsWithLineNumbers(args.start, args.end);
  if (fixed === undefined) return undefined;
  const { path: _path, ...others } = args;
  const call = viewCall(path, { ...others, start: fixed.start, end: fixed.end });
  return invalidArgument(`${badIdText(args.start, args.end)} The same view with line numbers, ready to send:\n${call}`);
}

async function dispatch(args: ViewArgs, path: string, ctx: ToolContext): Promise<ToolResult> {
  if (args.content !== undefined) {
    const searchArgs = { ...args, content: args.content };
    if (ctx.storage.readStream) {
      // Open the file to search it as a stream; a stat would read (and on local disk hash) it first.
      let opened: ReadStreamResult | undefined;
      try {
        opened = await ctx.storage.readStream(path);
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === "FS_IS_DIRECTORY") return search(ctx, path, "directory", searchArgs, unusedArgs(args, "search-directory"));
        if (code !== "FS_NOT_FOUND") return toolError(error, path);
        // Object stores have no directory objects: a prefix reads as "not found"; stat knows better.
      }
      if (opened) return search(ctx, path, "file", searchArgs, unusedArgs(args, "search-file"), opened);
    }
    let stat: StatResult | null;
    try {
      stat = await ctx.storage.stat(path);
    } catch (error) {
      return toolError(error, path);
    }
    if (stat === null) return notFound(ctx, path, args);
    const kind = stat.kind;
    const notes = unusedArgs(args, kind === "file" ? "search-file" : "search-directory");
    return search(ctx, path, kind, searchArgs, notes);
  }

  // Most views are of files: try that first (one stat and one read), and
  // look closer only when the answer is "a directory" or "nothing here".
  const viewed = await viewFile(ctx, path, args, unusedArgs(args, "file"));
  if (viewed.code === "FS_IS_DIRECTORY") return listDirectory(ctx, path, args, unusedArgs(args, "directory"));
  if (viewed.code !== "FS_NOT_FOUND") return viewed;
  try {
    // Object stores have no directory objects: a prefix reads as "not found".
    const stat = await ctx.storage.stat(path);
    if (stat?.kind === "directory") {
      await ctx.observations.forget(ctx.caller.session, path);
      return listDirectory(ctx, path, args, unusedArgs(args, "directory"));
    }
  } catch {
    // Fall through to the not-found answer, which still holds.
  }
  return notFound(ctx, path, args);
}

/** The `view` tool. */
export const viewTool = defineTool({
  name: "view",
  description: DESCRIPTION,
  schema: ViewArgsSchema,
  annotations: { readOnlyHint: true },
  scope: "read",
  target: "any",
  run,
});
