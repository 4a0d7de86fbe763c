/**
 * `edit`: replace exact text. The target is proven by its content (the
 * matching ladder of `applyStringEdit`), so the edit applies to the latest
 * content with a compare-and-swap and retries a lost race (`mutateFile`).
 * Matching is on LF lines; the file's own terminators, BOM and final-newline
 * state are kept by `spliceLineEdits`.
 */

import { fail, type ToolResult } from "../../result.ts";
import { encodeDocument } from "../../text/document.ts";
import { editGrowth } from "../../text/edit-size.ts";
import { windowedStringEdit } from "../../text/edit-window.ts";
import type { SplitLines } from "../../text/lines.ts";
import { type LineEdit, spliceLineEdits } from "../../text/line-edits.ts";
import type { TextDocument } from "../../text/document.ts";
import { stripIdPrefixes } from "../../text/id-prefix.ts";
import { applyStringEditWithBom, BOM_CHAR } from "../../text/match-bom.ts";
import { type EditApplied, type EscapeAmbiguous, editsAtMatches, findMatch, readyEdit } from "../../text/match.ts";
import { type ChangeReport, changedSinceViewNote, changeResult, type ReportWindow, reportChange, reportOnce } from "../support/change-report.ts";
import { ambiguousText, continuationAmbiguousText, indentAmbiguousText, noChangeText, noMatchText, READY_MATCHES, tooLargeText } from "./messages.ts";
import { fittedTooLargeText } from "./limits-text.ts";
import { type FileSnapshot, type Landed, mutateFile, type Plan } from "../support/mutate.ts";
import { loneSurrogateText } from "../support/new-text.ts";
import { checkPasted, type PasteVerdict, pastedRemedy } from "../support/pasted.ts";
import { shortenedRemedy } from "../support/shortened.ts";
import { shownPath } from "../support/remedy.ts";
import { windowing } from "../support/windowing.ts";
import { defineTool } from "../define.ts";
import type { ToolContext } from "../types.ts";
import { DESCRIPTION, EditSchema } from "./schema.ts";
import { differOnlyInEols, editsWithoutTrailingCr, eolOnlyText } from "./line-endings.ts";
import { type Beside, rowsBeside } from "./pasted-beside.ts";
import { provenOffer, rowsOf, writesRows } from "./pasted-offer.ts";

/** The `edit` tool. */
export const editTool = defineTool({
  name: "edit",
  description: DESCRIPTION,
  schema: EditSchema,
  scope: "write",
  target: "file",
  annotations: { destructiveHint: true, idempotentHint: false },
  async run(args, ctx, path) {
    // Half a character cannot be written at all (UTF-8 would store U+FFFD): refused before the file is read.
    const lone = loneSurrogateText("new_string", args.new_string, (fixed) => `edit ${JSON.stringify({ ...args, path: shownPath(path), new_string: fixed })}`);
    if (lone) return fail("INVALID_ARGUMENT", lone);
    if (args.old_string === "") return emptyOldString(ctx, path, args.new_string);
    return mutateFile(ctx, path, (file) => planEdit(ctx, path, file, args), { tool: "edit", args });
  },
});

