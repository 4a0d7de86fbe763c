/**
 * `batch_edit`: several line-id edits to one file, all or nothing. Each
 * attempt re-verifies every id against the content it is about to replace,
 * so a retry after a lost race applies only if every target is still
 * proven (`mutateFile`).
 */

import * as v from "valibot";
import { fail, type ToolResult } from "../../result.ts";
import { documentFromLines } from "../../text/document.ts";
import type { spliceLineEdits } from "../../text/line-edits.ts";
import { capOutput, changedSinceViewNote, changeResult, reportChange } from "../support/change-report.ts";
import { type FileSnapshot, type Landed, mutateFile, type Plan } from "../support/mutate.ts";
import { argPath, FILE_PATH_RULE } from "../support/paths.ts";
import { shownPath } from "../support/remedy.ts";
import type { ToolContext, ToolDef } from "../types.ts";
import { planBatch } from "./apply.ts";
import { checkContents } from "./content.ts";
import { refusalCode, renderRefusal } from "./messages.ts";
import { MAX_OPERATIONS, type Operation, type OpFailure, parseOperations, type RawOperation } from "./parse.ts";

const lineId = (description: string) => v.pipe(v.union([v.string(), v.number()]), v.description(description));
const content = (description: string) => v.pipe(v.string(), v.description(description));

const replaceOp = v.strictObject({
  operation: v.literal("replace"),
  start: lineId('First line to replace: its line id "N:hh" from view or a previous result, e.g. "12:a3".'),
  end: v.optional(lineId('Last line to replace (inclusive), as a line id. Omit to replace only start.')),
  content: content("The lines to put in place of start..end. A trailing newline does not add an empty line."),
});
const insertOp = v.strictObject({
  operation: v.literal("insert"),
  after: lineId('Insert after this line: its line id "N:hh", or 0 for the start of the file, -1 for the end.'),
  content: content("The lines to insert. A trailing newline does not add an empty line."),
});
const deleteOp = v.strictObject({
  operation: v.literal("delete"),
  start: lineId('First line to delete, as a line id "N:hh".'),
  end: v.optional(lineId("Last line to delete (inclusive), as a line id. Omit to delete only start.")),
});

const schema = v.strictObject({
  path: v.pipe(v.string(), v.minLength(1), v.description('Workspace-relative file path, e.g. "src/app.ts".')),
  operations: v.pipe(
    v.array(v.variant("operation", [replaceOp, insertOp, deleteOp])),
    v.minLength(1, "give at least one operation"),
    v.maxLength(MAX_OPERATIONS, `at most ${MAX_OPERATIONS} operations per call; split the change into several calls`),
    v.description("The edits, applied together; every id refers to the file as you viewed it."),
  ),
  verbatim: v.optional(
    v.pipe(
      v.boolean(),
      v.description('Write every content exactly as sent, even lines starting with a view prefix "N:hh|", a markdown code fence around it, or a one-line content with literal \\n / \\t (otherwise refused, with the corrected operation). Default false.'),
    ),
  ),
});

const DESCRIPTION = `Edit a file by line id: replace, insert or delete whole lines, several operations in one call, all or nothing.
- A line id is "N:hh" as view prints it in front of each line ("12:a3|const x = 1;" -> "12:a3"): N is the line number, hh a 2-hex hash of the line's content. An id proves its line: if the file changed and the line is no longer there, the call fails with the current lines and fresh ids instead of editing the wrong line. Bare line numbers are refused (the refusal gives that line's id).
- operations (1-${MAX_OPERATIONS}), each one of:
  {"operation": "replace", "start": "12:a3", "end": "14:0c", "content": "new lines"}   (end optional: just start)
  {"operation": "insert", "after": "12:a3", "content": "new lines"}   (after: an id, 0 = start of file, -1 = end)
  {"operation": "delete", "start": "12:a3", "end": "14:0c"}
- Every id refers to the file as you viewed it, not as changed by earlier operations of the same call; operations may not overlap. Nothing is written unless every operation verifies.
- content is lines of text; a trailing newline does not add an empty line. Do not repeat the lines around the range in content.
- View the file first in this session. The file keeps its line endings (CRLF stays CRLF), byte-order mark and final-newline state.
- The result is a diff with fresh ids: use them for the next batch_edit without another view.
${FILE_PATH_RULE}
Example: {"path": "src/app.ts", "operations": [{"operation": "replace", "start": "3:5f", "content": "const port = 8080;"}, {"operation": "insert", "after": -1, "content": "export { port };"}]}`;

