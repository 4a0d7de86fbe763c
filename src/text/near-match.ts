/**
 * Two diagnostics for an old_string that matched nowhere. Pure.
 *
 * - Whitespace-only places: where old_string's text is, character for
 *   character, once all whitespace is ignored, even inside lines (the
 *   ladder's whitespace-insensitive rung compares whole lines only, so a
 *   partial-line old_string with one space too many gets no match there).
 *   These are the places the model meant, before any merely similar text.
 * - The first differing character of a place: its line and column on both
 *   sides and both code points, which names what no eye sees in a quote:
 *   U+201C for U+0022, NBSP for a space, a tab for spaces, NFD for NFC.
 *
 * Both run on a failed edit, with a file and an old_string anyone can send,
 * so both are linear in the file and old_string, never their product:
 * substring search by KMP ({@link indexOfText}), alignment by Z-matching
 * ({@link alignHead}). A 1 MB line of "a" and an old_string of "a" x 2000
 * + "e" had cost 2e9 comparisons (15 s with every other request blocked).
 */

import { compileText, indexOfText, type SearchWork } from "./text-find.ts";

/** A place where old_string matches when whitespace is ignored. */
export interface WhitespacePlace {
  /** 0-based first line. */
  readonly start: number;
  /** 0-based end line (exclusive). */
  readonly end: number;
  /** The file's exact text of the place, from its first to its last non-whitespace character matched. */
  readonly text: string;
  /** 0-based column in line `start` where `text` begins. */
  readonly column: number;
}

const WS = /\s/;

/**
 * Every place (at most `limit`, in file order) where `needle` with all
 * whitespace removed occurs in the file with all whitespace removed.
 * Empty when the needle is only whitespace. Linear in the file and needle
 * (`work` counts the search's steps).
 */
export function findWhitespaceOnly(lines: readonly string[], needle: string, limit = 3, work?: SearchWork): WhitespacePlace[] {
  const want = needle.replace(/\s+/g, "");
  if (want === "") return [];
  // The file without whitespace, and where each line's part of it starts (memory stays linear in the file).
  const parts: string[] = new Array(lines.length);
  const starts = new Int32Array(lines.length + 1);
  for (let i = 0; i < lines.length; i++) {
    parts[i] = lines[i].replace(/\s+/g, "");
    starts[i + 1] = starts[i] + parts[i].length;
  }
  const flat = parts.join("");
  const places: WhitespacePlace[] = [];
  const search = compileText(want);
  for (let at = indexOfText(flat, search, 0, work); at !== -1 && places.length < limit; at = indexOfText(flat, search, at + want.length, work)) {
    const [start, from] = locate(lines, starts, at);
    const [last, lastCol] = locate(lines, starts, at + want.length - 1);
    const end = last + 1;
    const body = lines.slice(start, end).join("\n");
    const to = body.length - (lines[last].length - lastCol - 1);
    places.push({ start, end, column: from, text: body.slice(from, to) });
  }
  return places;
}

/** The line and column of the `k`-th non-whitespace character of the file (0-based). */
function locate(lines: readonly string[], starts: Int32Array, k: number): [number, number] {
  let lo = 0;
  let hi = lines.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= k) lo = mid;
    else hi = mid - 1;
  }
  // Skip lines with no kept character (their start equals the next line's).
  while (lo + 1 < lines.length && starts[lo + 1] <= k) lo++;
  let left = k - starts[lo];
  const line = lines[lo];
  for (let c = 0; c < line.length; c++) {
    if (WS.test(line[c])) continue;
    if (left === 0) return [lo, c];
    left--;
  }
  return [lo, line.length - 1];
}

/** Where two texts first differ. */
export interface CharDifference {
  /** 1-based line and column (UTF-16 units) in old_string. */
  readonly needleLine: number;
  readonly needleColumn: number;
  /** 0-based file line and 1-based column. */
  readonly fileLine: number;
  readonly fileColumn: number;
  /** The differing characters; undefined where that side has ended. */
  readonly needleChar?: string;
  readonly fileChar?: string;
  /**
   * "swap": one character for another; "extra": the file has `fileChar`
   * here and old_string nothing (an inserted U+200B, a combining accent);
   * "missing": old_string has `needleChar` and the file nothing.
   */
  readonly kind: "swap" | "extra" | "missing";
}