function planEdit(ctx: ToolContext, path: string, file: FileSnapshot, args: EditArgs): Plan {
  // Before anything is built: a replace_all can multiply new_string past any limit in memory.
  const growth = editGrowth(file.doc.body, args.old_string, args.new_string, args.replace_all, ctx.limits.maxFileBytes);
  if (growth) return stop(fail("LIMIT_EXCEEDED", tooLargeText(path, growth, ctx.limits.maxFileBytes, args.replace_all)));
  const windowed = planWindowed(ctx, path, file, args);
  if (windowed) return windowed;
  const { doc } = file;
  // old_string pasted with view prefixes is answered first: it decides what new_string's prefixes are.
  const maxBytes = ctx.limits.maxFileBytes;
  const prefixed =
    args.verbatim || findMatch(doc.lines, args.old_string).kind !== "no-match"
      ? undefined
      : pastedPrefixText(path, doc, args, maxBytes, ctx.limits.maxLineChars);
  if (prefixed) return stop(fail("EDIT_NO_MATCH", prefixed));
  const pasted = args.verbatim ? { kind: "clean" as const } : pastedInNewString(path, doc, args, maxBytes, ctx.limits.maxLineChars);
  if (pasted.kind === "refuse" && pasted.shortened) {
    const other = args.new_string.split("\n").filter((l) => l.trim() !== "").length > pasted.shortened.length;
    const why = pasted.unclear ? `, and no cleaned call is offered: ${pasted.unclear}` : "";
    return stop(fail("INVALID_ARGUMENT", `new_string ${pasted.what}. Nothing was written${why}.\n${shortenedRemedy(path, pasted.shortened, "edit", other)}`));
  }
  if (pasted.kind === "refuse") {
    if (pasted.unclear) {
      // What new_string should hold is in doubt (a cut diff, a shortened row): no call is offered as ready.
      return stop(
        fail(
          "INVALID_ARGUMENT",
          `new_string ${pasted.what}; and ${pasted.unclear}. Nothing was written, and no cleaned call is offered: send new_string exactly as the lines should read, ` +
            `without "N:hh|" prefixes or diff markers. If the text really belongs in the file as sent, send the same call with "verbatim": true.`,
        ),
      );
    }
    const w = pasted.widened;
    // Offered as ready only once proven to write the rows as whole lines (./pasted-offer.ts).
    const offer = provenOffer(doc, w?.oldString ?? args.old_string, w?.newString ?? pasted.cleaned, { replaceAll: args.replace_all, maxBytes });
    if (!offer) return stop(fail("INVALID_ARGUMENT", unprovenPasteText(pasted.what)));
    const call = {
      path: shownPath(path),
      old_string: offer.oldString,
      new_string: offer.newString,
      ...(args.replace_all ? { replace_all: true } : {}),
    };
    const said = w ? `${w.said} ` : offer.widened ? `The call below replaces the whole lines old_string matched in (from line ${offer.line}). ` : "";
    return stop(fail("INVALID_ARGUMENT", `new_string ${pasted.what}. ${said}${pastedRemedy(`edit ${JSON.stringify(call)}`)}`));
  }
  const newString = pasted.kind === "strip" ? pasted.text : args.new_string;
  const pastedNote = pasted.kind === "strip" ? `Note: ${pasted.note}` : undefined;
  const r = applyStringEditWithBom(doc.lines, doc.bom, args.old_string, newString, { replaceAll: args.replace_all, maxBytes });
  switch (r.kind) {
    case "too-large":
      return stop(fail("LIMIT_EXCEEDED", fittedTooLargeText(path, doc.lines, r, maxBytes)));
    case "invalid":
      return stop(fail("INVALID_ARGUMENT", `${r.message}.`));
    case "no-change":
      if (differOnlyInEols(args.old_string, newString)) return stop(fail("EDIT_NO_CHANGE", eolOnlyText(path, doc, newString)));
      return stop(fail("EDIT_NO_CHANGE", noChangeText(path, r.reason) + keptStateNote(doc, args)));
    case "escape-ambiguous":
      return stop(fail("EDIT_AMBIGUOUS", escapeAmbiguousText(path, r, args)));
    case "ambiguous": {
      // The edit of each place alone, as a call proven to make it (a BOM in new_string is dropped, as the ladder does).
      const sent = doc.bom && newString.startsWith(BOM_CHAR) ? newString.slice(1) : newString;
      const ready = editsAtMatches(doc.lines, args.old_string, sent, READY_MATCHES, { maxBytes }).map((e) => e && readyEdit(doc.lines, e));
      return stop(fail("EDIT_AMBIGUOUS", ambiguousText(path, doc, r, args.old_string, ctx.limits, ready)));
    }
    case "indent-ambiguous":
      return stop(
        fail(
          "EDIT_AMBIGUOUS",
          indentAmbiguousText(
            path,
            doc,
            r,
            r.readings.map((e) => readyEdit(doc.lines, e)),
            ctx.limits,
          ),
        ),
      );
    case "continuation-ambiguous":
      return stop(
        fail(
          "EDIT_AMBIGUOUS",
          continuationAmbiguousText(
            path,
            doc,
            r,
            r.readings.map((e) => readyEdit(doc.lines, e)),
          ),
        ),
      );
    case "no-match":
      return stop(fail("EDIT_NO_MATCH", noMatchText(path, doc, r, ctx.limits, args)));
    case "ok": {
      // A "\r" ending a new line is half of a CRLF: the line keeps its own ending instead (verbatim: as sent).
      const cr: { edits: readonly LineEdit[]; note?: string } = args.verbatim ? { edits: r.edits } : editsWithoutTrailingCr(doc.lines, r.edits, newString);
      const out = spliceLineEdits(doc, cr.edits);
      const outcome = outcomeOf(ctx, () => ({ old: doc, out, r, oldLineCount: doc.lines.length, newLineCount: out.lines.length, atEnd: true }));
      const notes = [pastedNote, cr.note].filter(Boolean).join("\n") || undefined;
      return {
        kind: "write",
        bytes: encodeDocument({ bom: doc.bom, lines: out.lines, eols: out.eols }),
        prepare: outcome.report,
        done: (landed) => success(ctx, path, outcome, landed, notes),
      };
    }
  }
}

