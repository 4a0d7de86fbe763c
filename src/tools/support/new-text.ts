/**
 * Checks on the text a tool is about to write that no file style explains:
 * half of a UTF-16 surrogate pair (UTF-8 cannot store it: the encoder
 * writes U+FFFD, a silent wrong write), and the note for a "\r" at a line's
 * end read as part of its line ending (text/eol.ts `dropTrailingCr`).
 */

import { findLoneSurrogate } from "../../text/artifacts.ts";

/** Longest ready call a lone-surrogate refusal repeats whole. */
const MAX_CALL_CHARS = 4096;

/**
 * The INVALID_ARGUMENT text for a lone surrogate in `text` (the argument
 * `field`), or undefined when it is well-formed. `call(fixed)` renders the
 * same call with `fixed` in place of `text`, offered for U+FFFD meant
 * after `lead` ("send").
 */
export function loneSurrogateText(field: string, text: string, call: (fixed: string) => string, lead = "send"): string | undefined {
  const lone = findLoneSurrogate(text);
  if (!lone) return undefined;
  const code = `\\u${lone.code.toString(16).padStart(4, "0")}`;
  const half =
    lone.code < 0xdc00
      ? 'a high half with no low half ("\\udc00"-"\\udfff") right after it'
      : 'a low half with no high half ("\\ud800"-"\\udbff") right before it';
  const fixed = call(text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD"));
  return (
    `${field} holds a lone surrogate "${code}" at line ${lone.line}, column ${lone.column}: ${half}, so it is half of a character, which UTF-8 cannot store ` +
    `(it would be written as U+FFFD "\uFFFD"). Nothing was written. Send ${field} with the whole character (both halves, e.g. "\\ud83d\\ude00", or the character itself), or without it.` +
    (fixed.length <= MAX_CALL_CHARS
      ? `\nIf U+FFFD "\uFFFD" is what you mean there, ${lead}:\n${fixed}`
      : ` If U+FFFD is what you mean there, send "\\ufffd" in its place.`)
  );
}

/** The result note for lines of new text whose trailing "\r" was read as part of their line ending. `lines`: 1-based lines of `field`. */
export function trailingCrNote(field: string, lines: readonly number[]): string {
  const which = lines.length === 1 ? `line ${lines[0]}` : `lines ${lines.join(", ")}`;
  return (
    `${field} ${which} ended with "\\r" (as in "\\r\\n"); it was read as part of the line ending, not as text, ` +
    `so ${lines.length === 1 ? "the line ends" : "the lines end"} with the file's own line ending and no "\\r" before it.`
  );
}
