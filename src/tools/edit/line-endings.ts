/**
 * Line endings in `edit`'s new text. edit matches and writes lines without
 * their terminators, and every line keeps its own: so a "\r" at the end of
 * a new line is half of a CRLF, read as part of the line ending (noted),
 * and an edit whose strings differ only in line endings changes nothing,
 * which the refusal says, with the call that does convert (a verbatim write).
 */

import { joinLines, type Eol } from "../../text/lines.ts";
import type { LineEdit } from "../../text/line-edits.ts";
import { dropTrailingCr } from "../../text/eol.ts";
import type { TextDocument } from "../../text/document.ts";
import { trailingCrNote } from "../support/new-text.ts";
import { shownPath } from "../support/remedy.ts";

/** Longest `write` call the line-ending refusal repeats whole. */
const MAX_WRITE_CALL_CHARS = 8 * 1024;

/**
 * The edits with no "\r" at their new lines' ends where new_string put it
 * there, and the note saying so; unchanged when new_string ends no line
 * with one. A "\r" the file's own text brings to a line's end stays, and
 * so does one where the line replaced ends in "\r" too (a lone-CR file's
 * unterminated last line).
 */
export function editsWithoutTrailingCr(lines: readonly string[], edits: readonly LineEdit[], newString: string): { edits: LineEdit[]; note?: string } {
  // new_string's line k ends with a "\r" of its own: before its "\r\n" ("B\r\r\n"), or at its very end.
  const pieces = newString.split("\n");
  const last = pieces.length - 1;
  const own = (k: number) => (k < last ? pieces[k].endsWith("\r\r") : k === last && pieces[k].endsWith("\r"));
  if (!pieces.some((_, k) => own(k))) return { edits: edits.slice() };
  const changed = new Set<number>();
  const out = edits.map((e) => {
    // An edit's lines start at the line old_string starts on: line k of it is new_string's line k.
    const dropped = dropTrailingCr(e.lines, (k) => !own(k) || (k < e.end - e.start && lines[e.start + k].endsWith("\r")));
    if (!dropped) return e;
    for (const k of dropped.changed) changed.add(k + 1);
    return { ...e, lines: dropped.lines };
  });
  if (changed.size === 0) return { edits: out };
  return {
    edits: out,
    note: `Note: ${trailingCrNote(
      "new_string",
      [...changed].sort((a, b) => a - b),
    )}`,
  };
}

/** Whether old_string and new_string differ, but only in "\r\n" against "\n". */
export function differOnlyInEols(oldString: string, newString: string): boolean {
  const lf = (s: string) => s.split("\r\n").join("\n");
  return oldString !== newString && lf(oldString) === lf(newString);
}

/**
 * EDIT_NO_CHANGE for strings that differ only in line endings: why it
 * changes nothing, and the verbatim write that converts the file, ready
 * when the strings are only line endings (the whole file converts) and the
 * call is short enough to repeat.
 */
export function eolOnlyText(path: string, doc: Pick<TextDocument, "lines" | "eols">, newString: string): string {
  const p = shownPath(path);
  const to: Eol = newString.includes("\r\n") ? "\r\n" : "\n";
  const name = to === "\r\n" ? "CRLF" : "LF";
  const head =
    `old_string and new_string differ only in line endings ("\\r\\n" against "\\n"). edit matches and writes text without its line endings, and every line keeps its own, ` +
    `so this edit would change nothing; nothing was written. To change line endings, write the file whole with "verbatim": true, which writes content's line endings as sent`;
  const call = `write ${JSON.stringify({
    path: p,
    content: joinLines(
      doc.lines,
      doc.eols.map((e) => (e === "" ? "" : to)),
    ),
    verbatim: true,
  })}`;
  if (/^[\r\n]+$/.test(newString) && call.length <= MAX_WRITE_CALL_CHARS) {
    return `${head}. To give every line of \`${p}\` ${name} line endings, send:\n${call}`;
  }
  return `${head}: write ${JSON.stringify({ path: p, content: "<the whole file, with the line endings you want>", verbatim: true })} (view's header names a file's line endings).`;
}
