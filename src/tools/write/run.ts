/**
 * `write`: create a file, or replace a whole file the session has viewed.
 * A whole-file replacement is only as good as the version it was based on,
 * so an overwrite is a compare-and-swap on the version the session saw and
 * is never retried; a create is create-if-absent and never clobbers a
 * concurrent creator (see `decideWrite`).
 */

import { decideWrite, type CurrentFile, type WriteDecision } from "../../policy/decide.ts";
import { unseenSpans } from "../../policy/seen.ts";
import type { LineSpan, Observation } from "../../policy/types.ts";
import { fail, ok, withFacts, type ChangedRange, type ToolResult } from "../../result.ts";
import { isFsError } from "../../storage/errors.ts";
import { Cond, type Version } from "../../storage/types.ts";
import { changedRuns, diffLines } from "../../text/diff.ts";
import { documentFromLines, type TextDocument } from "../../text/document.ts";
import { breaksWithLoneCr, textBreaksWithLoneCr } from "../../text/eol.ts";
import { joinLines, splitLines } from "../../text/lines.ts";
import { changeResult, lineCount, MAX_DIFF_LINES, reportChange } from "../support/change-report.ts";
import { loneSurrogateText, trailingCrNote } from "../support/new-text.ts";
import { checkPasted, type PasteVerdict, pastedRemedy } from "../support/pasted.ts";
import { shortenedRemedy } from "../support/shortened.ts";
import { loadTextFile } from "../support/load.ts";
import { observeAbsent, observed, observeEdited, observePresent } from "../support/observe.ts";
import { remedyFor, shownPath, toolError } from "../support/remedy.ts";
import { defineTool } from "../define.ts";
import type { ToolContext } from "../types.ts";
import { DESCRIPTION, WriteSchema } from "./schema.ts";
import { bomNote, contentLines, dropCrEnds, droppedEols, eolName, finalNewlineNote, type StyledContent, styleLike } from "./style.ts";

/** The `write` tool. */
export const writeTool = defineTool({
  name: "write",
  description: DESCRIPTION,
  schema: WriteSchema,
  scope: "write",
  target: "file",
  annotations: { destructiveHint: true, idempotentHint: false },
  async run(args, ctx, path) {
    try {
      const observation = await observed(ctx, path);
      const current = await currentFile(ctx, path);
      if ("result" in current) return current.result;
      return await act(ctx, path, args.content, observation, decideWrite(observation, current), args.verbatim === true);
    } catch (error) {
      return toolError(error, path);
    }
  },
});

const encoder = new TextEncoder();

async function currentFile(ctx: ToolContext, path: string): Promise<CurrentFile | { result: ToolResult }> {
  const stat = await ctx.storage.stat(path);
  if (stat?.kind === "directory") {
    return {
      result: fail("FS_IS_DIRECTORY", `\`${shownPath(path)}\` is a directory, not a file; write needs a file path.${remedyFor("FS_IS_DIRECTORY", path)}`),
    };
  }
  return stat ? { kind: "file", version: stat.version ?? "" } : { kind: "absent" };
}

async function act(
  ctx: ToolContext,
  path: string,
  content: string,
  observation: Observation | undefined,
  decision: WriteDecision,
  verbatim: boolean,
): Promise<ToolResult> {
  if (decision.kind === "refuse") return refuse(ctx, path, decision);
  // Half a character cannot be written at all (UTF-8 would store U+FFFD), verbatim or not.
  const lone = loneSurrogateText(
    "content",
    content,
    (fixed) => `write ${JSON.stringify({ path: shownPath(path), content: fixed, ...(verbatim ? { verbatim } : {}) })}`,
  );
  if (lone) return fail("INVALID_ARGUMENT", lone);
  switch (decision.kind) {
    case "create": {
      const pasted = verbatim ? undefined : checkPasted(content, { path: shownPath(path), maxLineChars: ctx.limits.maxLineChars });
      if (pasted?.kind === "refuse") return pastedRefusal(path, pasted, false);
      return create(ctx, path, content, decision, verbatim);
    }
    case "overwrite":
      return overwrite(ctx, path, content, observation, decision.version, verbatim);
  }
}

