/**
 * What `edit` says when it does not edit. Each text states the condition and
 * the exits, with the data to take them: the ids of every match, the
 * closest windows and the current text of the best one (so the model can
 * retry without another view).
 */

import type { EditGrowth } from "../../text/edit-size.ts";
import { mib } from "../support/load.ts";
import type { TextDocument } from "../../text/document.ts";
import { textToLines } from "../../text/line-edits.ts";
import { interpretEscapes } from "../../text/match-escapes.ts";
import { indentOf } from "../../text/match-fuzzy.ts";
import type { ContinuationAmbiguous, EditNoChange, IndentAmbiguous, MatchAmbiguous, MatchMissing, ReadyEdit } from "../../text/match.ts";
import { renderLine, renderLines } from "../../text/render.ts";
import { lookAlikeEdit } from "../../text/match-lookalike.ts";
import { findAllOccurrences } from "../../text/match-overlap.ts";
import { charDifferences, describeChar } from "../../text/near-match.ts";
import type { Difference, WindowCandidate } from "../../text/similarity.ts";
import { formatId } from "../../text/ids.ts";
import { shownPath } from "../support/remedy.ts";
import type { ToolLimits } from "../types.ts";

/** Longest line content quoted in a list of matches. */
const LISTED_LINE_CHARS = 160;
/** Most lines of the best window shown in a no-match result. */
const MAX_WINDOW_LINES = 40;
/** Byte budget of that window. */
const MAX_WINDOW_BYTES = 16 * 1024;

/** EDIT_NO_CHANGE: why nothing would change. */
export function noChangeText(path: string, reason: EditNoChange["reason"]): string {
  if (reason === "same-strings") {
    return "old_string and new_string are identical, so this edit would change nothing; nothing was written. Put the text you want in new_string.";
  }
  return (
    `Replacing old_string with new_string leaves \`${shownPath(path)}\` exactly as it is (the file already reads that way); ` +
    `nothing was written. If you meant a different change, view the file to see its current text.`
  );
}

/** Largest `edit` call put whole in a result (a corrected or ready call). */
const MAX_CALL_CHARS = 8 * 1024;

/** How many matches of an ambiguous old_string get a ready call. */
export const READY_MATCHES = 5;
/** Budget of all the ready calls of one ambiguous result. */
const MAX_READY_CHARS = 16 * 1024;

/**
 * EDIT_AMBIGUOUS: every match as a line id (range for multi-line matches)
 * with its first line, and the exits. An exact or escaped ambiguity has
 * three (the edit of one place, replace_all, batch_edit by id); a
 * whitespace-insensitive one two, since replace_all never applies a fuzzy
 * match. `ready[i]` is the edit of match i alone, old_string widened until
 * unique (see `readyEdit`): each becomes a call to send as it is, so the
 * model never has to fill in a placeholder.
 */