/**
 * The edit on the lines around a unique exact match only (see
 * text/edit-window.ts), or undefined for the whole-file path. The paste
 * checks need the file's lines only for a fence or a view prefix in
 * new_string, so such a new_string takes the whole-file path.
 */
function planWindowed(ctx: ToolContext, path: string, file: FileSnapshot, args: EditArgs): Plan | undefined {
  if (!windowing.enabled) return undefined;
  if (!args.verbatim && checkPasted(args.new_string, { path: shownPath(path) }).kind !== "clean") return undefined;
  // A lone "\r" may end a new line: the whole-file path reads it as part of the line ending.
  if (!args.verbatim && /\r(?!\n)/.test(args.new_string)) return undefined;
  const w = windowedStringEdit(file.doc, args.old_string, args.new_string, { replaceAll: args.replace_all });
  if (!w) return undefined;
  // The window's place in the file is counted only when the result is reported (see WindowedEdit.place).
  const outcome = outcomeOf(ctx, () => {
    const { offset, matches, oldLineCount, newLineCount } = w.place();
    const window = { offset, oldLineCount };
    return { old: w.old, out: w.out, r: { matches, replacements: 1 }, oldLineCount, newLineCount, window, atEnd: w.atEnd };
  });
  return { kind: "write", bytes: w.bytes, prepare: outcome.report, done: (landed) => success(ctx, path, outcome, landed, undefined) };
}

/** An applied edit as the result reports it: the lines compared (the file's, or a window of them with `window`). */
interface Applied {
  readonly old: SplitLines;
  readonly out: ReturnType<typeof spliceLineEdits>;
  readonly r: Pick<EditApplied, "matches" | "replacements" | "hint">;
  readonly oldLineCount: number;
  readonly newLineCount: number;
  readonly window?: ReportWindow;
  /** `old` ends where the file ends. */
  readonly atEnd: boolean;
}

/** An applied edit and its diff, each made once, when first asked for (see `Plan.prepare`). */
interface Outcome {
  readonly applied: () => Applied;
  readonly report: () => ChangeReport;
}

function outcomeOf(ctx: ToolContext, make: () => Applied): Outcome {
  let made: Applied | undefined;
  const applied = () => (made ??= make());
  return {
    applied,
    report: reportOnce(() => {
      const { old, out, window } = applied();
      return reportChange(old.lines, out.lines, out.edits, ctx.limits, window);
    }),
  };
}

function success(ctx: ToolContext, path: string, outcome: Outcome, landed: Landed, pastedNote: string | undefined): ToolResult {
  const { old, out, r, oldLineCount, newLineCount, atEnd } = outcome.applied();
  const report = outcome.report();
  // Each line once: several occurrences on one line are one line changed ("lines 1, 3", not "1, 1, 1, 3").
  const where = [...new Set(r.matches.map((m) => m.line))];
  const listed = r.matches.length < r.replacements ? `${where.join(", ")}, …` : where.join(", ");
  const lines = where.length === 1 && r.matches.length === r.replacements ? `line ${listed}` : `lines ${listed}`;
  const what = r.replacements === 1 ? `replaced 1 occurrence (line ${listed})` : `replaced ${r.replacements} occurrences (${lines})`;
  const heading = `Edited \`${shownPath(path)}\`: ${what}; ${oldLineCount} -> ${newLineCount} lines.`;
  const ending = atEnd ? finalNewlineNote(old, out) : undefined;
  const since = landed.changedSinceView ? changedSinceViewNote(path, "old_string was found in the current content, and the ids above are current") : undefined;
  return changeResult([heading, r.hint && `Note: ${r.hint}`, pastedNote, ending], report, [since], ctx.limits, { path, version: landed.version });
}

type EditArgs = { old_string: string; new_string: string; replace_all: boolean; verbatim?: boolean };