function pastedRefusal(path: string, pasted: Extract<PasteVerdict, { kind: "refuse" }>, exists: boolean): ToolResult {
  const p = shownPath(path);
  const write = `write ${JSON.stringify({ path: p, content: pasted.cleaned })}`;
  const head = `The content for \`${p}\` ${pasted.what}.`;
  if (pasted.shortened) {
    // A line the model never saw whole: the offered call changes it by a short piece, never by the copy.
    const other = pasted.cleaned.split("\n").filter((l) => l.trim() !== "").length > pasted.shortened.length;
    const why = pasted.unclear ? `, and no cleaned call is offered: ${pasted.unclear}` : "";
    return fail("INVALID_ARGUMENT", `${head} Nothing was written${why}.\n${shortenedRemedy(path, pasted.shortened, "write", other)}`);
  }
  const verbatim = `If the text really belongs in the file as sent, send the same call with "verbatim": true.`;
  if (!pasted.unclear) return fail("INVALID_ARGUMENT", `${head} ${pastedRemedy(write)}`);
  if (pasted.shown) {
    // Part of a view: most likely those lines were meant to change; both readings are offered, each ready to send.
    const { start, end } = pasted.shown;
    const content = pasted.cleaned.endsWith("\n") ? pasted.cleaned.slice(0, -1) : pasted.cleaned;
    const batch = `batch_edit ${JSON.stringify({ path: p, operations: [{ operation: "replace", start, end, content }] })}`;
    return fail(
      "INVALID_ARGUMENT",
      `${head} Nothing was written: ${pasted.unclear}.\n` +
        `To replace only the lines shown (${start} to ${end}) with this text, send:\n${batch}\n` +
        `To make the file exactly this text, deleting the lines not shown, send:\n${write}\n${verbatim}`,
    );
  }
  // A guess would be written as sent: no call is offered as ready.
  return fail(
    "INVALID_ARGUMENT",
    `${head} Nothing was written, and no cleaned call is offered: ${pasted.unclear}. ` +
      `Send write with the file's whole new content as it should be, without the "N:hh|" prefixes and the lines view or a diff prints around them` +
      `${exists ? ", or change only the lines you mean with edit (by text) or batch_edit (by line id)" : ""}. ${verbatim}`,
  );
}

async function create(ctx: ToolContext, path: string, content: string, decision: WriteDecision, verbatim: boolean): Promise<ToolResult> {
  // A new file has no style to keep: the content's own bytes are the file, but for a "\r" ending a line (half a line ending).
  // Content broken by lone CRs only (classic Mac) has no "\r" ending half a line: it is written as sent.
  const cr = verbatim || textBreaksWithLoneCr(content) ? { changed: [] } : dropCrEnds(splitLines(content), []);
  if ("content" in cr && cr.changed.length > 0) content = joinLines(cr.content.lines, cr.content.eols);
  const bytes = encoder.encode(content);
  let version: Version;
  try {
    version = (await ctx.storage.write(path, bytes, Cond.ifAbsent)).version;
    await observePresent(ctx, path, version);
  } catch (error) {
    if (isFsError(error) && error.code === "FS_ALREADY_EXISTS") return alreadyExists(path, decision);
    throw error;
  }
  const lines = countLines(content);
  const crNote = cr.changed.length > 0 ? `\nNote: ${trailingCrNote("content", cr.changed)}` : "";
  const result = ok(`Created \`${shownPath(path)}\` (${lineCount(lines)}, ${bytes.length} bytes).${crNote}`);
  // The whole file is new: one range, with the ids the model would see in a view (up to the diff cap).
  return withFacts(result, { path: shownPath(path), version, changes: [createdRange(content)] });
}