export function ambiguousText(
  path: string,
  doc: Pick<TextDocument, "lines" | "hashes">,
  r: MatchAmbiguous,
  oldString: string,
  limits: ToolLimits,
  ready: readonly (ReadyEdit | undefined)[] = [],
): string {
  const span = matchHeight(r.strategy, oldString);
  const maxChars = Math.min(limits.maxLineChars, LISTED_LINE_CHARS);
  const list = r.matches.map((m) => {
    const last = Math.min(doc.lines.length, m.line + span - 1);
    const line = `  ${renderLine(m.line, doc.hashes[m.line - 1], doc.lines[m.line - 1], maxChars)}`;
    if (m.column !== undefined) return `${line}   (the match at column ${m.column})`;
    return last > m.line ? `${line}   (through ${formatId(last, doc.hashes[last - 1])})` : line;
  });
  if (r.total > r.matches.length) list.push(`  … and ${r.total - r.matches.length} more not listed`);

  const calls: string[] = [];
  let budget = MAX_READY_CHARS;
  ready.forEach((edit, i) => {
    if (edit === undefined || i >= r.matches.length) return;
    const call = editCall(path, edit);
    if (call.length > MAX_CALL_CHARS || call.length > budget) return;
    budget -= call.length;
    const at = r.matches[i];
    calls.push(`  line ${at.line}${at.column === undefined ? "" : `, column ${at.column}`}: ${call}`);
  });
  const others = r.total - calls.length;
  const own =
    calls.length > 0
      ? [
          `- send the edit of the place you mean, with old_string widened by the lines around it until it matches only there (ready to send` +
            `${others > 0 ? `; for ${others === 1 ? "the other match" : `the other ${others}`}, add surrounding lines to old_string the same way` : ""}):`,
          ...calls,
        ]
      : [
          r.strategy === "fuzzy"
            ? "- copy the exact text (with the file's indentation) of the place you mean into old_string, with enough surrounding lines to be unique;"
            : "- add surrounding lines to old_string until it matches only the place you mean;",
        ];
  // The ids of the first match as the example: real ids, and no placeholder content to send by mistake.
  const first = r.matches[0];
  const last = Math.min(doc.lines.length, first.line + span - 1);
  const ids =
    last > first.line
      ? `"start" and "end" its first and last ids (for line ${first.line}: "start": "${first.id}", "end": "${formatId(last, doc.hashes[last - 1])}")`
      : `"start" its id (for line ${first.line}: "start": "${first.id}")`;
  const batch = `- replace the lines of the one you mean by id with batch_edit: a "replace" operation with ${ids} and "content" the whole new text of ${last > first.line ? "those lines" : "that line"}.`;

  const where = span > 1 ? `The matches (first line shown; each spans ${span} lines):` : "The matches:";
  if (r.strategy === "fuzzy") {
    return [
      `old_string has no exact match in \`${shownPath(path)}\`, and ignoring whitespace it matches ${r.total} places; ` +
        `a whitespace-insensitive match is applied only when it is unique, so nothing was changed. ${where}`,
      ...list,
      "Either:",
      ...orLast(own),
      batch,
    ].join("\n");
  }
  const escaped = r.strategy === "escaped" ? " (after reading its literal \\n / \\t as newlines / tabs)" : "";
  // Overlapping matches cannot all be replaced: replace_all takes the non-overlapping ones, left to right.
  const overlap = r.nonOverlapping === undefined ? "" : " (counting overlapping occurrences: some share text)";
  const all =
    r.nonOverlapping === undefined
      ? `- pass "replace_all": true to replace all ${r.total}; or`
      : r.nonOverlapping === 1
        ? `- pass "replace_all": true to replace only the first of them (the others overlap it: replace_all goes left to right, each replacement after the end of the one before); or`
        : `- pass "replace_all": true to replace the ${r.nonOverlapping} of them that do not overlap, left to right (each after the end of the one before); or`;
  return [
    `old_string matches ${r.total} places in \`${shownPath(path)}\`${escaped}${overlap}, and edit replaces only a unique match; nothing was changed. ${where}`,
    ...list,
    "Either:",
    ...own,
    all,
    batch,
  ].join("\n");
}

/** The exits before the last one, the first line ending in "; or" when it is the second to last (fuzzy has two). */
function orLast(lines: readonly string[]): string[] {
  const out = lines.slice();
  if (out[0].endsWith(";")) out[0] = `${out[0]} or`;
  return out;
}

/** An `edit` call with these strings, as JSON a model can send unchanged. */
function editCall(path: string, edit: ReadyEdit): string {
  return `edit ${JSON.stringify({ path: shownPath(path), old_string: edit.oldString, new_string: edit.newString })}`;
}

/**
 * EDIT_AMBIGUOUS for a whitespace-insensitive match whose new_string cannot
 * be indented for the file without guessing (see `fitIndentation`): how
 * old_string's indentation read in the file, the matched lines as the file
 * has them, and each reading the pairs allow as an edit ready to send
 * (`ready[i]` for `r.readings[i]`), old_string the file's own text so it
 * matches exactly and new_string already in the file's indentation.
 */