/**
 * The first character where `needle` differs from the file text starting at
 * line `start` (0-based). The needle's first line may begin mid-line: it is
 * aligned where it shares the longest prefix with that line (`column` when
 * given). Undefined when the needle is there in full.
 */
export function firstCharDifference(lines: readonly string[], start: number, needle: string, column?: number): CharDifference | undefined {
  return charDifferences(lines, start, needle, column, 1)[0];
}

/** How far ahead a difference is read to tell a swap from an inserted or a dropped character. */
const LOOKAHEAD = 16;

/**
 * Every character where `needle` differs from the file text at line `start`,
 * when it differs only by characters swapped one for one (smart quotes for
 * straight ones, NBSP for spaces), inserted or dropped (a zero-width
 * space, a combining accent), and at most `limit` of them: the whole fix
 * in one message. Otherwise just the first difference. Which of the three a
 * difference is, is read from the texts after it: the reading after which
 * they agree longest (a swap on a tie), so an insertion is not reported as
 * every later character swapped.
 */
export function charDifferences(lines: readonly string[], start: number, needle: string, column?: number, limit = 5): CharDifference[] {
  const first = lines[start] ?? "";
  const head = needle.split("\n", 1)[0];
  const from = column ?? alignHead(first, head);
  let line = start;
  let col = from;
  let nLine = 1;
  let nCol = 0;
  const found: CharDifference[] = [];
  for (let i = 0; i < needle.length; ) {
    const fileText = lines[line];
    // The common case, the same code unit on both sides (no newline, no surrogate pair to read whole), without making strings.
    const unit = needle.charCodeAt(i);
    if (fileText !== undefined && col < fileText.length && unit !== 10 && (unit < 0xd800 || unit > 0xdbff) && fileText.charCodeAt(col) === unit) {
      i++;
      col++;
      nCol++;
      continue;
    }
    const fileCh = fileText === undefined ? undefined : col < fileText.length ? charAt(fileText, col) : line + 1 < lines.length ? "\n" : undefined;
    const needleCh = charAt(needle, i);
    let kind: CharDifference["kind"] = "swap";
    if (fileCh !== needleCh) {
      kind = readDifference(fileText ?? "", col, fileCh, needle, i, needleCh);
      const d = { needleLine: nLine, needleColumn: nCol + 1, fileLine: line, fileColumn: col + 1, kind };
      found.push(
        kind === "extra" ? { ...d, fileChar: fileCh } : kind === "missing" ? { ...d, needleChar: needleCh } : { ...d, needleChar: needleCh, fileChar: fileCh },
      );
      // Only a difference of non-newline characters keeps both texts aligned.
      const aligned = fileCh !== undefined && fileCh !== "\n" && needleCh !== "\n";
      if (found.length > limit || !aligned) return found.slice(0, 1);
      if (kind === "extra") {
        col += fileCh.length;
        continue;
      }
      if (kind === "missing") {
        i += needleCh.length;
        nCol += needleCh.length;
        continue;
      }
      i += needleCh.length;
      col += fileCh.length;
      nCol += needleCh.length;
      continue;
    }
    i += needleCh.length;
    if (needleCh === "\n") {
      line++;
      col = 0;
      nLine++;
      nCol = 0;
    } else {
      col += needleCh.length;
      nCol += needleCh.length;
    }
  }
  return found;
}

/** Swap, extra or missing: the reading after which the line and old_string agree longest (see {@link charDifferences}). */
function readDifference(fileText: string, col: number, fileCh: string | undefined, needle: string, i: number, needleCh: string): CharDifference["kind"] {
  if (fileCh === undefined || fileCh === "\n" || needleCh === "\n") return "swap";
  const swap = agreement(fileText, col + fileCh.length, needle, i + needleCh.length);
  const extra = agreement(fileText, col + fileCh.length, needle, i);
  const missing = agreement(fileText, col, needle, i + needleCh.length);
  if (swap >= extra && swap >= missing) return "swap";
  return extra >= missing ? "extra" : "missing";
}

