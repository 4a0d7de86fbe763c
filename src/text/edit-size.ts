/**
 * How large a string edit's result can get, before it is built. A
 * `replace_all` multiplies new_string by the number of places: 100 one-byte
 * places and a 3 MiB new_string are a 300 MiB file, built in memory before
 * any write or quota could refuse it. Pure.
 *
 * The places are counted as the matching ladder (./match.ts) would find
 * them, in the file's bytes and in linear time: the exact rung matches
 * old_string (its "\r\n" read as "\n") on the file's lines with "\n"
 * between them, so the count runs on the bytes with each "\r\n" read as
 * "\n", and an unterminated last line reads as if a "\n" followed it (as
 * `findOccurrences` reads it); non-overlapping, left to right. Only when
 * that finds nothing does the escape rung (literal \n and \t read) count;
 * the whitespace-insensitive rung only ever replaces one place.
 */

import { compileNeedle, indexOfBytes, type SearchWork } from "./bytes-find.ts";
import { interpretEscapes, shouldInterpretNewString } from "./match-escapes.ts";
import { utf8Length } from "./render.ts";

/** What an edit that would be too large would have made. */
export interface EditGrowth {
  /** Places old_string would be replaced at: exactly this many when `exact`, else at least this many. */
  readonly places: number;
  /**
   * True when `places` is the exact count; false when counting stopped
   * early (see {@link MAX_COUNTED}), so there may be more places ("at
   * least N places").
   */
  readonly exact: boolean;
  /** Bytes the result would reach with `places` places (at least this many when not `exact`). */
  readonly bytes: number;
}

/**
 * Places counted one by one past the point where the result passes the
 * limit, so the refusal can say how many there are: counting stops at this
 * many (or at the count the limit needed, when that is more), and the
 * result says "at least".
 */
export const MAX_COUNTED = 1_000_000;

const LF = 0x0a;
const CR = 0x0d;
const encoder = new TextEncoder();

/**
 * The result size of replacing old_string with new_string in `body` (the
 * file's UTF-8 bytes after any BOM), when it would pass `limit` bytes;
 * undefined when it would not. Without `replaceAll` at most one place is
 * replaced. Each place's growth is reckoned from the lengths of the two
 * strings, a line break new_string adds over old_string counted as "\r\n"
 * when the file has any (new lines get the file's own terminator). `work`
 * collects what the searches cost.
 */
export function editGrowth(
  body: Uint8Array,
  oldString: string,
  newString: string,
  replaceAll: boolean,
  limit: number,
  work?: SearchWork,
): EditGrowth | undefined {
  const oldText = crlfToLf(oldString);
  if (oldText === "") return undefined;
  const newText = crlfToLf(newString);
  const oldRead = interpretEscapes(oldText);
  const newRead = shouldInterpretNewString(newText) ? interpretEscapes(newText) : newText;
  const n = body.length;
  const growths = (crlf: boolean) => {
    const exact = growth(oldText, newText, crlf);
    const read = oldRead === oldText ? exact : growth(oldRead, newRead, crlf);
    // One place, on whichever rung finds it.
    return { exact, read, one: Math.max(exact, read) };
  };
  // At most one place per needle length of the text (one more byte after an unterminated last line).
  const most = (grows: number, needle: string) => (grows <= 0 ? 0 : Math.floor((n + 1) / utf8Length(needle)) * grows);
  const fits = (g: { exact: number; read: number; one: number }) =>
    n + (replaceAll ? Math.max(g.one, most(g.exact, oldText), oldRead === oldText ? 0 : most(g.read, oldRead)) : g.one) <= limit;
  // Reckoned first as if the file had "\r\n" (each place grows as much or more): usually well within the limit, without a look at the file.
  let g = growths(true);
  if (g.one <= 0 || fits(g)) return undefined;
  const crlf = hasCrlf(body);
  if (!crlf) {
    g = growths(false);
    if (g.one <= 0 || fits(g)) return undefined;
  }
  const one = (): EditGrowth | undefined => (n + g.one > limit ? { places: 1, exact: true, bytes: n + g.one } : undefined);
  if (!replaceAll) return one();

  // A needle without "\n" that does not end in "\r" never holds a terminator's "\r": it counts the same in the bytes as they are.
  let lf: Uint8Array | undefined;
  const textFor = (needle: string) => (!crlf || (!needle.includes("\n") && !needle.endsWith("\r")) ? body : (lf ??= withLfEndings(body)));
  const rung = (needle: string, grows: number): EditGrowth | undefined | "none" => {
    const { places, exact } = countPlaces(textFor(needle), encoder.encode(needle), placesToCount(n, grows, limit), work);
    if (places === 0) return "none";
    if (grows <= 0) return undefined;
    const bytes = n + places * grows;
    return bytes > limit ? { places, exact, bytes } : undefined;
  };
  const exact = rung(oldText, g.exact);
  if (exact !== "none") return exact;
  if (oldRead !== oldText) {
    const read = rung(oldRead, g.read);
    if (read !== "none") return read;
  }
  return one();
}