export function indentAmbiguousText(
  path: string,
  doc: TextDocument,
  r: IndentAmbiguous,
  ready: readonly (ReadyEdit | undefined)[],
  limits: ToolLimits,
): string {
  const { start, end } = r.range;
  const first = r.unsure[0];
  const sample = r.newLines[first].trim();
  const shown = sample.length > 60 ? `${sample.slice(0, 60)}…` : sample;
  const lineName = `new_string's line ${first + 1}`;
  const more = r.unsure.length > 1 ? ` (and ${r.unsure.length - 1} more line${r.unsure.length > 2 ? "s" : ""})` : "";
  const lineNote = `${lineName} (${JSON.stringify(shown)}, at ${describeIndent(indentOf(r.newLines[first]))})${more}`;
  const pairs = r.pairs.map((p) => `${describeIndent(p.model)} -> ${describeIndent(p.file)}`).join(", ");
  const calls: string[] = [];
  r.readings.forEach((reading, i) => {
    const edit = ready[i];
    if (edit === undefined) return;
    const call = editCall(path, edit);
    // Each reading is named by where it puts the first line in doubt.
    if (call.length <= MAX_CALL_CHARS) calls.push(`- ${lineName} at ${describeIndent(indentOf(reading.lines[first]))}: ${call}`);
  });
  const why =
    r.readings.length > 0
      ? `that fits more than one reading of your indentation (a different indentation unit, or the same unit shifted by a level), and they put ${lineNote} at different depths`
      : `no one reading of your indentation fits all of that, so there is no telling where ${lineNote} goes`;
  const p = JSON.stringify(shownPath(path));
  const to = Math.min(end, start + MAX_WINDOW_LINES);
  const shownLines = renderLines(doc, start + 1, to, { maxLineChars: limits.maxLineChars, maxOutputBytes: MAX_WINDOW_BYTES });
  const out = [
    `old_string has no exact match in \`${shownPath(path)}\`; ignoring whitespace it matches ${range(start + 1, end)}, but new_string's indentation cannot be fitted to the file without guessing, so nothing was changed. ` +
      `Line by line, old_string's indentation reads in the file as: ${pairs}; ${why}.`,
    `The matched lines as the file has them (${range(shownLines.from, shownLines.to)}), with ids:`,
    shownLines.text,
  ];
  if (shownLines.to < end) out.push(`… view {"path": ${p}, "start": ${shownLines.to + 1}, "end": ${end}} for the rest of them.`);
  if (calls.length >= 2) {
    out.push("Each reading as the edit to send (old_string is the file's exact text there, new_string in the file's indentation):", ...calls);
    out.push("If none of them is what you mean, send old_string and new_string with the file's own indentation, as shown above.");
    return out.join("\n");
  }
  const exact = JSON.stringify(doc.lines.slice(start, end).join("\n"));
  out.push(
    exact.length <= MAX_CALL_CHARS
      ? `Send the edit again with new_string indented the way those lines are, and old_string exactly as the file has it: "old_string": ${exact}`
      : 'Send the edit again with old_string copied exactly from those lines (without the "N:hh|" prefixes) and new_string indented the way they are.',
  );
  return out.join("\n");
}

/** "column 0", "4 spaces", "1 tab", "2 tabs", or the indentation quoted when it mixes them. */
function describeIndent(indent: string): string {
  if (indent === "") return "column 0";
  if (/^ +$/.test(indent)) return indent.length === 1 ? "1 space" : `${indent.length} spaces`;
  if (/^\t+$/.test(indent)) return indent.length === 1 ? "1 tab" : `${indent.length} tabs`;
  return JSON.stringify(indent);
}

/**
 * How many lines one match covers, from the text that matched: a needle with
 * k newlines spans k + 1 lines, or k when it ends with a newline (that
 * newline is the last line's terminator).
 */
function matchHeight(strategy: MatchAmbiguous["strategy"], oldString: string): number {
  const lf = oldString.split("\r\n").join("\n");
  if (strategy === "fuzzy") return Math.max(1, textToLines(lf).length);
  const needle = strategy === "escaped" ? interpretEscapes(lf) : lf;
  let newlines = 0;
  for (let i = needle.indexOf("\n"); i !== -1; i = needle.indexOf("\n", i + 1)) newlines++;
  return Math.max(1, needle.endsWith("\n") ? newlines : newlines + 1);
}

/** The edit as the model sent it, for a corrected call. */
export interface SentEdit {
  readonly new_string: string;
  readonly replace_all?: boolean;
}