async function overwrite(
  ctx: ToolContext,
  path: string,
  content: string,
  observation: Observation | undefined,
  version: Version,
  verbatim: boolean,
): Promise<ToolResult> {
  const loaded = await loadTextFile(ctx, path);
  if (!loaded.ok) {
    if (loaded.result.code === "FS_NOT_FOUND") return refuse(ctx, path, decideWrite(observation, { kind: "absent" }));
    if (loaded.result.code !== "FS_NOT_TEXT" && loaded.result.code !== "FS_TOO_LARGE") return loaded.result;
    // Nothing to diff or keep the style of: the content replaces the file as sent.
    return replaceBlind(ctx, path, content, observation, version, loaded.result.code);
  }
  if (loaded.version !== version) {
    return refuse(ctx, path, decideWrite(observation, { kind: "file", version: loaded.version }));
  }
  const old = loaded.doc;
  // A whole-file replace is based on every line of the version it replaces, not a ranged view or a search hit.
  const total = old.hashes.length;
  const unseen = observation?.kind === "present" ? unseenSpans(observation.seen, total) : [];
  if (unseen.length > 0) return partlySeen(path, total, unseen, ctx.limits.maxViewLines);
  let pastedNote: string | undefined;
  if (!verbatim) {
    // The whole file is the region replaced: a prefix naming one of its current lines is a paste of its view.
    const pasted = checkPasted(content, {
      path: shownPath(path),
      fileLines: () => old.lines,
      ownsId: (n, h) => old.hashes[n - 1] === h,
      wholeFile: true,
      maxLineChars: ctx.limits.maxLineChars,
    });
    if (pasted.kind === "refuse") return pastedRefusal(path, pasted, true);
    if (pasted.kind === "strip") {
      content = pasted.text;
      pastedNote = `Note: ${pasted.note}`;
    }
  }
  // A CR-only file has no line endings write could keep (text/eol.ts breaksWithLoneCr), and CR-only content's
  // lines would be restyled into a mix of its CRs and the file's ending: either way content goes as sent.
  const loneCr = !verbatim && (breaksWithLoneCr(old.body) || textBreaksWithLoneCr(content));
  const planned = planLines(old, content, verbatim || loneCr);
  const { styled } = planned;
  const next = documentFromLines(styled.bom, styled, ctx.hasher);
  if (sameBytes(next.bytes, loaded.bytes)) return ok(unchangedText(path, planned));
  const landed = await casWrite(ctx, path, next.bytes, observation, version);
  if (!("written" in landed)) return landed;

  const report = reportChange(old.lines, next.doc.lines, undefined, ctx.limits);
  const heading = `Updated \`${shownPath(path)}\`: ${old.lines.length} -> ${lineCount(next.doc.lines.length)}.`;
  const crNote = planned.crLines.length > 0 ? `Note: ${trailingCrNote("content", planned.crLines)}` : undefined;
  const notes = [heading, pastedNote, crNote, finalNewlineNote(old, next.doc), bomNote(old, next.doc)];
  const style = verbatim ? verbatimNote(old, next.doc) : loneCr ? loneCrNote(old, next.doc) : styleNote(old, next.doc, styled.eolApplied, planned.dropped);
  const result = changeResult(notes, report, [style], ctx.limits, { path, version: landed.written });
  // Ids the model viewed before this write may be reused: record where the diff moved those lines (see own-edits.ts).
  await observeEdited(ctx, path, landed.written, observation, result.facts?.changes);
  return result;
}

async function replaceBlind(
  ctx: ToolContext,
  path: string,
  content: string,
  observation: Observation | undefined,
  version: Version,
  why: "FS_NOT_TEXT" | "FS_TOO_LARGE",
): Promise<ToolResult> {
  // A file too large to load can still be viewed in ranges: a write over it must be based on all of them too.
  if (why === "FS_TOO_LARGE" && observation?.kind === "present" && observation.seen !== undefined) {
    return partlySeenTooLarge(path, observation.seen, ctx.limits.maxViewLines);
  }
  const landed = await casWrite(ctx, path, encoder.encode(content), observation, version);
  if (!("written" in landed)) return landed;
  const old = why === "FS_NOT_TEXT" ? "its old content was not UTF-8 text" : "its old content was too large to load";
  const result = ok(`Replaced \`${shownPath(path)}\` (now ${lineCount(countLines(content))}); ${old}, so no diff is shown.`);
  return withFacts(result, { path: shownPath(path), version: landed.written });
}

/**
 * Compare-and-swap on the version the session saw. On success records the
 * new version and returns it; a lost race becomes the refusal the
 * policy gives for what is there now (changed, or deleted).
 */
async function casWrite(
  ctx: ToolContext,
  path: string,
  bytes: Uint8Array,
  observation: Observation | undefined,
  version: Version,
): Promise<ToolResult | { readonly written: Version }> {
  try {
    const written = await ctx.storage.write(path, bytes, Cond.ifVersion(version));
    await observePresent(ctx, path, written.version);
    return { written: written.version };
  } catch (error) {
    if (!(isFsError(error) && error.code === "FS_STALE_VERSION")) throw error;
  }
  const now = await currentFile(ctx, path);
  if ("result" in now) return now.result;
  const decision = decideWrite(observation, now);
  // Should the file be back at the seen version, the race was still lost: say it changed.
  if (decision.kind !== "refuse") return staleChanged(path);
  return refuse(ctx, path, decision);
}

