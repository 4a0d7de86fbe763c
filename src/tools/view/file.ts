/**
 * `view` of a file: every line as `N:hh|content` between bracketed meta
 * lines — a header with the total line count (plus the range, CRLF/mixed
 * endings, BOM and a missing final newline when they apply), notes about
 * clamped bounds, and a footer that says where a bounded view was cut and
 * gives the exact call that continues from there.
 */

import { fail, ok, withFacts, type ToolResult } from "../../result.ts";
import { type LineEndingCounts, lineEndingCounts } from "../../text/document.ts";
import { renderLines } from "../../text/render.ts";
import type { ReadStreamResult } from "../../storage/types.ts";
import { loadTextFile } from "../support/load.ts";
import { observeAbsent, observeLinesSeen, observePresent } from "../support/observe.ts";
import { shownPath, toolError } from "../support/remedy.ts";
import type { ToolContext } from "../types.ts";
import { formatSize, plural, viewCall } from "./format.ts";
import { resolveRange } from "./range.ts";
import { sinceView } from "./since-view.ts";
import { invalidArgument } from "./messages.ts";
import { type FileRows, lineCapOf, rowBudgetOf, streamView, type StreamedView } from "./stream-view.ts";

/** Line endings and the other facts about a file's bytes worth a model's attention. */
export function fileTraits(endings: LineEndingCounts, bom: boolean): string[] {
  const { crlf, lf } = endings;
  const traits: string[] = [];
  if (crlf > 0 && lf > 0) traits.push(`mixed line endings (${crlf} CRLF, ${lf} LF)`);
  else if (crlf > 0) traits.push("CRLF line endings");
  if (bom) traits.push("UTF-8 BOM");
  if (endings.unterminatedLast) traits.push("no final newline");
  return traits;
}

/**
 * View lines `start..end` of the file at `path` (normalised). Records
 * present(version) on success and absent when nothing is there. `extraNotes`
 * are shown under the header (e.g. arguments that do not apply to a file).
 *
 * Storage that streams is read as a stream (see ./stream-view.ts): one read
 * of the bytes, memory bounded by the rows shown, and a ranged view of a file
 * over `maxFileBytes` works. Other storage is read whole.
 */
export async function viewFile(
  ctx: ToolContext,
  path: string,
  bounds: { start?: string | number; end?: string | number },
  extraNotes: readonly string[] = [],
): Promise<ToolResult> {
  const rows = ctx.storage.readStream ? await streamedRows(ctx, path, bounds) : await loadedRows(ctx, path, bounds);
  if (rows.ok) {
    // What this view showed: a ranged or cut view covers only part of the version (see policy/seen.ts).
    const { rendered, total, version } = rows.rows;
    const ids = rendered.hashes && rendered.to >= rendered.from ? [{ first: rendered.from, hashes: rendered.hashes }] : [];
    await observeLinesSeen(ctx, path, version, total === 0 ? [] : [[rendered.from, rendered.to]], total, ids);
  }
  return rows.ok ? formatFileView(ctx, path, rows.rows, extraNotes) : rows.result;
}

async function streamedRows(ctx: ToolContext, path: string, bounds: { start?: string | number; end?: string | number }): Promise<StreamedView> {
  let opened: ReadStreamResult;
  try {
    opened = await ctx.storage.readStream!(path);
  } catch (error) {
    if ((error as { code?: string }).code === "FS_NOT_FOUND") await observeAbsent(ctx, path);
    return { ok: false, result: toolError(error, path) };
  }
  // A whole view of a file over the limit would only be cut: say how to see part of it.
  if (opened.size > ctx.limits.maxFileBytes && bounds.start === undefined && bounds.end === undefined) {
    await opened.stream.cancel().catch(() => {});
    return { ok: false, result: tooLargeToView(path, opened.size, ctx.limits.maxFileBytes) };
  }
  const viewed = await streamView(ctx, path, bounds, opened);
  // A file found not to be text counts as seen too (streamView reads it to the end for its
  // version): the write the refusal offers would otherwise ask for a view, a recovery loop.
  // A range that does not fit the file showed no line of it: the version is known, its lines are not.
  if (!viewed.ok && viewed.version !== undefined) {
    if (viewed.result.code === "FS_NOT_TEXT") await observePresent(ctx, path, viewed.version);
    else await observeLinesSeen(ctx, path, viewed.version, [], Number.MAX_SAFE_INTEGER);
  }
  return viewed;
}