/** One place a no-match result lists: a whitespace-only place or a similar window. */
interface Place {
  readonly start: number;
  readonly end: number;
  readonly summary: string;
  readonly column?: number;
}

/**
 * EDIT_NO_MATCH: where old_string is when whitespace is ignored (first: that
 * is what the model meant), then the most similar windows, each with its
 * first differing character named by column and code point, and the current
 * text of the best one with ids. One whitespace-only place comes with the
 * corrected call, ready to send.
 */
export function noMatchText(path: string, doc: TextDocument, r: MatchMissing, limits: ToolLimits, sent?: SentEdit): string {
  const shortened = shortenedOldString(path, doc, r.needle, sent);
  if (shortened) return shortened;
  const p = JSON.stringify(shownPath(path));
  const ws = r.whitespacePlaces;
  const head =
    ws.length > 0
      ? `old_string is not in \`${shownPath(path)}\` as written, but it is there when whitespace is ignored ` +
        `(${ws.length === 1 ? `at ${lineSpan(doc, ws[0].start, ws[0].end)}` : `at ${ws.length}${ws.length === 3 ? " or more" : ""} places`}); ` +
        `only whole lines are matched ignoring whitespace, so nothing was changed.`
      : `old_string was not found in \`${shownPath(path)}\` (not exactly, not with literal \\n / \\t read as newlines / tabs, and not ignoring whitespace); nothing was changed.`;
  const places: Place[] = ws.map((w) => ({
    start: w.start,
    end: w.end,
    column: w.column,
    summary: `only whitespace differs${charNote(doc, w.start, r.needle, w.column)}`,
  }));
  for (const c of r.candidates) {
    if (places.length >= 3) break;
    if (places.some((q) => c.start < q.end && q.start < c.end)) continue;
    places.push({
      start: c.start,
      end: c.end,
      summary: `${c.percent}% similar; ${difference(c)}${c.differs === "content" ? charNote(doc, c.start, r.needle) : ""}`,
    });
  }
  if (places.length === 0) {
    const why = doc.lines.length === 0 ? "The file is empty." : "Nothing in the file resembles it.";
    return `${head} ${why} View the file to find the current text: view {"path": ${p}}, or search it: view {"path": ${p}, "content": "<a distinctive part of old_string>"}.`;
  }
  const out = [head, "Closest places:"];
  places.forEach((q, i) => {
    out.push(`${i + 1}. ${lineSpan(doc, q.start, q.end, true)} — ${q.summary}`);
  });

  const best = places[0];
  const to = Math.min(best.end, best.start + MAX_WINDOW_LINES);
  const shown = renderLines(doc, best.start + 1, to, { maxLineChars: limits.maxLineChars, maxOutputBytes: MAX_WINDOW_BYTES });
  out.push(`Current text of the closest place (${range(shown.from, shown.to)}), with ids:`, shown.text);
  if (shown.to < best.end) out.push(`… view {"path": ${p}, "start": ${shown.to + 1}, "end": ${best.end}} for the rest of it.`);
  const alike = ws.length === 0 && sent ? lookAlikeEdit(doc.lines, r.needle, sent.new_string) : undefined;
  if (alike) {
    const args = { path: shownPath(path), old_string: alike.oldString, new_string: alike.newString, ...(sent?.replace_all ? { replace_all: true } : {}) };
    // Invisible characters and combining marks written as \u escapes: a copy of the call cannot drop or recompose them.
    const call = `edit ${JSON.stringify(args).replace(UNSEEN, (ch) => (ch.length > 1 ? ch : `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`))}`;
    if (call.length <= MAX_CALL_CHARS) {
      out.push(
        `old_string is in the file at line ${formatId(alike.line + 1, doc.hashes[alike.line])}, and at no other place, once characters that look alike or do not show are read as one: ` +
          `it differs there only by ${alike.kinds.join(", and ")}. ` +
          `The same edit with old_string exactly as the file has it, and new_string keeping the file's characters wherever it repeats old_string, ready to send:\n${call}`,
      );
      return out.join("\n");
    }
  }
  if (ws.length === 1 && sent) {
    const args = { path: shownPath(path), old_string: ws[0].text, new_string: sent.new_string, ...(sent.replace_all ? { replace_all: true } : {}) };
    const call = `edit ${JSON.stringify(args)}`;
    out.push(
      call.length <= MAX_CALL_CHARS
        ? `The same edit with old_string as the file has it (only its whitespace changed), ready to send:\n${call}`
        : `Use the file's exact text there as old_string (only its whitespace differs from yours).`,
    );
  } else {
    out.push(`Copy the text you mean from here into old_string exactly (without the "N:hh|" prefixes), or replace these lines by id with batch_edit.`);
  }
  return out.join("\n");
}

