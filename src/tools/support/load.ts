import { fail, type ToolResult } from "../../result.ts";
import { FileTooLargeError } from "../../storage/errors.ts";
import type { ReadResult, Version } from "../../storage/types.ts";
import { loadDocument, type TextDocument } from "../../text/document.ts";
import type { ToolContext } from "../types.ts";
import { shownPath, toolError } from "./remedy.ts";
import { observeAbsent, observePresent } from "./observe.ts";

/** A text file loaded for a tool, or the result that explains why not. */
export type LoadedFile =
  | { readonly ok: true; readonly doc: TextDocument; readonly version: Version; readonly bytes: Uint8Array }
  | { readonly ok: false; readonly result: ToolResult };

/** `bytes` as "12.3 MiB", as size refusals word it. */
export function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/**
 * Read `path` (already normalised) as a text document, within the size
 * limit. Missing files, directories, binary and non-UTF-8 content become
 * results with their codes and recoveries. With `observe`, a successful
 * load records present(version) and a missing file records absent; with
 * "failures", only the failures are recorded (the caller records which
 * lines of a loaded file the session saw). With `lazyColumns`, the line
 * hashes are computed on first use (see `loadDocument`).
 */
export async function loadTextFile(
  ctx: ToolContext,
  path: string,
  options: { observe?: boolean | "failures"; lazyColumns?: boolean } = {},
): Promise<LoadedFile> {
  let read: ReadResult;
  try {
    // One read that refuses an oversized file itself: a stat first would cost local storage a second
    // pass over the file (its versions hash the content).
    read = await ctx.storage.read(path, { maxBytes: ctx.limits.maxFileBytes });
  } catch (error) {
    if (error instanceof FileTooLargeError) return { ok: false, result: tooLarge(path, error.size, ctx.limits.maxFileBytes) };
    if ((error as { code?: string }).code === "FS_NOT_FOUND" && options.observe) await observeAbsent(ctx, path);
    return { ok: false, result: toolError(error, path) };
  }
  // A provider may ignore maxBytes (it is a hint for those that know the size first).
  if (read.bytes.length > ctx.limits.maxFileBytes) {
    return { ok: false, result: tooLarge(path, read.bytes.length, ctx.limits.maxFileBytes) };
  }
  const doc = loadDocument(read.bytes, ctx.hasher, { lazyColumns: options.lazyColumns });
  if (!doc.ok) {
    // The session has now seen this version (as not-text), so a whole-file
    // `write` may replace it: without this, write would ask for a view and
    // the view would answer FS_NOT_TEXT again, a recovery loop.
    if (options.observe) await observePresent(ctx, path, read.version);
    const what = doc.reason === "binary" ? "a binary file (it contains NUL bytes)" : "not valid UTF-8 text";
    const replace = options.observe ? "replace it whole with write (this view counts as having seen it)" : "convert it to UTF-8 first";
    return {
      ok: false,
      result: fail(
        "FS_NOT_TEXT",
        `\`${shownPath(path)}\` is ${what}: ${doc.detail}. These tools read and edit UTF-8 text only; ` + `leave this file alone, or ${replace}.`,
      ),
    };
  }
  if (options.observe === true) await observePresent(ctx, path, read.version);
  return { ok: true, doc, version: read.version, bytes: read.bytes };
}

function tooLarge(path: string, size: number, limit: number): ToolResult {
  return fail(
    "FS_TOO_LARGE",
    `\`${shownPath(path)}\` is ${mib(size)}, over the ${mib(limit)} limit for loading a whole file. ` +
      `Search it instead: view {"path": ${JSON.stringify(shownPath(path))}, "content": "<text to find>"}, ` +
      `or ask the server operator to raise the file size limit.`,
  );
}