/**
 * Bytes one place adds: the difference in length, plus a byte for each
 * line break new_string has beyond old_string's in a file with "\r\n"
 * (the lines an edit adds take the file's terminator; the lines it keeps
 * keep theirs, and old_string's own breaks matched at least one byte each).
 */
function growth(oldText: string, newText: string, crlf: boolean): number {
  const added = crlf ? Math.max(0, lineBreaks(newText) - lineBreaks(oldText)) : 0;
  return utf8Length(newText) - utf8Length(oldText) + added;
}

function lineBreaks(text: string): number {
  let count = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++;
  return count;
}

/** Places worth counting: those that pass the limit, or {@link MAX_COUNTED} when that is more. */
function placesToCount(n: number, grows: number, limit: number): number {
  if (grows <= 0) return 1; // only whether the rung finds anything matters
  const passing = Math.max(1, Math.floor((limit - n) / grows) + 1);
  return Math.max(passing, MAX_COUNTED);
}

/**
 * Non-overlapping occurrences of `needle` in `text`, left to right, up to
 * `most` of them (then `exact` is false). An unterminated last line counts
 * as if a "\n" followed it. Linear in the text (see `indexOfBytes`): each
 * search starts where the last occurrence ended.
 */
export function countPlaces(text: Uint8Array, needle: Uint8Array, most: number, work?: SearchWork): { places: number; exact: boolean } {
  const m = needle.length;
  if (m === 0) return { places: 0, exact: true };
  const compiled = compileNeedle(needle);
  let places = 0;
  let end = 0;
  for (let at = indexOfBytes(text, compiled, 0, work); at !== -1; at = indexOfBytes(text, compiled, end, work)) {
    places++;
    end = at + m;
    if (places >= most) return { places, exact: false };
  }
  const open = text.length > 0 && text[text.length - 1] !== LF;
  if (open && needle[m - 1] === LF) {
    const start = text.length - (m - 1);
    if (start >= end && sameBytes(text, start, needle, m - 1, work)) places++;
  }
  return { places, exact: true };
}

function sameBytes(text: Uint8Array, start: number, needle: Uint8Array, length: number, work?: SearchWork): boolean {
  let i = 0;
  while (i < length && text[start + i] === needle[i]) i++;
  if (work) work.compared += Math.min(length, i + 1);
  return i === length;
}

function hasCrlf(bytes: Uint8Array): boolean {
  for (let i = bytes.indexOf(CR); i !== -1; i = bytes.indexOf(CR, i + 1)) if (bytes[i + 1] === LF) return true;
  return false;
}

/** A copy of `bytes` with every "\r\n" read as "\n" (the ladder's lines never hold the "\r" of a terminator). */
export function withLfEndings(bytes: Uint8Array): Uint8Array {
  const out = bytes.slice();
  let length = 0;
  let from = 0;
  for (let cr = bytes.indexOf(CR); cr !== -1; cr = bytes.indexOf(CR, cr + 1)) {
    if (bytes[cr + 1] !== LF) continue;
    out.copyWithin(length, from, cr);
    length += cr - from;
    from = cr + 1;
  }
  out.copyWithin(length, from, bytes.length);
  length += bytes.length - from;
  return out.subarray(0, length);
}

/** As the ladder reads old_string and new_string (`crlfToLf` in ./match.ts). */
function crlfToLf(text: string): string {
  return text.includes("\r\n") ? text.split("\r\n").join("\n") : text;
}