/** Characters a copied call could lose or change unseen: invisible ones and combining marks. */
const UNSEEN = /[\u00ad\u180e\u200b-\u200f\u2060\ufeff]|\p{M}/gu;

// The marker view ends a shortened row with (src/text/render.ts truncateLine).
const SHORTENED_END = /… \[line truncated: (\d+) chars total\]$/;

/**
 * EDIT_NO_MATCH for an old_string copied from a row view shortened: its
 * marker is view's, not the file's, so it can never match. Says so, and
 * offers old_string cut before the marker when that occurs exactly once
 * (the rest of the line, never shown, stays as it is); otherwise what to
 * send instead. Undefined when no line of old_string carries the marker.
 */
function shortenedOldString(path: string, doc: TextDocument, needle: string, sent: SentEdit | undefined): string | undefined {
  const lines = needle.split("\n");
  const k = lines.findIndex((line) => {
    const m = SHORTENED_END.exec(line);
    return m !== null && Number(m[1]) > m.index;
  });
  if (k === -1) return undefined;
  const marker = SHORTENED_END.exec(lines[k])!;
  const before = [...lines.slice(0, k), lines[k].slice(0, marker.index)].join("\n");
  const head =
    `old_string line ${k + 1} ends with \`${marker[0]}\`: view shortened that line (it has ${marker[1]} characters) and the marker is view's, not the file's, ` +
    `so old_string cannot match; nothing was changed.`;
  const p = JSON.stringify(shownPath(path));
  const places = before.trim() === "" ? 0 : findAllOccurrences(doc.lines, before, 2).length;
  if (places === 1 && sent && k === lines.length - 1) {
    // new_string as sent, less the marker if it was copied there too: the edit then leaves the unseen rest of the line alone.
    const newMarker = SHORTENED_END.exec(sent.new_string);
    const next = newMarker && newMarker[0] === marker[0] ? sent.new_string.slice(0, newMarker.index) : sent.new_string;
    const call = editCall(path, { oldString: before, newString: next });
    if (call.length <= MAX_CALL_CHARS) {
      return (
        `${head} The part before the marker occurs once in the file; an edit of it replaces just that part and keeps the rest of the line, which view did not show. ` +
        `Ready to send (check that new_string holds only what replaces that part):\n${call}`
      );
    }
  }
  const why = places === 0 ? "The part before the marker is not in the file either." : "The part before the marker occurs at more than one place.";
  return (
    `${head} ${why} Send an edit whose old_string is a short stretch of the line around your change, ending before the marker, that occurs once in the file ` +
    `(view does not show the rest of a long line; to see the text around a part of it: view {"path": ${p}, "content": "<a distinctive part of the line>"}).`
  );
}

