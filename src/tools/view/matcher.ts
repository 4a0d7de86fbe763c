/**
 * Finding the lines of a text that match a search. Pure.
 *
 * The text is searched with its "\r\n" endings written as "\n" (see
 * {@link normalizeEndings}): line numbers and line contents stay exactly
 * those of the file, and a literal that spans lines matches whatever the
 * file's line endings are.
 *
 * - Literal (the default): plain substring search over the whole text, so a
 *   `content` with "\n" in it finds a block; every line the match covers
 *   counts as matching. Case-insensitive compares lower-cased text.
 * - Regex: RE2 (linear time whatever the pattern and input: `(a+)+$`
 *   against a 100k-character line is as cheap as any other search), matched
 *   against each line on its own, as grep does: `^`/`$` anchor the line and
 *   nothing matches across lines. Lines are tested only inside chunks of the
 *   text that the pattern matches as a whole, which skips most of a file
 *   at whole-text speed. RE2 is linear, not free: a search's RE2 work is
 *   metered (./search-work.ts), a line too long for one bounded call is not
 *   matched but reported, and a pattern over {@link MAX_SEARCH_PROGRAM}
 *   instructions is refused before any file is read.
 */

import { type BytesNeedle, compileNeedle, containsBytes } from "../../text/bytes-find.ts";
import { RE2JS } from "re2js";
import { lineHolding } from "../../text/line-scan.ts";
import { estimateProgramSize, re2ProgramSize } from "../../text/re2-work.ts";
import type { SearchWork } from "./search-work.ts";

/** Where each line of a normalised text starts. */
export interface LineIndex {
  /** `starts[i]` is the UTF-16 offset where line i (0-based) starts. */
  readonly starts: Uint32Array;
  readonly count: number;
  /** Offset just past the last line's content (its "\n" excluded). */
  readonly end: number;
}

/** `text` with every "\r\n" written "\n" (the same lines, the same contents). */
export function normalizeEndings(text: string): string {
  return text.includes("\r\n") ? text.replaceAll("\r\n", "\n") : text;
}

/** Index the lines of a normalised text (split on "\n"; a final "\n" opens no extra line). */
export function indexLines(text: string): LineIndex {
  // One pass, into an array grown as needed (a guess of one line per 32 characters to start).
  const length = text.length;
  let starts = new Uint32Array(Math.max(16, (length >>> 5) + 1));
  let count = length > 0 ? 1 : 0;
  for (let i = text.indexOf("\n"); i !== -1 && i + 1 < length; i = text.indexOf("\n", i + 1)) {
    if (count === starts.length) {
      const grown = new Uint32Array(starts.length * 2);
      grown.set(starts);
      starts = grown;
    }
    starts[count++] = i + 1;
  }
  return { starts: starts.subarray(0, count), count, end: text.endsWith("\n") ? length - 1 : length };
}

/** Content of line `i` (0-based) of an indexed text. */
export function lineAt(text: string, index: LineIndex, i: number): string {
  const stop = i + 1 < index.count ? index.starts[i + 1] - 1 : index.end;
  return text.slice(index.starts[i], stop);
}

/** What {@link Searcher.scanLines} did. */
export interface LineScan {
  /** 0-based matching lines from `from` on, ascending, each once. */
  readonly matches: number[];
  /**
   * First line not yet matched: `end` when the scan is done; less when it
   * paused for a turn (`work.due()`) or stopped (`work.stopped`).
   */
  readonly next: number;
  /** Lines not matched because one RE2 call on any of them would cost more than the call limit (ascending). */
  readonly tooLong: number[];
}

/** How a search finds matching lines. */
export interface Searcher {
  /** Short description for headers: "literal, case-sensitive". */
  readonly label: string;
  /**
   * RE2 instructions each character searched may cost: the compiled
   * program's size; 0 for a literal, and for a regex of plain text matched
   * case-sensitively (RE2 finds it by substring search), which are not metered.
   */
  readonly programSize: number;
  /**
   * Cheap whole-text check: false means no line can match. With `work`, a
   * regex checks only when that one call fits its bounds (it is charged),
   * and otherwise answers true (unknown) for {@link scanLines} to settle.
   */
  mayMatch(text: string, work?: SearchWork): boolean;
  /** Cheaper still, on the file's bytes before decoding: false means no line can match. */
  mayMatchBytes(bytes: Uint8Array): boolean;
  /** 0-based indices of the matching lines, ascending, each once (unmetered). */
  matchLines(text: string, index: LineIndex): number[];
  /**
   * The matching lines from line `from` up to `end` (0-based, exclusive;
   * default the last line), metered by `work`: it returns early when a turn
   * is due or the work stopped (see {@link LineScan.next}); call again from
   * `next` after the turn.
   */
  scanLines(text: string, index: LineIndex, from: number, work: SearchWork, end?: number): LineScan;
  /**
   * UTF-16 column where the first match inside one line starts, or -1 for
   * none (for showing a long line around its match). With `work`, a regex
   * charges the call as one test of the line, and answers "too-long" (the
   * call would cost more than one RE2 call may) or "budget" (the search's
   * budget cannot hold it) without looking, charging nothing.
   */
  column(line: string, work?: SearchWork): number | Unlocated;
  /**
   * The literal as UTF-8 bytes, when its matches can be found in a file's
   * bytes exactly as in its text (case-sensitive, no line break in it).
   */
  readonly bytesNeedle?: BytesNeedle;
}

