/**
 * `edit`: replace exact text. The target is proven by its content (the
 * matching ladder of `applyStringEdit`), so the edit applies to the latest
 * content with a compare-and-swap and retries a lost race (`mutateFile`).
 * Matching is on LF lines; the file's own terminators, BOM and final-newline
 * state are kept by `spliceLineEdits`.
 */

import * as v from "valibot";
import { fail, type ToolResult } from "../../result.ts";
import { documentFromLines } from "../../text/document.ts";
import { spliceLineEdits } from "../../text/line-edits.ts";
import { applyStringEdit, type EditApplied } from "../../text/match.ts";
import { changedSinceViewNote, changeResult, reportChange } from "../support/change-report.ts";
import { ambiguousText, noChangeText, noMatchText } from "./messages.ts";
import { type FileSnapshot, type Landed, mutateFile, type Plan } from "../support/mutate.ts";
import { argPath } from "../support/paths.ts";
import { shownPath } from "../support/remedy.ts";
import type { ToolContext, ToolDef } from "../types.ts";

const schema = v.strictObject({
  path: v.pipe(v.string(), v.minLength(1), v.description("Workspace-relative file path, e.g. \"src/app.ts\".")),
  old_string: v.pipe(
    v.string(),
    v.description("The exact text to replace, copied from the file (without the \"N:hh|\" prefixes of view output)."),
  ),
  new_string: v.pipe(v.string(), v.description("The text to put in its place.")),
  replace_all: v.optional(
    v.pipe(v.boolean(), v.description("Replace every occurrence instead of requiring exactly one. Default false.")),
    false,
  ),
});

const DESCRIPTION = `Replace exact text in a file: old_string -> new_string.
- View the file first in this session. old_string must match exactly one place: copy it from view output without the "N:hh|" prefixes, with enough surrounding lines to be unique, or set replace_all: true to replace every match.
- Matching is by content, so changes elsewhere in the file since your view do not block the edit.
- The file keeps its line endings (CRLF stays CRLF), byte-order mark and final-newline state.
- Several matches fail with each listed as a line id "N:hh" (N = line number, hh = 2-hex content hash); no match shows the closest text with its ids.
- The result is a diff whose lines carry fresh ids, usable by batch_edit without another view.
To create a file or replace all of it use write; to insert, delete or replace lines by id use batch_edit.
Example: {"path": "src/server.ts", "old_string": "const port = 3000;", "new_string": "const port = 8080;"}`;

/** The `edit` tool. */
export const editTool: ToolDef<typeof schema> = {
  name: "edit",
  description: DESCRIPTION,
  schema,
  scope: "write",
  annotations: { destructiveHint: true, idempotentHint: false },
  async run(args, ctx) {
    const target = argPath(args.path);
    if (!target.ok) return target.result;
    if (args.old_string === "") return emptyOldString(target.path);
    const path = target.path;
    return mutateFile(ctx, path, (file) => planEdit(ctx, path, file, args), { tool: "edit" });
  },
};

function planEdit(
  ctx: ToolContext,
  path: string,
  file: FileSnapshot,
  args: { old_string: string; new_string: string; replace_all: boolean },
): Plan {
  const { doc } = file;
  const r = applyStringEdit(doc.lines, args.old_string, args.new_string, { replaceAll: args.replace_all });
  switch (r.kind) {
    case "invalid":
      return stop(fail("INVALID_ARGUMENT", `${r.message}.`));
    case "no-change":
      return stop(fail("EDIT_NO_CHANGE", noChangeText(path, r.reason)));
    case "ambiguous":
      return stop(fail("EDIT_AMBIGUOUS", ambiguousText(path, doc, r, args.old_string, ctx.limits)));
    case "no-match":
      return stop(fail("EDIT_NO_MATCH", noMatchText(path, doc, r, ctx.limits)));
    case "ok": {
      const out = spliceLineEdits(doc, r.edits);
      const next = documentFromLines(doc.bom, out, ctx.hasher);
      return {
        kind: "write",
        bytes: next.bytes,
        done: (landed) => success(ctx, path, doc.lines, out, r, landed),
      };
    }
  }
}

function success(
  ctx: ToolContext,
  path: string,
  oldLines: readonly string[],
  out: ReturnType<typeof spliceLineEdits>,
  r: EditApplied,
  landed: Landed,
): ToolResult {
  const report = reportChange(oldLines, out.lines, out.edits, ctx.limits);
  const where = r.matches.map((m) => m.line);
  const listed = where.length < r.replacements ? `${where.join(", ")}, …` : where.join(", ");
  const what = r.replacements === 1
    ? `replaced 1 occurrence (line ${listed})`
    : `replaced ${r.replacements} occurrences (lines ${listed})`;
  const heading = `Edited \`${shownPath(path)}\`: ${what}; ${oldLines.length} -> ${out.lines.length} lines.`;
  const since = landed.changedSinceView
    ? changedSinceViewNote(path, "old_string was found in the current content, and the ids above are current")
    : undefined;
  return changeResult([heading, r.hint && `Note: ${r.hint}`], report, [since], ctx.limits, { path, version: landed.version });
}

function stop(result: ToolResult): Plan {
  return { kind: "stop", result };
}

function emptyOldString(path: string): ToolResult {
  const p = JSON.stringify(shownPath(path));
  return fail(
    "INVALID_ARGUMENT",
    `old_string is empty: edit replaces existing text, so old_string must be the exact text to replace. ` +
      `To create a file or replace all of its content, use write {"path": ${p}, "content": "..."}; ` +
      `to insert lines, use batch_edit {"path": ${p}, "operations": [{"operation": "insert", "after": "N:hh", "content": "..."}]} ` +
      `(after: a line id from view, 0 for the start of the file, -1 for the end).`,
  );
}