/** How many characters agree from `col` of the line and `i` of old_string, within its line; reaching old_string's end (or both lines' ends) counts as full. */
function agreement(fileText: string, col: number, needle: string, i: number): number {
  let k = 0;
  while (k < LOOKAHEAD) {
    const n = i + k;
    if (n >= needle.length) return LOOKAHEAD + 1;
    const atLineEnd = needle.charCodeAt(n) === 10;
    if (col + k >= fileText.length) return atLineEnd ? LOOKAHEAD + 1 : k;
    if (atLineEnd || needle.charCodeAt(n) !== fileText.charCodeAt(col + k)) return k;
    k++;
  }
  return k;
}

/**
 * The column of `line` where `head` shares the longest prefix (the earliest
 * on a tie). Z-matching: what is known to match is never compared again, so
 * at most about 2 x (line + head) character comparisons (counted in `work`),
 * where trying `head` at every column costs line x head.
 */
export function alignHead(line: string, head: string, work?: SearchWork): number {
  // No prefix can be longer than the line.
  const m = Math.min(head.length, line.length);
  if (m === 0) return 0;
  let steps = 0;
  // z[i]: how far head[i..] agrees with head (1 <= i < m).
  const z = new Int32Array(m);
  let l = 0;
  let r = 0; // head[l..r) === head[0..r-l)
  for (let i = 1; i < m; i++) {
    let k = i < r ? Math.min(z[i - l], r - i) : 0;
    while (i + k < m && head.charCodeAt(k) === head.charCodeAt(i + k)) {
      k++;
      steps++;
    }
    steps++;
    z[i] = k;
    if (i + k > r) {
      l = i;
      r = i + k;
    }
  }
  let best = 0;
  let bestLength = -1;
  l = 0;
  r = 0; // line[l..r) === head[0..r-l)
  for (let o = 0; o < line.length; o++) {
    let k = o < r ? Math.min(z[o - l], r - o) : 0;
    if (o + k >= r) {
      // Beyond what is known: compare.
      while (k < m && o + k < line.length && line.charCodeAt(o + k) === head.charCodeAt(k)) {
        k++;
        steps++;
      }
      steps++;
      if (o + k > r) {
        l = o;
        r = o + k;
      }
    }
    if (k > bestLength) {
      best = o;
      bestLength = k;
      if (k === head.length) break;
    }
  }
  if (work) work.steps += steps;
  return best;
}

function charAt(text: string, i: number): string {
  const cp = text.codePointAt(i)!;
  return String.fromCodePoint(cp);
}

/** `"“" (U+201C LEFT DOUBLE QUOTATION MARK)`-style naming of a character for the model. */
export function describeChar(ch: string | undefined): string {
  if (ch === undefined) return "nothing (its text ends)";
  const cp = ch.codePointAt(0)!;
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
  const name = NAMES.get(cp);
  return `${JSON.stringify(ch)} (${hex}${name ? ` ${name}` : ""})`;
}

/** Names by code point (a Map: object keys would turn the hex literals into decimal strings). */
const NAMES = new Map<number, string>([
  [0x09, "tab"],
  [0x0a, "line break"],
  [0x20, "space"],
  [0x22, "quotation mark"],
  [0x27, "apostrophe"],
  [0x60, "backtick"],
  [0xa0, "no-break space"],
  [0x200b, "zero-width space"],
  [0x2018, "left single quotation mark"],
  [0x2019, "right single quotation mark"],
  [0x201c, "left double quotation mark"],
  [0x201d, "right double quotation mark"],
  [0x2013, "en dash"],
  [0x2014, "em dash"],
  [0x2212, "minus sign"],
  [0x2026, "ellipsis"],
  [0x301, "combining acute accent"],
  [0x300, "combining grave accent"],
  [0xfeff, "byte-order mark"],
]);
