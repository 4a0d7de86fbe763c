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
 *   at whole-text speed.
 */

import { type BytesNeedle, compileNeedle, containsBytes } from "../../text/bytes-find.ts";
import { RE2JS } from "re2js";
import { lineHolding } from "../../text/line-scan.ts";

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

/** How a search finds matching lines. */
export interface Searcher {
  /** Short description for headers: "literal, case-sensitive". */
  readonly label: string;
  /** Cheap whole-text check: false means no line can match. */
  mayMatch(text: string): boolean;
  /** Cheaper still, on the file's bytes before decoding: false means no line can match. */
  mayMatchBytes(bytes: Uint8Array): boolean;
  /** 0-based indices of the matching lines, ascending, each once. */
  matchLines(text: string, index: LineIndex): number[];
  /** UTF-16 column of the first match inside one line, or -1 (for showing a long line around its match). */
  column(line: string): number;
  /**
   * The literal as UTF-8 bytes, when its matches can be found in a file's
   * bytes exactly as in its text (case-sensitive, no line break in it).
   */
  readonly bytesNeedle?: BytesNeedle;
}

/** What a search looks for. */
export interface SearchSpec {
  readonly content: string;
  readonly regex: boolean;
  readonly caseSensitive: boolean;
}

/** A searcher for `spec`, or the message explaining why the regex does not compile. */
export function createSearcher(spec: SearchSpec): { ok: true; searcher: Searcher } | { ok: false; message: string } {
  return spec.regex ? regexSearcher(spec) : { ok: true, searcher: literalSearcher(spec) };
}

function literalSearcher(spec: SearchSpec): Searcher {
  const needle = normalizeEndings(spec.content);
  const fold = !spec.caseSensitive;
  const lowNeedle = needle.toLowerCase();
  const multiline = needle.includes("\n");
  // Only a needle whose bytes are the same in every file can be looked for before decoding:
  // case-sensitive, and without a line break (a CRLF file holds "\r\n" where the needle says "\n").
  const inBytes = fold || multiline || needle.includes("\r") ? undefined : compileNeedle(new TextEncoder().encode(needle));
  return {
    label: `literal, ${fold ? "case-insensitive" : "case-sensitive"}`,
    ...(inBytes && inBytes.bytes.length > 0 ? { bytesNeedle: inBytes } : {}),
    mayMatchBytes: (bytes) => (inBytes ? containsBytes(bytes, inBytes) : true),
    mayMatch: (text) => (fold ? text.toLowerCase().includes(lowNeedle) : text.includes(needle)),
    matchLines(text, index) {
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
    },
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

/** Inline constructs under which a whole-chunk test is not a safe pre-check for per-line matching. */
const TEXT_ANCHORS = /\\[Az]|\(\?[a-zA-Z]*-/;

function regexSearcher(spec: SearchSpec): { ok: true; searcher: Searcher } | { ok: false; message: string } {
  const flags = spec.caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE;
  let line: RE2JS;
  let chunk: RE2JS | undefined;
  try {
    line = RE2JS.compile(spec.content, flags);
    // With MULTILINE, a chunk of whole lines matches whenever one of its
    // lines does (^/$ become line anchors; the rest can only match more),
    // except for \A, \z and inline flags that turn multi-line off.
    if (!TEXT_ANCHORS.test(spec.content)) chunk = RE2JS.compile(spec.content, flags | RE2JS.MULTILINE);
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  return {
    ok: true,
    searcher: {
      label: `regex, ${spec.caseSensitive ? "case-sensitive" : "case-insensitive"}`,
      mayMatch: (text) => (chunk ? chunk.test(text) : true),
      mayMatchBytes: () => true,
      matchLines(text, index) {
        const out: number[] = [];
        const { starts, count } = index;
        let i = 0;
        while (i < count) {
          // Lines i..j-1 form a chunk of about CHUNK_CHARS (at least one line).
          let j = i + 1;
          while (j < count && starts[j] - starts[i] < CHUNK_CHARS) j++;
          const stop = j < count ? starts[j] - 1 : index.end;
          if (!chunk || chunk.test(text.slice(starts[i], stop))) {
            for (let k = i; k < j; k++) if (line.test(lineAt(text, index, k))) out.push(k);
          }
          i = j;
        }
        return out;
      },
      column(text) {
        const m = line.exec(text) as RegExpExecArray | null;
        return m ? m.index : -1;
      },
    },
  };
}