/** A paste verdict for new_string; `widened`: the call to offer instead of the cleaned one (see pasted-beside.ts). */
type NewStringPaste = PasteVerdict & { readonly widened?: Extract<Beside, { kind: "widened" }> };

/**
 * Pasted view artifacts in new_string (see support/pasted.ts). The region an
 * edit replaces is where old_string matches, so prefixes are first stripped
 * to find it: prefixes that all name lines of that region are a paste of
 * their view, anything else is refused. Rows naming lines beside the match
 * widen the offered call, or leave none ready (pasted-beside.ts).
 */
function pastedInNewString(path: string, doc: TextDocument, args: EditArgs, maxBytes: number, maxLineChars?: number): NewStringPaste {
  const target = { path: shownPath(path), fileLines: () => doc.lines, maxLineChars };
  const first = checkPasted(args.new_string, target);
  if (first.kind !== "refuse") return first;
  const trial = applyStringEditWithBom(doc.lines, doc.bom, args.old_string, first.cleaned, { replaceAll: args.replace_all, maxBytes });
  if (trial.kind !== "ok") return first;
  const ownsId = (n: number, h: number) => doc.hashes[n - 1] === h && inEdit(trial.edits, n - 1);
  // The matched lines are the region replaced: a shortened line's marker one of them ends with is the file's own.
  const region = trial.edits.map((e) => [e.start + 1, Math.max(e.end, e.start + 1)] as const);
  const verdict = checkPasted(args.new_string, { ...target, ownsId, region });
  if (verdict.kind === "strip") return partLineStrip(doc, args.old_string, verdict, trial, maxBytes) ?? verdict;
  if (verdict.kind !== "refuse" || verdict.unclear || verdict.shortened) return verdict;
  const beside = rowsBeside({
    path: target.path,
    doc,
    oldString: args.old_string,
    newString: args.new_string,
    cleaned: verdict.cleaned,
    trial,
    replaceAll: args.replace_all,
    maxBytes,
  });
  if (beside.kind === "stray") return { ...verdict, unclear: beside.why };
  return beside.kind === "widened" ? { ...verdict, widened: beside } : verdict;
}

/**
 * Pasted rows are whole lines: stripped into a replacement of part of a
 * line (old_string "b = 2;" in "const b = 2;"), they would keep the rest of
 * it ("const const b = 22;"). Then nothing is written and the call is
 * offered on the whole lines matched, proven in memory (./pasted-offer.ts).
 */
function partLineStrip(
  doc: TextDocument,
  oldString: string,
  verdict: Extract<PasteVerdict, { kind: "strip" }>,
  trial: EditApplied,
  maxBytes: number,
): NewStringPaste | undefined {
  const rows = rowsOf(verdict.text);
  if (trial.edits.every((e) => writesRows(e, rows))) return undefined;
  const what =
    `has lines starting with a view prefix "N:hh|" (whole lines of the file), but old_string does not match whole lines as the file has them ` +
    `(it matches part of a line, or lines with other indentation), so the rows would not replace whole lines`;
  const offer = provenOffer(doc, oldString, verdict.text, { maxBytes });
  if (!offer) return { kind: "refuse", what, cleaned: verdict.text, unclear: "which whole lines they replace is not certain" };
  const said = `The call below replaces the whole line${rows.length === 1 ? "" : "s"} old_string matched in (from line ${offer.line}) with the lines pasted.`;
  return {
    kind: "refuse",
    what,
    cleaned: verdict.text,
    widened: { kind: "widened", oldString: offer.oldString, newString: offer.newString, said, line: offer.line },
  };
}

/** A pasted-row refusal whose cleaned call does not apply, or would not write the rows as whole lines. */
function unprovenPasteText(what: string): string {
  return (
    `new_string ${what}. Nothing was written, and no cleaned call is offered: without the prefixes, old_string does not match exactly one place ` +
    `made of whole lines that new_string's rows would replace. Send old_string as the whole lines to replace, exactly as the file has them, and ` +
    `new_string as those lines should read, both without "N:hh|" prefixes. If the text really belongs in the file as sent, send the same call with "verbatim": true.`
  );
}

function inEdit(edits: EditApplied["edits"], line: number): boolean {
  return edits.some((e) => line >= e.start && line < Math.max(e.end, e.start + 1));
}

/** Whether lines with these terminators end with a newline (an empty file does not). */
function endsWithNewline(eols: readonly string[]): boolean {
  return eols.length > 0 && eols[eols.length - 1] !== "";
}

