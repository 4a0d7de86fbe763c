/** Set-up shared by the batch_edit tests: a session that viewed a file, another writer, a batch call. */
import { batchEditTool } from "../../src/tools/batch-edit/run.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { viewTool } from "../../src/tools/view/run.ts";
import { makeContext, seed } from "./tool-context.ts";
import { bytesOf, call, expectOk } from "./tool-mutation.ts";

export type Op = Record<string, unknown>;

/** batch_edit `operations` on `path`. */
export const batch = (ctx: ToolContext, path: string, operations: Op[]) => call(batchEditTool, { path, operations }, ctx);

/** A fresh context whose session viewed `path` (holding `text`), whole or in `range`. */
export async function viewed(path: string, text: string, range?: { start: number; end: number }): Promise<ToolContext> {
  const ctx = makeContext();
  await seed(ctx.storage, { [path]: text });
  expectOk(await call(viewTool, { path, ...range }, ctx));
  return ctx;
}

/** Another writer (not this session) replaces the file's content; the bytes and version after it. */
export async function otherWriter(ctx: ToolContext, path: string, text: string) {
  await seed(ctx.storage, { [path]: text });
  return { bytes: await bytesOf(ctx.storage, path), version: (await ctx.storage.stat(path))!.version! };
}