async function loadedRows(ctx: ToolContext, path: string, bounds: { start?: string | number; end?: string | number }): Promise<StreamedView> {
  // Bounds that do not parse are refused before reading, as the streaming path does.
  const parsed = resolveRange(bounds.start, bounds.end, 0, () => 0);
  if (!parsed.ok) return { ok: false, result: invalidArgument(parsed.message) };
  const loaded = await loadTextFile(ctx, path, { observe: "failures" });
  if (!loaded.ok) return loaded;
  const { doc } = loaded;
  // Line strings are never built for a view: counts and rows come from the bytes and offsets.
  const total = doc.hashes.length;
  const range = resolveRange(bounds.start, bounds.end, total, (n) => doc.hashes[n - 1], await sinceView(ctx, path, loaded.version));
  if (!range.ok) {
    await observeLinesSeen(ctx, path, loaded.version, [], total);
    return { ok: false, result: invalidArgument(range.message) };
  }
  const cappedTo = Math.min(range.to, range.from + lineCapOf(ctx.limits) - 1);
  const rendered = renderLines(doc, range.from, cappedTo, {
    maxLineChars: ctx.limits.maxLineChars,
    maxOutputBytes: rowBudgetOf(ctx.limits),
  });
  return { ok: true, rows: { total, endings: lineEndingCounts(doc), bom: doc.bom, range, rendered, version: loaded.version } };
}

const LONE_CR_NOTE =
  'this file breaks its lines with lone CRs ("\\r", classic Mac line endings), so it shows as one line with "\\r" inside it; ' +
  "edit and batch_edit do not change such a file: replace it whole with write, which writes its content with the line endings as sent";

/** The view text: header, notes, rows, and the footers for shortened lines and a cut. */
function formatFileView(ctx: ToolContext, path: string, rows: FileRows, extraNotes: readonly string[]): ToolResult {
  const { total, range, rendered } = rows;
  const name = shownPath(path);
  const traits = fileTraits(rows.endings, rows.bom);
  // A CR-only file is one line with "\r" inside (text/eol.ts breaksWithLoneCr): said, with the one tool that changes it.
  const loneCr = total === 1 && rows.endings.crlf === 0 && rows.endings.lf === 0 && rendered.text.includes("\r");
  const notes = [...extraNotes, ...range.notes, ...(loneCr ? [LONE_CR_NOTE] : [])];
  const noteLine = notes.length > 0 ? [`[note: ${notes.join("; ")}]`] : [];
  if (total === 0) {
    const empty = ok([`[${name}: empty file (0 lines)${traits.map((t) => `, ${t}`).join("")}]`, ...noteLine].join("\n"));
    return withFacts(empty, { path: name, version: rows.version, lines: { from: 0, to: 0, total: 0 } });
  }

  const { limits } = ctx;
  const wantedTo = range.to;
  const whole = rendered.from === 1 && rendered.to === total;
  const span = whole ? plural(total, "line") : `lines ${rendered.from}-${rendered.to} of ${total}`;
  const head = [`[${name}: ${[span, ...traits].join(", ")}]`, ...noteLine].join("\n");
  const tail: string[] = [];
  if (rendered.truncatedLines > 0) {
    tail.push(`[${plural(rendered.truncatedLines, "line")} longer than ${limits.maxLineChars} characters shown shortened; ids still cover the whole line]`);
  }
  if (rendered.to < wantedTo) {
    const why = rendered.complete ? `the ${limits.maxViewLines}-line limit` : `the ${formatSize(limits.maxOutputBytes)} output limit`;
    const next = viewCall(path, { start: rendered.to + 1, end: wantedTo < total ? wantedTo : undefined });
    tail.push(`[cut at line ${rendered.to} by ${why}; ${plural(wantedTo - rendered.to, "more line")} to show. Continue: ${next}]`);
  }
  // Concatenated, not joined: the rows may be a rope of many pieces that a join would copy whole.
  const foot = tail.length > 0 ? `\n${tail.join("\n")}` : "";
  const facts = { path: name, version: rows.version, lines: { from: rendered.from, to: rendered.to, total } };
  return withFacts(ok(`${head}\n${rendered.text}${foot}`), facts);
}

function tooLargeToView(path: string, size: number, limit: number): ToolResult {
  const shown = JSON.stringify(shownPath(path));
  return fail(
    "FS_TOO_LARGE",
    `\`${shownPath(path)}\` is ${formatSize(size)}, over the ${formatSize(limit)} limit for viewing a whole file. ` +
      `Search it instead: view {"path": ${shown}, "content": "<text to find>"}, or view part of it: ` +
      `view {"path": ${shown}, "start": -100} (the last 100 lines) or view {"path": ${shown}, "start": 1, "end": 200}.`,
  );
}
