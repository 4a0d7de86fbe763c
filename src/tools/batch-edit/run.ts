/**
 * `batch_edit`: several line-id edits to one file, all or nothing. Each
 * attempt re-verifies every id against the content it is about to replace,
 * so a retry after a lost race applies only if every target is still
 * proven (`mutateFile`).
 */

import { fail, type ToolResult } from "../../result.ts";
import { encodeDocument } from "../../text/document.ts";
import { capOutput, type ChangeReport, changedSinceViewNote, changeResult, reportChange, reportHunks, reportOnce } from "../support/change-report.ts";
import { type FileSnapshot, type Landed, mutateFile, type Plan } from "../support/mutate.ts";
import { shownPath } from "../support/remedy.ts";
import { windowing } from "../support/windowing.ts";
import { defineTool } from "../define.ts";
import type { ToolContext } from "../types.ts";
import { BatchEditSchema, DESCRIPTION } from "./schema.ts";
import { planBatch } from "./apply.ts";
import { checkContents, checkVerbatim } from "./content.ts";
import { windowedBatch } from "./windowed.ts";
import { refusalCode, renderRefusal } from "./messages.ts";
import { type Operation, type OpFailure, parseOperations, type RawOperation } from "./parse.ts";

/** The `batch_edit` tool. */
export const batchEditTool = defineTool({
  name: "batch_edit",
  description: DESCRIPTION,
  schema: BatchEditSchema,
  scope: "write",
  target: "file",
  annotations: { destructiveHint: true, idempotentHint: false },
  async run(args, ctx, path) {
    const raw = args.operations as readonly RawOperation[];
    const { ops, failures } = parseOperations(raw, shownPath(path));
    const verbatim = args.verbatim === true;
    return mutateFile(ctx, path, (file) => plan(ctx, path, file, { ops, failures, raw, verbatim }), { tool: "batch_edit", args });
  },
});

interface Parsed {
  readonly ops: readonly Operation[];
  readonly failures: readonly OpFailure[];
  readonly raw: readonly RawOperation[];
  readonly verbatim: boolean;
}

function plan(ctx: ToolContext, path: string, file: FileSnapshot, parsed: Parsed): Plan {
  const { doc } = file;
  const windowed =
    parsed.failures.length > 0 || !windowing.enabled
      ? undefined
      : windowedBatch(doc, {
          ops: parsed.ops,
          raw: parsed.raw,
          verbatim: parsed.verbatim,
          path: shownPath(path),
          maxLineChars: ctx.limits.maxLineChars,
          changedSinceView: file.changedSinceView,
          own: file.own,
          ownLoose: file.ownLoose,
          held: file.held,
          version: file.version,
        });
  if (windowed) {
    const { hunks, oldLineCount, newLineCount } = windowed;
    const report = reportOnce(() => reportHunks(hunks, oldLineCount, ctx.limits));
    return {
      kind: "write",
      bytes: windowed.bytes,
      prepare: report,
      done: (landed) => success(ctx, path, { oldLineCount, newLineCount, report }, windowed.ops, landed, windowed.notes),
    };
  }
  const total = parsed.raw.length;
  const checked = parsed.verbatim
    ? checkVerbatim(parsed.ops, parsed.raw)
    : checkContents(doc, shownPath(path), parsed.ops, parsed.raw, ctx.limits.maxLineChars);
  const ops = checked.ops;
  const parseFailures = [...parsed.failures, ...checked.failures].sort((a, b) => a.index - b.index);
  const planned = planBatch(doc, ops, parseFailures, shownPath(path), ctx.limits.maxLineChars, {
    raw: parsed.raw,
    changedSinceView: file.changedSinceView,
    own: file.own,
    ownLoose: file.ownLoose,
    held: file.held,
    version: file.version,
  });
  if (planned.kind === "failed") {
    const text = capOutput(renderRefusal(planned.failures, total, planned.corrected), ctx.limits.maxOutputBytes);
    return { kind: "stop", result: fail(refusalCode(planned.failures), text), shown: planned.shown };
  }
  if (planned.kind === "no-change") {
    return {
      kind: "stop",
      result: fail(
        "EDIT_NO_CHANGE",
        `These operations leave \`${shownPath(path)}\` exactly as it is (each replace's content equals the lines it replaces); nothing was written.` +
          (parsed.raw.some((op) => "content" in op && typeof op.content === "string" && op.content.includes("\r"))
            ? ` Line endings in content never change the file's: its own are kept. To convert the file's line endings, send write with its whole content and "verbatim": true.`
            : ""),
      ),
    };
  }
  const { out } = planned;
  const report = reportOnce(() => reportChange(doc.lines, out.lines, out.edits, ctx.limits));
  return {
    kind: "write",
    bytes: encodeDocument({ bom: doc.bom, lines: out.lines, eols: out.eols }),
    prepare: report,
    done: (landed) => success(ctx, path, { oldLineCount: doc.lines.length, newLineCount: out.lines.length, report }, ops, landed, checked.notes),
  };
}

/** A written batch as the result reports it. */
interface Written {
  readonly oldLineCount: number;
  readonly newLineCount: number;
  readonly report: () => ChangeReport;
}

function success(
  ctx: ToolContext,
  path: string,
  { oldLineCount, newLineCount, report: makeReport }: Written,
  ops: readonly Operation[],
  landed: Landed,
  notes: readonly string[],
): ToolResult {
  const counts = new Map<string, number>();
  for (const op of ops) counts.set(op.kind, (counts.get(op.kind) ?? 0) + 1);
  const kinds = [...counts].map(([kind, n]) => `${n} ${kind}`).join(", ");
  const report = makeReport();
  const heading = `Applied ${ops.length} operation${ops.length === 1 ? "" : "s"} to \`${shownPath(path)}\` (${kinds}): ${oldLineCount} -> ${newLineCount} lines.`;
  const since = landed.changedSinceView
    ? changedSinceViewNote(path, "every line id was verified against the current content and, where you had been shown them, against the lines around it")
    : undefined;
  return changeResult([heading, ...notes.map((n) => `Note: ${n}`)], report, [since], ctx.limits, { path, version: landed.version });
}