/** "; first difference: line 2, column 15 of old_string has "“" (U+201C …) where the file (line 8:ab, column 17) has …". */
function charNote(doc: TextDocument, start: number, needle: string, column?: number): string {
  const all = charDifferences(doc.lines, start, needle, column);
  if (all.length === 0) return "";
  const at = (d: (typeof all)[number]) => (d.fileLine < doc.lines.length ? formatId(d.fileLine + 1, doc.hashes[d.fileLine]) : `${d.fileLine + 1}`);
  const [d] = all;
  const first =
    d.kind === "extra"
      ? `; first difference: the file (line ${at(d)}, column ${d.fileColumn}) has ${describeChar(d.fileChar)}, which old_string lacks (before its line ${d.needleLine}, column ${d.needleColumn})`
      : d.kind === "missing"
        ? `; first difference: old_string line ${d.needleLine}, column ${d.needleColumn} has ${describeChar(d.needleChar)}, which the file lacks (line ${at(d)}, before column ${d.fileColumn})`
        : `; first different character: old_string line ${d.needleLine}, column ${d.needleColumn} has ${describeChar(d.needleChar)} ` +
          `where the file (line ${at(d)}, column ${d.fileColumn}) has ${describeChar(d.fileChar)}`;
  if (all.length === 1) return first;
  const rest = all
    .slice(1)
    .map((x) =>
      x.kind === "extra"
        ? `the file has ${describeChar(x.fileChar)} before old_string line ${x.needleLine}, column ${x.needleColumn}, which old_string lacks`
        : x.kind === "missing"
          ? `line ${x.needleLine}, column ${x.needleColumn} has ${describeChar(x.needleChar)}, which the file lacks`
          : `line ${x.needleLine}, column ${x.needleColumn} has ${describeChar(x.needleChar)} for ${describeChar(x.fileChar)}`,
    );
  const oneForOne = all.every((x) => x.kind === "swap");
  return `${first}; the only other differences${oneForOne ? ", each one character for one" : ""}: ${rest.join("; ")}`;
}

function lineSpan(doc: TextDocument, start: number, end: number, ids = false): string {
  const id = (i: number) => (ids ? formatId(i + 1, doc.hashes[i]) : String(i + 1));
  return end - start === 1 ? `line ${id(start)}` : `lines ${id(start)}–${id(end - 1)}`;
}

function range(from: number, to: number): string {
  return from === to ? `line ${from}` : `lines ${from}-${to}`;
}

const DIFFERS: Record<Exclude<Difference, "content">, string> = {
  none: "identical",
  indentation: "only the indentation differs",
  whitespace: "only whitespace differs",
};

function difference(c: WindowCandidate): string {
  if (c.differs !== "content") return DIFFERS[c.differs];
  const at = c.firstDifference;
  return at ? `the text differs, first at line ${at.needleLine} of old_string (file line ${at.id})` : "the text differs";
}

/**
 * The refusal of a one-line old_string matched after a line's indentation
 * with a new_string of several lines (see `ContinuationAmbiguous`): each
 * reading as an edit ready to send, when there is one place.
 */
export function continuationAmbiguousText(path: string, doc: TextDocument, r: ContinuationAmbiguous, ready: readonly (ReadyEdit | undefined)[]): string {
  const line = r.line + 1;
  const out = [
    `old_string matches line ${line} after its indentation (${describeIndent(r.indent)}), and new_string has more lines: ` +
      `they may be written relative to old_string's column (then each needs that indentation too) or as they are, and the two put them at different depths. Nothing was changed.`,
    `  ${renderLine(line, doc.hashes[r.line], doc.lines[r.line], 200)}`,
  ];
  const calls = ready.map((edit, i) =>
    edit ? `- ${i === 0 ? "as written" : `with ${describeIndent(r.indent)} added to the later lines`}: ${editCall(path, edit)}` : "",
  );
  if (calls.every((c) => c !== "" && c.length <= MAX_CALL_CHARS)) {
    out.push("Each reading as the edit to send (old_string and new_string as whole lines, with their indentation):", ...calls);
  } else {
    out.push("Send old_string with the indentation the file has, and new_string with every line indented as it should be in the file.");
  }
  return out.join("\n");
}

/** The refusal of an edit whose result would pass the file size limit (see text/edit-size.ts). */
export function tooLargeText(path: string, growth: EditGrowth, limit: number, replaceAll: boolean): string {
  const atLeast = growth.exact ? "" : "at least ";
  const where = replaceAll ? `replacing old_string at ${atLeast}${growth.places} place${growth.places === 1 ? "" : "s"}` : "replacing old_string";
  return (
    `${where} with new_string would make \`${shownPath(path)}\` ${atLeast}about ${mib(growth.bytes)}, over the ${mib(limit)} file size limit (maxFileBytes); nothing was written. ` +
    (replaceAll
      ? "Replace fewer places at a time (without replace_all, with enough context to name one place), or make new_string shorter."
      : "Make new_string shorter, or split the content across several files.")
  );
}