/** Why {@link Searcher.column} did not look for a line's match: see there. */
export type Unlocated = "too-long" | "budget";

/** What a search looks for. */
export interface SearchSpec {
  readonly content: string;
  readonly regex: boolean;
  readonly caseSensitive: boolean;
}

/** Most RE2 instructions a search pattern may compile to (the bound user rules have too). */
export const MAX_SEARCH_PROGRAM = 4096;
/** Longest regex `content`, in characters: read before anything is compiled. */
export const MAX_REGEX_CHARS = 4096;
/** A pattern estimated over this many instructions is refused without compiling it (see `estimateProgramSize`). */
const REFUSE_ESTIMATE = 16 * MAX_SEARCH_PROGRAM;

/**
 * Why a regex cannot be searched with: RE2 does not compile it ("invalid"),
 * it is longer than {@link MAX_REGEX_CHARS} ("too-long"), or it is over
 * {@link MAX_SEARCH_PROGRAM} instructions ("too-complex": counted, or
 * `estimated` far over without compiling). `message` says it in a few
 * words (RE2's own for "invalid").
 */
export type SearcherRefusal = { readonly ok: false; readonly message: string } & (
  | { readonly kind: "invalid" }
  | { readonly kind: "too-long"; readonly chars: number }
  | { readonly kind: "too-complex"; readonly programSize: number; readonly estimated: boolean }
);

/** A searcher for `spec`, or why the regex cannot be searched with. */
export function createSearcher(spec: SearchSpec): { ok: true; searcher: Searcher } | SearcherRefusal {
  return spec.regex ? regexSearcher(spec) : { ok: true, searcher: literalSearcher(spec) };
}

/**
 * `source` with each counted repeat written as `+` (or `*` when it may be
 * empty): `[^\n]{1000}` -> `[^\n]+`. It matches every line the pattern does,
 * and more; undefined when there is nothing to rewrite. Escapes and classes
 * are left alone.
 */
export function loosenRepeats(source: string): string | undefined {
  let out = "";
  let changed = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      // `\x{41}`, `\p{Greek}`: the braces belong to the escape.
      const braced = /^\\[xpP]\{[^}]*\}/.exec(source.slice(i, i + 64));
      const length = braced ? braced[0].length : 2;
      out += source.slice(i, i + length);
      i += length - 1;
      continue;
    }
    if (c === "[") {
      let k = i + 1;
      if (source[k] === "^") k++;
      if (source[k] === "]") k++;
      while (k < source.length && source[k] !== "]") k += source[k] === "\\" ? 2 : 1;
      out += source.slice(i, k + 1);
      i = k;
      continue;
    }
    const counted = c === "{" && i > 0 ? /^\{(\d+)(?:,(\d*))?\}/.exec(source.slice(i, i + 24)) : null;
    if (counted) {
      out += Number(counted[1]) === 0 ? "*" : "+";
      i += counted[0].length - 1;
      changed = true;
      continue;
    }
    out += c;
  }
  return changed ? out : undefined;
}

/**
 * The longest run of plain text every match of `source` must contain
 * (`function\s+\w+\(` -> "function"), for suggesting a literal search that
 * finds at least the lines the regex would; undefined when none of at least
 * 3 characters is certain (an alternation or a group at the top level,
 * inline flags).
 */
