/**
 * How a successful mutation reads to the model: a diff whose context and
 * added lines carry the FRESH ids (removed lines their old ids), plus one
 * line saying how the ids of unchanged lines outside the diff moved. With
 * both, the next edit can name its lines without another view.
 */

import { changedRuns, type DiffHunk, diffFromEdits, diffLines, offsetHunks, renderDiff } from "../../text/diff.ts";
import type { LineEdit } from "../../text/line-edits.ts";
import { utf8Length } from "../../text/render.ts";
import { ok, withFacts, type ChangedRange, type ToolResult } from "../../result.ts";
import { shownPath } from "./remedy.ts";
import type { ToolLimits } from "../types.ts";

/** Most diff lines (hunk headers included) one result prints. */
export const MAX_DIFF_LINES = 200;
/** Most shifted regions the id-shift note names. */
const MAX_SHIFT_REGIONS = 4;

/** A rendered change: the diff text, the note on moved ids ("" when none moved), and the changed ranges for programs. */
export interface ChangeReport {
  readonly diff: string;
  readonly shifts: string;
  readonly changes: readonly ChangedRange[];
}

/** The lines given to {@link reportChange} are a window of the files: from 0-based line `offset` on. */
export interface ReportWindow {
  readonly offset: number;
  /** Lines of the whole old file. */
  readonly oldLineCount: number;
}

/**
 * Diff and render a change. With `edits` (old-file coordinates, as applied),
 * only the edited regions are compared; without, the whole files are diffed.
 */
export function reportChange(
  oldLines: readonly string[],
  newLines: readonly string[],
  edits: readonly LineEdit[] | undefined,
  limits: ToolLimits,
  window?: ReportWindow,
): ChangeReport {
  const local = edits ? diffFromEdits(oldLines, newLines, edits) : diffLines(oldLines, newLines);
  const hunks = window ? offsetHunks(local, window.offset) : local;
  return reportHunks(hunks, window ? window.oldLineCount : oldLines.length, limits);
}

/**
 * `make`, run once: the first call computes the report, later calls return
 * it. A plan hands it to the write as work to do while the disk flushes
 * (see `Plan.prepare`), and its success renders from it either way.
 */
export function reportOnce(make: () => ChangeReport): () => ChangeReport {
  let report: ChangeReport | undefined;
  return () => (report ??= make());
}

/** {@link reportChange} of hunks already made (numbered in the whole files). */
export function reportHunks(hunks: readonly DiffHunk[], oldLineCount: number, limits: ToolLimits): ChangeReport {
  return {
    diff: renderDiff(hunks, { maxLines: MAX_DIFF_LINES, maxLineChars: limits.maxLineChars }),
    shifts: shiftNote(hunks, oldLineCount),
    changes: changedRuns(hunks, MAX_DIFF_LINES, MAX_DIFF_LINES),
  };
}

/**
 * One line telling the model how unchanged lines between and after the
 * hunks were renumbered, e.g. "old lines 15-40 are now 17-42 (+2)". A line's
 * hash depends only on its content, so `N:hh` of such a line becomes
 * `(N+shift):hh`. "" when nothing moved.
 */
export function shiftNote(hunks: readonly DiffHunk[], oldLineCount: number): string {
  const regions: string[] = [];
  let more = 0;
  for (let h = 0; h < hunks.length; h++) {
    const hunk = hunks[h];
    const from = hunk.oldStart + hunk.oldCount; // first old line after the hunk (1-based)
    const to = h + 1 < hunks.length ? hunks[h + 1].oldStart - 1 : oldLineCount;
    const shift = hunk.newStart + hunk.newCount - from;
    if (from > to || shift === 0) continue;
    if (regions.length === MAX_SHIFT_REGIONS) {
      more++;
      continue;
    }
    const verb = from === to ? "is" : "are";
    regions.push(`old ${range(from, to)} ${verb} now ${range(from + shift, to + shift)} (${shift > 0 ? "+" : ""}${shift})`);
  }
  if (regions.length === 0) return "";
  const rest = more > 0 ? `, and ${more} more region${more === 1 ? "" : "s"}` : "";
  return `Unchanged lines outside the diff moved: ${regions.join("; ")}${rest}. Their hashes are unchanged, so an old id N:hh there is now (N+shift):hh.`;
}

function range(from: number, to: number): string {
  return from === to ? `line ${from}` : `lines ${from}-${to}`;
}

/** "1 line" / "3 lines". */
export function lineCount(n: number): string {
  return `${n} line${n === 1 ? "" : "s"}`;
}

/**
 * `text` cut to at most `maxBytes` UTF-8 bytes at a line boundary, with a
 * note saying so. Diffs are already capped by lines; this bounds pathological
 * line lengths too.
 */
export function capOutput(text: string, maxBytes: number): string {
  if (utf8Length(text) <= maxBytes) return text;
  const lines = text.split("\n");
  const kept: string[] = [];
  let used = 0;
  const note = "… [output cut: it exceeded the result size limit; view the file for the rest]";
  const budget = Math.max(0, maxBytes - utf8Length(note) - 1);
  for (const line of lines) {
    const size = utf8Length(line) + 1;
    if (used + size > budget) break;
    kept.push(line);
    used += size;
  }
  kept.push(note);
  return kept.join("\n");
}

/**
 * A mutation's success result: the `before` lines (what was done), the
 * diff, the id-shift note, then the `after` notes; empty and absent parts
 * are left out, and the whole is kept within the output limit. Its facts:
 * the path, the new version and the changed ranges.
 */
export function changeResult(
  before: readonly (string | undefined)[],
  report: ChangeReport,
  after: readonly (string | undefined)[],
  limits: ToolLimits,
  written: { readonly path: string; readonly version: string },
): ToolResult {
  const parts = [...before, report.diff, report.shifts, ...after].filter((p): p is string => p !== undefined && p !== "");
  const result = ok(capOutput(parts.join("\n"), limits.maxOutputBytes));
  return withFacts(result, { path: shownPath(written.path), version: written.version, changes: report.changes });
}

/**
 * The note for a change applied over another writer's change since the
 * caller's view: `how` says why it still landed where meant; the caller
 * has not seen the other writer's lines, so a whole-file write needs a view.
 */
export function changedSinceViewNote(path: string, how: string): string {
  return `Note: \`${shownPath(path)}\` had changed since your last view (another writer); ${how}. View the file before any whole-file write.`;
}
