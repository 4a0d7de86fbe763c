/**
 * `view` of a file: every line as `N:hh|content` between bracketed meta
 * lines — a header with the total line count (plus the range, CRLF/mixed
 * endings, BOM and a missing final newline when they apply), notes about
 * clamped bounds, and a footer that says where a bounded view was cut and
 * gives the exact call that continues from there.
 */

import { ok, type ToolResult } from "../../result.ts";
import type { TextDocument } from "../../text/document.ts";
import { renderLines } from "../../text/render.ts";
import { loadTextFile } from "../support/load.ts";
import { shownPath } from "../support/remedy.ts";
import type { ToolContext } from "../types.ts";
import { formatSize, plural, viewCall } from "./format.ts";
import { resolveRange } from "./range.ts";
import { invalidArgument } from "./errors.ts";

/** Room kept for the header, notes and footer inside the output byte limit. */
const META_RESERVE_BYTES = 1024;

/** Line endings and the other facts about a file's bytes worth a model's attention. */
export function fileTraits(doc: Pick<TextDocument, "eols" | "bom">): string[] {
  let crlf = 0;
  let lf = 0;
  for (const eol of doc.eols) {
    if (eol === "\r\n") crlf++;
    else if (eol === "\n") lf++;
  }
  const traits: string[] = [];
  if (crlf > 0 && lf > 0) traits.push(`mixed line endings (${crlf} CRLF, ${lf} LF)`);
  else if (crlf > 0) traits.push("CRLF line endings");
  if (doc.bom) traits.push("UTF-8 BOM");
  if (doc.eols.length > 0 && doc.eols[doc.eols.length - 1] === "") traits.push("no final newline");
  return traits;
}

/**
 * View lines `start..end` of the file at `path` (normalised). Records
 * present(version) on success and absent when nothing is there (through
 * `loadTextFile`). `extraNotes` are shown under the header (e.g. arguments
 * that do not apply to a file).
 */
export async function viewFile(
  ctx: ToolContext,
  path: string,
  bounds: { start?: string | number; end?: string | number },
  extraNotes: readonly string[] = [],
): Promise<ToolResult> {
  const loaded = await loadTextFile(ctx, path, { observe: true });
  if (!loaded.ok) return loaded.result;
  const { doc } = loaded;
  const name = shownPath(path);
  const total = doc.lines.length;
  const range = resolveRange(bounds.start, bounds.end, total, (n) => doc.hashes[n - 1]);
  if (!range.ok) return invalidArgument(range.message);

  const traits = fileTraits(doc);
  const notes = [...extraNotes, ...range.notes];
  const noteLine = notes.length > 0 ? [`[note: ${notes.join("; ")}]`] : [];
  if (total === 0) {
    return ok([`[${name}: empty file (0 lines)${traits.map((t) => `, ${t}`).join("")}]`, ...noteLine].join("\n"));
  }

  const { limits } = ctx;
  const lineCap = Math.max(1, limits.maxViewLines);
  const wantedTo = range.to;
  const cappedTo = Math.min(wantedTo, range.from + lineCap - 1);
  const reserve = Math.min(META_RESERVE_BYTES, Math.floor(limits.maxOutputBytes / 4));
  const rendered = renderLines(doc, range.from, cappedTo, {
    maxLineChars: limits.maxLineChars,
    maxOutputBytes: Math.max(1, limits.maxOutputBytes - reserve),
  });

  const whole = rendered.from === 1 && rendered.to === total;
  const span = whole ? plural(total, "line") : `lines ${rendered.from}-${rendered.to} of ${total}`;
  const out = [`[${name}: ${[span, ...traits].join(", ")}]`, ...noteLine, rendered.text];

  if (rendered.truncatedLines > 0) {
    out.push(
      `[${plural(rendered.truncatedLines, "line")} longer than ${limits.maxLineChars} characters shown shortened; ` +
        `ids still cover the whole line]`,
    );
  }
  if (rendered.to < wantedTo) {
    const why = rendered.complete
      ? `the ${limits.maxViewLines}-line limit`
      : `the ${formatSize(limits.maxOutputBytes)} output limit`;
    const next = viewCall(path, { start: rendered.to + 1, end: wantedTo < total ? wantedTo : undefined });
    out.push(`[cut at line ${rendered.to} by ${why}; ${plural(wantedTo - rendered.to, "more line")} to show. Continue: ${next}]`);
  }
  return ok(out.join("\n"));
}