export function requiredLiteral(source: string): string | undefined {
  if (/\(\?[a-zA-Z-]*[):]/.test(source)) return undefined;
  let best = "";
  let run = "";
  const end = () => {
    if (run.length > best.length) best = run;
    run = "";
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    let literal: string | undefined;
    let width = 1;
    if (c === "\\") {
      const next = source[i + 1] ?? "";
      if (/[-.\\/()[\]{}*+?|^$#&~ '"`,:;<=>!@%]/.test(next)) literal = next;
      width = 2;
    } else if (/[\p{L}\p{N}_ \-:;,'"/<>=!@#%&~`]/u.test(c)) {
      literal = c;
    } else if (c === "|" || c === "(") {
      // An alternative or a group: nothing at the top level is certain.
      return undefined;
    } else if (c === "[") {
      // A class: skip to its end ("]" right after "[" or "[^" is a member).
      let k = i + 1;
      if (source[k] === "^") k++;
      if (source[k] === "]") k++;
      while (k < source.length && source[k] !== "]") k += source[k] === "\\" ? 2 : 1;
      width = k + 1 - i;
    } else if (c === "{") {
      const counted = /^\{\d+(?:,\d*)?\}/.exec(source.slice(i, i + 24));
      if (counted) width = counted[0].length;
    }
    const quantifier = source[i + width];
    if (literal === undefined) {
      end();
    } else if (quantifier === "?" || quantifier === "*" || quantifier === "{") {
      // Optional or counted: the text before it is certain, this character is not.
      end();
    } else if (quantifier === "+") {
      run += literal;
      end();
    } else {
      run += literal;
    }
    i += width - 1;
  }
  end();
  return best.trim().length >= 3 ? best : undefined;
}

function literalSearcher(spec: SearchSpec): Searcher {
  const needle = normalizeEndings(spec.content);
  const fold = !spec.caseSensitive;
  const lowNeedle = needle.toLowerCase();
  const multiline = needle.includes("\n");
  // Only a needle whose bytes are the same in every file can be looked for before decoding:
  // case-sensitive, and without a line break (a CRLF file holds "\r\n" where the needle says "\n").
  const inBytes = fold || multiline || needle.includes("\r") ? undefined : compileNeedle(new TextEncoder().encode(needle));

  function matchLines(text: string, index: LineIndex): number[] {
    if (!fold) return scanLiteral(text, needle, index, multiline);
    const lowered = text.toLowerCase();
    // Lower-casing keeps offsets for nearly all text; where it changes a
    // length (e.g. "İ"), fall back to comparing line by line.
    if (lowered.length === text.length) return scanLiteral(lowered, lowNeedle, index, multiline);
    if (multiline) return scanLiteral(lowered, lowNeedle, indexLines(lowered), multiline);
    const out: number[] = [];
    for (let i = 0; i < index.count; i++) {
      if (lineAt(text, index, i).toLowerCase().includes(lowNeedle)) out.push(i);
    }
    return out;
  }

  return {
    label: `literal, ${fold ? "case-insensitive" : "case-sensitive"}`,
    ...(inBytes && inBytes.bytes.length > 0 ? { bytesNeedle: inBytes } : {}),
    programSize: 0,
    mayMatchBytes: (bytes) => (inBytes ? containsBytes(bytes, inBytes) : true),
    mayMatch: (text) => (fold ? text.toLowerCase().includes(lowNeedle) : text.includes(needle)),
    scanLines(text, index, from, _work, end = index.count) {
      // A literal is not RE2 work: one pass, whatever the meter says.
      const all = matchLines(text, index);
      return { matches: from > 0 || end < index.count ? all.filter((i) => i >= from && i < end) : all, next: end, tooLong: [] };
    },
    matchLines,
    column: (line) => (fold ? line.toLowerCase().indexOf(lowNeedle) : line.indexOf(needle)),
  };
}

function scanLiteral(text: string, needle: string, index: LineIndex, multiline: boolean): number[] {
  const out: number[] = [];
  let line = 0;
  let at = text.indexOf(needle);
  while (at !== -1) {
    line = lineHolding(index.starts, index.count, at, line);
    let first = line;
    let last = line;
    if (multiline) {
      // A match that starts on a line's "\n" does not touch that line's content.
      if (text.charCodeAt(at) === 10) first = line + 1;
      last = lineHolding(index.starts, index.count, at + needle.length - 1, line);
    }
    const previous = out.length > 0 ? out[out.length - 1] : -1;
    for (let i = Math.max(first, previous + 1); i <= last; i++) out.push(i);
    if (multiline) at = text.indexOf(needle, at + 1);
    else {
      // One hit marks the line; continue from the next line.
      const next = line + 1 < index.count ? index.starts[line + 1] : text.length;
      at = text.indexOf(needle, next);
    }
  }
  return out;
}

/** Text per chunk tested as a whole before its lines are tested one by one. */
const CHUNK_CHARS = 16 * 1024;

/** Any character with a meaning in RE2 syntax. */
const REGEX_SYNTAX = /[\\.+*?()|[\]{}^$]/;

/** Inline constructs under which a whole-chunk test is not a safe pre-check for per-line matching. */
const TEXT_ANCHORS = /\\[Az]|\(\?[a-zA-Z]*-/;

function regexSearcher(spec: SearchSpec): { ok: true; searcher: Searcher } | SearcherRefusal {
  const chars = spec.content.length;
  if (chars > MAX_REGEX_CHARS) return { ok: false, kind: "too-long", chars, message: `the pattern is ${chars} characters, over ${MAX_REGEX_CHARS}` };
  const estimate = estimateProgramSize(spec.content, REFUSE_ESTIMATE);
  if (estimate > REFUSE_ESTIMATE) {
    return { ok: false, kind: "too-complex", programSize: estimate, estimated: true, message: `the pattern expands to about ${estimate} RE2 instructions` };
  }
  const flags = spec.caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE;
  let line: RE2JS;
  let chunk: RE2JS | undefined;
  try {
    line = RE2JS.compile(spec.content, flags);
  } catch (error) {
    return { ok: false, kind: "invalid", message: (error as Error).message };
  }
  const programSize = re2ProgramSize(line);
  if (programSize > MAX_SEARCH_PROGRAM) {
    return { ok: false, kind: "too-complex", programSize, estimated: false, message: `the pattern compiles to ${programSize} RE2 instructions` };
  }
  // With MULTILINE, a chunk of whole lines matches whenever one of its
  // lines does (^/$ become line anchors; the rest can only match more),
  // except for \A, \z and inline flags that turn multi-line off.
  if (!TEXT_ANCHORS.test(spec.content)) chunk = RE2JS.compile(spec.content, flags | RE2JS.MULTILINE);
  // Plain text, case-sensitive: RE2 looks for it by substring search, at a literal's cost.
  const plain = spec.caseSensitive && !REGEX_SYNTAX.test(spec.content);

  function scanLines(text: string, index: LineIndex, from: number, work?: SearchWork, until = index.count): LineScan {
    const end = Math.min(until, index.count);
    const matches: number[] = [];
    const tooLong: number[] = [];
    const { starts, count } = index;
    const endOf = (k: number) => (k + 1 < count ? starts[k + 1] - 1 : index.end);
    // A chunk is as many whole lines as one bounded call may read (at least one line).
    const chunkChars = work ? Math.min(CHUNK_CHARS, work.maxCallChars) : CHUNK_CHARS;
    let i = from;
    while (i < end) {
      if (work && (work.stopped || (i > from && work.due()))) break;
      let j = i + 1;
      while (j < end && endOf(j) - starts[i] <= chunkChars) j++;
      const stop = endOf(j - 1);
      // A chunk of one line is tested as that line (the chunk test would repeat it).
      if (chunk && j > i + 1) {
        if (work && !work.spend(stop - starts[i])) break;
        if (!chunk.test(text.slice(starts[i], stop))) {
          i = j;
          continue;
        }
      }
      let k = i;
      for (; k < j; k++) {
        const content = lineAt(text, index, k);
        if (work) {
          if (!work.fits(content.length)) {
            tooLong.push(k);
            continue;
          }
          if (!work.spend(content.length)) break;
        }
        if (line.test(content)) matches.push(k);
      }
      i = k;
      if (k < j) break;
    }
    return { matches, next: i, tooLong };
  }

  return {
    ok: true,
    searcher: {
      label: `regex, ${spec.caseSensitive ? "case-sensitive" : "case-insensitive"}`,
      programSize: plain ? 0 : programSize,
      mayMatch(text, work) {
        if (!chunk) return true;
        if (work && (work.stopped || !work.fits(text.length) || !work.affords(text.length))) return true;
        work?.spend(text.length);
        return chunk.test(text);
      },
      mayMatchBytes: () => true,
      matchLines: (text, index) => scanLines(text, index, 0).matches,
      scanLines,
      column(text, work) {
        if (work && !work.fits(text.length)) return "too-long";
        if (work && !work.affords(text.length)) return "budget";
        work?.spend(text.length);
        // Where the match starts is group 0 of a find: never `exec`, which then matches again
        // tracking every capture group, at a cost that grows with their number (see ./search-work.ts).
        const found = line.matcher(text);
        return found.find() ? found.start() : -1;
      },
    },
  };
}