async function refuse(ctx: ToolContext, path: string, decision: WriteDecision): Promise<ToolResult> {
  if (decision.kind !== "refuse") return staleChanged(path);
  const p = `\`${shownPath(path)}\``;
  switch (decision.reason) {
    case "unseen":
      return fail(
        "FS_NOT_OBSERVED",
        `${p} already exists and has not been viewed in this session; write replaces the whole file, so it must be based on content you have seen` +
          remedyFor("FS_NOT_OBSERVED", path),
      );
    case "changed":
      return staleChanged(path);
    case "deleted":
      await observeAbsent(ctx, path);
      return fail(
        "FS_STALE_VERSION",
        `${p} was deleted after you viewed it, so this write (meant to replace the version you saw) was not applied; nothing was written. ` +
          `The file is gone: writing again will create it (if another writer creates it first, that write is refused rather than overwriting theirs).`,
      );
    case "created":
      return alreadyExists(path, decision);
  }
}

/** Most `view` calls a partly-seen refusal lists; past it, one call covers the rest. */
const MAX_VIEW_CALLS = 4;

function partlySeen(path: string, total: number, unseen: readonly LineSpan[], maxViewLines: number): ToolResult {
  const p = JSON.stringify(shownPath(path));
  const range = ([a, b]: LineSpan) => (a === b ? `line ${a}` : `lines ${a}-${b}`);
  const count = unseen.reduce((n, [a, b]) => n + b - a + 1, 0);
  // One view prints at most maxViewLines lines: each call asks for no more, so each shows all it names.
  const views = unseen.flatMap(([a, b]) =>
    Array.from({ length: Math.ceil((b - a + 1) / maxViewLines) }, (_, k): LineSpan => [a + k * maxViewLines, Math.min(b, a + (k + 1) * maxViewLines - 1)]),
  );
  const calls = views.slice(0, MAX_VIEW_CALLS).map(([a, b]) => `  view {"path": ${p}, "start": ${a}, "end": ${b}}`);
  if (views.length > MAX_VIEW_CALLS) {
    calls.push(
      `  … and ${views.length - MAX_VIEW_CALLS} more views of up to ${maxViewLines} lines (a view prints at most ${maxViewLines}), from line ${views[MAX_VIEW_CALLS][0]} on`,
    );
  }
  return fail(
    "FS_NOT_OBSERVED",
    `\`${shownPath(path)}\` has ${total} lines, and this session has not seen ${count} of them in its current version ` +
      `(${unseen.map(range).join(", ")}); write replaces the whole file, so it must be based on every line. Nothing was written. ` +
      `View the unseen lines (ranged views of the same version add up), then send the write again:\n${calls.join("\n")}\n` +
      `Or change only the part you have seen with edit (by text) or batch_edit (by line id).`,
  );
}

/** The refusal of a write over a file too large to load, of which the session saw only some lines. */
function partlySeenTooLarge(path: string, seen: readonly LineSpan[], maxViewLines: number): ToolResult {
  const p = JSON.stringify(shownPath(path));
  const shown = seen.length === 0 ? "none of its lines" : `only ${seen.map(([a, b]) => (a === b ? `line ${a}` : `lines ${a}-${b}`)).join(", ")}`;
  const next = seen.length === 0 || seen[0][0] > 1 ? 1 : seen[0][1] + 1;
  return fail(
    "FS_NOT_OBSERVED",
    `\`${shownPath(path)}\` is over the file size limit, so no single view shows it (and edit and batch_edit cannot load it either), ` +
      `and this session has seen ${shown} of its current version; write replaces the whole file, so it must be based on every line. Nothing was written. ` +
      `To replace it whole, view the rest first (ranged views of the same version add up, up to ${maxViewLines} lines each), from: ` +
      `view {"path": ${p}, "start": ${next}, "end": ${next + maxViewLines - 1}}. To write a new file instead, give write another path.`,
  );
}

function staleChanged(path: string): ToolResult {
  return fail(
    "FS_STALE_VERSION",
    `\`${shownPath(path)}\` changed since you last viewed it: this write would replace the version you viewed, and another writer has saved a newer one since. ` +
      `Nothing was written, so their changes are intact` +
      remedyFor("FS_STALE_VERSION", path) +
      `. For a small change, edit or batch_edit apply to the current content without a new view.`,
  );
}

function alreadyExists(path: string, decision: WriteDecision): ToolResult {
  const when =
    decision.kind === "refuse" && decision.reason === "created"
      ? " (it did not exist when you last looked)"
      : " (another writer created it while this write was on its way)";
  return fail(
    "FS_ALREADY_EXISTS",
    `\`${shownPath(path)}\` already exists${when}; nothing was written and that file is intact.${remedyFor("FS_ALREADY_EXISTS", path)}`,
  );
}

/** The lines a write puts over `old`, and what the notes say about their endings. */
interface PlannedLines {
  readonly styled: StyledContent;
  /** 1-based content lines whose "\r" at the end was read as part of their line ending. */
  readonly crLines: number[];
  /** Content's own line endings the file's style replaced (see `droppedEols`). */
  readonly dropped?: "CRLF" | "LF" | "mixed";
}