/** The `batch_edit` tool. */
export const batchEditTool: ToolDef<typeof schema> = {
  name: "batch_edit",
  description: DESCRIPTION,
  schema,
  scope: "write",
  annotations: { destructiveHint: true, idempotentHint: false },
  async run(args, ctx) {
    const target = argPath(args.path, ctx.storage, { file: true });
    if (!target.ok) return target.result;
    const path = target.path;
    const raw = args.operations as readonly RawOperation[];
    const { ops, failures } = parseOperations(raw, shownPath(path));
    const verbatim = args.verbatim === true;
    return mutateFile(ctx, path, (file) => plan(ctx, path, file, { ops, failures, raw, verbatim }), { tool: "batch_edit" });
  },
};

interface Parsed {
  readonly ops: readonly Operation[];
  readonly failures: readonly OpFailure[];
  readonly raw: readonly RawOperation[];
  readonly verbatim: boolean;
}

function plan(ctx: ToolContext, path: string, file: FileSnapshot, parsed: Parsed): Plan {
  const { doc } = file;
  const total = parsed.raw.length;
  const checked = parsed.verbatim
    ? { ops: parsed.ops, failures: [], notes: [] }
    : checkContents(doc, shownPath(path), parsed.ops, parsed.raw);
  const ops = checked.ops;
  const parseFailures = [...parsed.failures, ...checked.failures].sort((a, b) => a.index - b.index);
  const planned = planBatch(doc, ops, parseFailures, shownPath(path), ctx.limits.maxLineChars, {
    raw: parsed.raw,
    changedSinceView: file.changedSinceView,
  });
  if (planned.kind === "failed") {
    const text = capOutput(renderRefusal(planned.failures, total, planned.corrected), ctx.limits.maxOutputBytes);
    return { kind: "stop", result: fail(refusalCode(planned.failures), text) };
  }
  if (planned.kind === "no-change") {
    return {
      kind: "stop",
      result: fail(
        "EDIT_NO_CHANGE",
        `These operations leave \`${shownPath(path)}\` exactly as it is (each replace's content equals the lines it replaces); nothing was written.`,
      ),
    };
  }
  const { out } = planned;
  const next = documentFromLines(doc.bom, out, ctx.hasher);
  return {
    kind: "write",
    bytes: next.bytes,
    done: (landed) => success(ctx, path, doc.lines, out, ops, landed, checked.notes),
  };
}

function success(
  ctx: ToolContext,
  path: string,
  oldLines: readonly string[],
  out: ReturnType<typeof spliceLineEdits>,
  ops: readonly Operation[],
  landed: Landed,
  notes: readonly string[],
): ToolResult {
  const counts = new Map<string, number>();
  for (const op of ops) counts.set(op.kind, (counts.get(op.kind) ?? 0) + 1);
  const kinds = [...counts].map(([kind, n]) => `${n} ${kind}`).join(", ");
  const report = reportChange(oldLines, out.lines, out.edits, ctx.limits);
  const heading = `Applied ${ops.length} operation${ops.length === 1 ? "" : "s"} to \`${shownPath(path)}\` (${kinds}): ${oldLines.length} -> ${out.lines.length} lines.`;
  const since = landed.changedSinceView
    ? changedSinceViewNote(path, "every line id was verified against the current content, so the operations landed on the lines you named")
    : undefined;
  return changeResult([heading, ...notes.map((n) => `Note: ${n}`)], report, [since], ctx.limits, { path, version: landed.version });
}