/** A change of the final-newline state is said, never left for the model to find in the bytes. */
function finalNewlineNote(doc: Pick<SplitLines, "eols">, out: { eols: readonly string[]; lines: readonly string[] }): string | undefined {
  if (out.lines.length === 0) return undefined;
  const before = endsWithNewline(doc.eols);
  const after = endsWithNewline(out.eols);
  if (before === after) return undefined;
  return after
    ? "Note: the file now ends with a newline (it had none before this edit)."
    : "Note: the file no longer ends with a newline (it had one before this edit).";
}

/** Why a replacement that only drops a trailing newline changed nothing: edit keeps the final newline. */
function keptStateNote(doc: TextDocument, args: { old_string: string; new_string: string }): string {
  const lf = (s: string) => s.split("\r\n").join("\n");
  const oldText = lf(args.old_string);
  if (!oldText.endsWith("\n") || lf(args.new_string) !== oldText.slice(0, -1) || !endsWithNewline(doc.eols)) return "";
  return (
    " (edit keeps the file's final newline: a new_string without old_string's last newline does not remove it. " +
    "To make the file end without a newline, replace it whole with write.)"
  );
}

/** EDIT_AMBIGUOUS for an escape reading that would change an escape inside a quoted literal. */
function escapeAmbiguousText(path: string, r: EscapeAmbiguous, args: { old_string: string; new_string: string; replace_all: boolean }): string {
  const call = {
    path: shownPath(path),
    old_string: r.oldRead,
    new_string: r.newCorrected,
    ...(args.replace_all ? { replace_all: true } : {}),
  };
  return (
    `old_string matched \`${shownPath(path)}\` only after reading its literal \\n / \\t as real newlines / tabs, ` +
    `and new_string has no real newline, so it looks escaped the same way; but ${r.inside === 1 ? "one of its escapes sits" : `${r.inside} of its escapes sit`} ` +
    `inside a quoted literal, where "\\n" or "\\t" is usually meant as written. Reading it would put a real newline or tab inside the literal, ` +
    `so nothing was changed rather than guessing. ` +
    `If the escapes inside quotes are meant to stay escapes (as in code), send this call, with real newlines and tabs everywhere else:\n` +
    `edit ${JSON.stringify(call)}\n` +
    `If every escape was meant as a real newline or tab, send new_string with real newlines and tabs instead.`
  );
}

/**
 * old_string pasted with view's `N:hh|` prefixes: when it matches without
 * them, say so and give the call without them, new_string cleaned in the
 * call as the paste check would clean it on the way in (so the call is
 * written as sent), or no call when what new_string should hold is unclear.
 * Refused rather than guessed: the prefixes might be meant in new_string,
 * and the model should see the clean call.
 */