/**
 * Content as lines over `old`: styled like the file (style.ts), or with
 * its own line endings for `verbatim`, the one way to convert them.
 */
function planLines(old: TextDocument, content: string, verbatim: boolean): PlannedLines {
  const sent = contentLines(content, old);
  if (verbatim) return { styled: sent, crLines: [] };
  const cr = dropCrEnds(sent, old.lines);
  const split = cr.content;
  const styled = styleLike(old, split, diffLines(old.lines, split.lines));
  return { styled, crLines: cr.changed, dropped: droppedEols(split.eols, styled.eols) };
}

/** The answer to a write that changes no byte: line endings that differ only by the file's style are said, with the way to convert. */
function unchangedText(path: string, planned: PlannedLines): string {
  const p = `\`${shownPath(path)}\``;
  const sent = planned.dropped;
  // LF content for a CRLF file is the usual call (the file keeps its style): only CRLF sent to an LF file is worth a word.
  if (sent !== "CRLF") return `${p} already has exactly this content; nothing was written.`;
  return (
    `${p} already has this text, but with LF line endings where content has CRLF: write keeps a file's line endings, so nothing was written. ` +
    `To give the file CRLF line endings, send the same write with "verbatim": true, which writes content's line endings as sent.`
  );
}

/** One line on line endings the result should mention, or "". */
function styleNote(old: TextDocument, next: TextDocument, eol: "\r\n" | "\n" | undefined, dropped: PlannedLines["dropped"]): string {
  const notes: string[] = [];
  const crlf = next.eols.some((e) => e === "\r\n");
  const lf = next.eols.some((e) => e === "\n");
  // Content's own endings replaced by the file's are said, with how to write them instead.
  const convert = ` (to convert the file to ${dropped === "CRLF" ? "CRLF" : "LF"}, send the same write with "verbatim": true)`;
  if (eol === "\r\n" && crlf && !lf) notes.push(`kept the file's CRLF line endings${dropped === "LF" ? convert : ""}`);
  else if (crlf && lf) {
    const own = dropped === undefined ? "" : `; content's own line endings were not written (to write them as sent, send the same write with "verbatim": true)`;
    notes.push(`kept each unchanged line's own ending (the file mixes CRLF and LF); new lines got ${eol === "\r\n" ? "CRLF" : "LF"}${own}`);
  } else if (dropped === "CRLF" || dropped === "mixed") notes.push(`kept the file's LF line endings, not content's CRLF ones${convert}`);
  if (old.bom && next.bom) notes.push("kept its byte-order mark");
  return notes.length ? `Line endings: ${notes.join("; ")}.` : "";
}

/** The line endings of a write over a CR-only file, or of CR-only content, which are content's own. */
function loneCrNote(old: TextDocument, next: TextDocument): string {
  const who = breaksWithLoneCr(old.body) ? "the file breaks" : "content breaks";
  const head = `Line endings: ${who} its lines with lone CRs (classic Mac line endings), which write does not restyle: content's line endings were written as sent`;
  if (breaksWithLoneCr(next.body)) return `${head}.`;
  const now = eolName(next.eols);
  return `${head}, so the file now has ${now ? `${now} line endings` : "no line break"}.`;
}

/** A verbatim write's line endings, when they are not the file's before. */
function verbatimNote(old: TextDocument, next: TextDocument): string {
  const before = eolName(old.eols);
  const after = eolName(next.eols);
  if (before === after || after === undefined) return "";
  return `Line endings: written as sent ("verbatim": true): the file had ${before ?? "no"} line endings, now ${after}.`;
}

/** A new file as one changed range: every line added, with its id (a BOM and "\r" before "\n" are not part of a line). */
function createdRange(content: string): ChangedRange {
  const lines =
    content === ""
      ? []
      : content
          .replace(/^\uFEFF/, "")
          .split("\n")
          .map((l) => l.replace(/\r$/, ""));
  if (content.endsWith("\n")) lines.pop();
  return changedRuns(diffLines([], lines), MAX_DIFF_LINES)[0] ?? { oldStart: 1, oldCount: 0, newStart: 1, newCount: 0, ids: [], complete: true };
}

function countLines(content: string): number {
  if (content === "") return 0;
  let n = 0;
  for (let i = content.indexOf("\n"); i !== -1; i = content.indexOf("\n", i + 1)) n++;
  return content.endsWith("\n") ? n : n + 1;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
