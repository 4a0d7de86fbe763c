/**
 * What `edit` says when it does not edit. Each text states the condition and
 * the exits, with the data to take them: the ids of every match, the
 * closest windows and the current text of the best one (so the model can
 * retry without another view).
 */

import type { TextDocument } from "../../text/document.ts";
import { textToLines } from "../../text/line-edits.ts";
import { interpretEscapes } from "../../text/match-escapes.ts";
import type { EditNoChange, MatchAmbiguous, MatchMissing } from "../../text/match.ts";
import { renderLine, renderLines } from "../../text/render.ts";
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

/**
 * EDIT_AMBIGUOUS: every match as a line id (range for multi-line matches)
 * with its first line, and the exits. An exact or escaped ambiguity has
 * three (more context, replace_all, batch_edit by id); a whitespace-
 * insensitive one two, since replace_all never applies a fuzzy match.
 */
export function ambiguousText(
  path: string,
  doc: Pick<TextDocument, "lines" | "hashes">,
  r: MatchAmbiguous,
  oldString: string,
  limits: ToolLimits,
): string {
  const span = matchHeight(r.strategy, oldString);
  const maxChars = Math.min(limits.maxLineChars, LISTED_LINE_CHARS);
  const list = r.matches.map((m) => {
    const last = Math.min(doc.lines.length, m.line + span - 1);
    const line = `  ${renderLine(m.line, doc.hashes[m.line - 1], doc.lines[m.line - 1], maxChars)}`;
    return last > m.line ? `${line}   (through ${formatId(last, doc.hashes[last - 1])})` : line;
  });
  if (r.total > r.matches.length) list.push(`  … and ${r.total - r.matches.length} more not listed`);

  const first = r.matches[0];
  const last = Math.min(doc.lines.length, first.line + span - 1);
  const end = last > first.line ? `, "end": "${formatId(last, doc.hashes[last - 1])}"` : "";
  const op = `{"operation": "replace", "start": "${first.id}"${end}, "content": "..."}`;
  const batch = `use batch_edit with the id of the one you mean, e.g. {"path": ${JSON.stringify(shownPath(path))}, "operations": [${op}]}`;

  const where = span > 1 ? `The matches (first line shown; each spans ${span} lines):` : "The matches:";
  if (r.strategy === "fuzzy") {
    return [
      `old_string has no exact match in \`${shownPath(path)}\`, and ignoring whitespace it matches ${r.total} places; ` +
        `a whitespace-insensitive match is applied only when it is unique, so nothing was changed. ${where}`,
      ...list,
      "Either:",
      "- copy the exact text (with the file's indentation) of the place you mean into old_string, with enough surrounding lines to be unique; or",
      `- ${batch}.`,
    ].join("\n");
  }
  const escaped = r.strategy === "escaped" ? " (after reading its literal \\n / \\t as newlines / tabs)" : "";
  return [
    `old_string matches ${r.total} places in \`${shownPath(path)}\`${escaped}, and edit replaces only a unique match; nothing was changed. ${where}`,
    ...list,
    "Either:",
    "- add surrounding lines to old_string until it matches only the place you mean;",
    `- pass "replace_all": true to replace all ${r.total}; or`,
    `- ${batch}.`,
  ].join("\n");
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

/** EDIT_NO_MATCH: the closest windows and the current text of the best one, with ids. */
export function noMatchText(
  path: string,
  doc: TextDocument,
  r: MatchMissing,
  limits: ToolLimits,
): string {
  const p = JSON.stringify(shownPath(path));
  const head = `old_string was not found in \`${shownPath(path)}\` (not exactly, not with literal \\n / \\t read as newlines / tabs, and not ignoring whitespace); nothing was changed.`;
  if (r.candidates.length === 0) {
    const why = doc.lines.length === 0 ? "The file is empty." : "Nothing in the file resembles it.";
    return `${head} ${why} View the file to find the current text: view {"path": ${p}}, or search it: view {"path": ${p}, "content": "<a distinctive part of old_string>"}.`;
  }
  const out = [head, "Closest places:"];
  r.candidates.forEach((c, i) => out.push(`${i + 1}. ${windowRange(c)} — ${c.percent}% similar; ${difference(c)}`));

  const best = r.candidates[0];
  const to = Math.min(best.end, best.start + MAX_WINDOW_LINES);
  const shown = renderLines(doc, best.start + 1, to, { maxLineChars: limits.maxLineChars, maxOutputBytes: MAX_WINDOW_BYTES });
  out.push(`Current text of the closest place (${range(shown.from, shown.to)}), with ids:`, shown.text);
  if (shown.to < best.end) out.push(`… view {"path": ${p}, "start": ${shown.to + 1}, "end": ${best.end}} for the rest of it.`);
  out.push(
    `Copy the text you mean from here into old_string exactly (without the "N:hh|" prefixes), or replace these lines by id with batch_edit.`,
  );
  return out.join("\n");
}

function windowRange(c: WindowCandidate): string {
  return c.end - c.start === 1 ? `line ${c.startId}` : `lines ${c.startId}–${c.endId}`;
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
  return at
    ? `the text differs, first at line ${at.needleLine} of old_string (file line ${at.id})`
    : "the text differs";
}