function pastedPrefixText(path: string, doc: TextDocument, args: EditArgs, maxBytes: number, maxLineChars: number): string | undefined {
  const stripped = stripIdPrefixes(args.old_string);
  if (stripped === undefined) return undefined;
  // new_string as the offered call writes it: clean in the call itself, not left to be stripped again on the way in.
  const pasted = pastedInNewString(path, doc, { ...args, old_string: stripped }, maxBytes, maxLineChars);
  // Rows of lines beside the match widen old_string too, so the offered call does not write them twice.
  const old = pasted.widened?.oldString ?? stripped;
  // Cleaned once is clean: a second pass would take a prefix-like start off the file's own text ("1:ab|y").
  // A new_string the check found clean loses prefixes only when the lines old_string matched do not look like rows.
  const base = pasted.kind === "strip" ? pasted.text : pasted.kind === "refuse" ? (pasted.widened?.newString ?? pasted.cleaned) : args.new_string;
  const next = pasted.kind === "clean" && !ROW_LIKE.test(stripped) ? (stripIdPrefixes(base) ?? base) : base;
  const retry = applyStringEditWithBom(doc.lines, doc.bom, old, next, { replaceAll: args.replace_all, maxBytes });
  if (retry.kind !== "ok") return undefined;
  const head =
    `old_string carries the "N:hh|" prefixes that view prints before each line; they are not part of the file, so it matched nothing and nothing was changed. ` +
    `Without them it matches line ${pasted.widened?.line ?? retry.matches[0].line}`;
  if (pasted.kind === "refuse" && pasted.shortened) {
    const other = args.new_string.split("\n").filter((l) => l.trim() !== "").length > pasted.shortened.length;
    return `${head}. But new_string ${pasted.what}.\n${shortenedRemedy(path, pasted.shortened, "edit", other)}`;
  }
  if (pasted.kind === "refuse" && pasted.unclear) {
    // What new_string should hold is in doubt: no call is offered as ready.
    return (
      `${head}. But new_string ${pasted.what}; and ${pasted.unclear}. No call is offered ready: ` +
      `send old_string without the prefixes, "old_string": ${JSON.stringify(old)}, and new_string as the file should read, without them.`
    );
  }
  // Pasted rows in new_string: offered only once proven to write them as whole lines (./pasted-offer.ts).
  const offer =
    pasted.kind === "clean" ? { oldString: old, newString: next, widened: false } : provenOffer(doc, old, next, { replaceAll: args.replace_all, maxBytes });
  if (!offer) {
    return (
      `${head}. But new_string ${pasted.kind === "refuse" ? pasted.what : "has view prefixes too"}, and without the prefixes the call would not write its rows as whole lines ` +
      `of the file. No call is offered ready: send old_string as the whole lines to replace, exactly as the file has them, and new_string as they should read, both without the prefixes.`
    );
  }
  // Text that still reads as view rows is the file's own (a fixture of view output): sent, it must not be cleaned again.
  const rowLike = checkPasted(offer.newString, { path: shownPath(path), fileLines: () => doc.lines, maxLineChars }).kind !== "clean";
  const call = {
    path: shownPath(path),
    old_string: offer.oldString,
    new_string: offer.newString,
    ...(args.replace_all ? { replace_all: true } : {}),
    ...(rowLike ? { verbatim: true } : {}),
  };
  const cleaned =
    pasted.kind === "refuse"
      ? ` (new_string ${pasted.what}: it is cleaned in this call too; if that text really belongs in the file, send this call with your own new_string and "verbatim": true)`
      : next !== args.new_string
        ? " (new_string's prefixes are removed too)"
        : "";
  const widened = pasted.widened ? ` ${pasted.widened.said}` : offer.widened ? " The call below replaces the whole lines old_string matched in." : "";
  return `${head}${cleaned}.${widened} Ready to send:\nedit ${JSON.stringify(call)}`;
}

/** A line that starts like a view row (`12:ab|`). */
const ROW_LIKE = /^\d+:[0-9a-f]{2}\|/m;

function stop(result: ToolResult): Plan {
  return { kind: "stop", result };
}

/** Longest `write` call an empty-old_string refusal repeats whole; a longer new_string is described instead. */
const MAX_WRITE_CALL_CHARS = 8 * 1024;

/**
 * INVALID_ARGUMENT for an empty old_string. A missing or empty file can
 * only have meant "create it with new_string", so that write is offered
 * ready to send; for a file with content, where the text should go is the
 * model's to say.
 */
async function emptyOldString(ctx: ToolContext, path: string, newString: string): Promise<ToolResult> {
  const p = JSON.stringify(shownPath(path));
  const head = `old_string is empty: edit replaces existing text, so old_string must be the exact text to replace.`;
  let stat: Awaited<ReturnType<ToolContext["storage"]["stat"]>> | undefined;
  try {
    stat = await ctx.storage.stat(path);
  } catch {
    stat = undefined; // the refusal stands without knowing; it just cannot offer the write
  }
  if (stat === null || (stat?.kind === "file" && stat.size === 0)) {
    const what = stat === null ? `\`${shownPath(path)}\` does not exist` : `\`${shownPath(path)}\` is empty`;
    const call = `write ${JSON.stringify({ path: shownPath(path), content: newString })}`;
    return fail(
      "INVALID_ARGUMENT",
      call.length <= MAX_WRITE_CALL_CHARS
        ? `${head} ${what}; to ${stat === null ? "create it" : "fill it"} with your new_string as its content, send:\n${call}`
        : `${head} ${what}; to ${stat === null ? "create it" : "fill it"} with your new_string as its content, send write {"path": ${p}, "content": <your new_string, ${newString.length} characters>}.`,
    );
  }
  return fail(
    "INVALID_ARGUMENT",
    `${head} ` +
      `To create a file or replace all of its content, use write {"path": ${p}, "content": "..."}; ` +
      `to insert lines, use batch_edit {"path": ${p}, "operations": [{"operation": "insert", "after": "N:hh", "content": "..."}]} ` +
      `(after: a line id from view, 0 for the start of the file, -1 for the end).`,
  );
}
