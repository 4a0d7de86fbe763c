/**
 * An old_string that is in the file except for characters that look alike
 * or do not show: typographic punctuation either way (“ ” ‘ ’ — – … NBSP
 * for " ' - ... and a space, and the reverse), Unicode normalisation (NFD
 * "e" + U+0301 for NFC "é", and the reverse) and invisible characters
 * (U+200B and kin, in either text). Both texts are folded to one spelling
 * as a comparison key only; when the folded old_string occurs at exactly
 * one place of the folded file, the edit is offered with old_string as the
 * file has it there, never applied unasked. Pure; linear in the file.
 */

import { findAllOccurrences } from "./match-overlap.ts";
import { allIndexesOfText, compileText } from "./text-find.ts";

const INVISIBLE = /[\u00ad\u180e\u200b-\u200f\u2060\ufeff]/;
const DASH = /[-\u2010-\u2015\u2212]/;
const MARK = /\p{M}/u;
/** Typographic characters and the plain one each folds to (dashes and "…" are folded by rule). */
const PLAIN: Record<string, string> = {
  "\u2018": "'",
  "\u2019": "'",
  "\u201a": "'",
  "\u201b": "'",
  "\u2032": "'",
  "\u201c": '"',
  "\u201d": '"',
  "\u201e": '"',
  "\u201f": '"',
  "\u2033": '"',
  "\u00a0": " ",
  "\u2002": " ",
  "\u2003": " ",
  "\u2009": " ",
  "\u202f": " ",
};

/** A text folded, with where each folded unit came from: `from[j]`..`to[j]` in the text. */
interface Folded {
  readonly text: string;
  readonly from: number[];
  readonly to: number[];
}

/**
 * One line folded: a run of dashes (ASCII "--" too) is one "-", "…" is
 * "...", invisible characters are dropped, a character with its combining
 * marks is NFC with its typographic characters made plain.
 */
function foldLine(line: string, maps: boolean): Folded {
  if (!/[^\x00-\x2c\x2e-\x7f]|--/.test(line)) return { text: line, from: maps ? range(line.length) : [], to: maps ? range(line.length, 1) : [] };
  let text = "";
  const from: number[] = [];
  const to: number[] = [];
  const emit = (out: string, a: number, b: number) => {
    text += out;
    if (!maps) return;
    for (let k = 0; k < out.length; k++) {
      from.push(a);
      to.push(b);
    }
  };
  for (let i = 0; i < line.length; ) {
    const cp = line.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    let j = i + ch.length;
    if (DASH.test(ch)) {
      while (j < line.length && DASH.test(line[j])) j++;
      emit("-", i, j);
    } else if (ch === "\u2026") {
      emit("...", i, j);
    } else if (INVISIBLE.test(ch)) {
      // Nothing: an invisible character is matched as if it were not there.
    } else {
      while (j < line.length && MARK.test(String.fromCodePoint(line.codePointAt(j)!))) j += line.codePointAt(j)! > 0xffff ? 2 : 1;
      const cluster = line.slice(i, j).normalize("NFC");
      emit([...cluster].map((c) => PLAIN[c] ?? c).join(""), i, j);
    }
    i = j;
  }
  return { text, from, to };
}

function range(n: number, shift = 0): number[] {
  return Array.from({ length: n }, (_, i) => i + shift);
}

function foldText(text: string): string {
  return text
    .split("\n")
    .map((line) => foldLine(line, false).text)
    .join("\n");
}

/** The offered edit: old_string as the file has it, new_string with the file's characters where it repeats old_string. */
export interface LookAlikeEdit {
  readonly oldString: string;
  readonly newString: string;
  /** 0-based line where it starts. */
  readonly line: number;
  /** What differed, for the message: e.g. "typographic punctuation", "Unicode normalisation (NFC/NFD)". */
  readonly kinds: readonly string[];
}

/**
 * The edit old_string meant when it differs from exactly one place of the
 * file only by look-alike or invisible characters (see the module
 * comment), or undefined. `needle` is old_string as compared (LF lines).
 */
export function lookAlikeEdit(lines: readonly string[], needle: string, newString: string): LookAlikeEdit | undefined {
  const want = foldText(needle);
  if (want.replace(/\s/g, "") === "") return undefined;
  const folded = lines.map((line) => foldLine(line, false).text);
  const flat = folded.join("\n");
  const at = allIndexesOfText(flat, compileText(want), 2);
  if (at.length !== 1) return undefined;
  const start = locate(folded, at[0]);
  const end = locate(folded, at[0] + want.length - 1);
  const startMap = foldLine(lines[start.line], true);
  const endMap = end.line === start.line ? startMap : foldLine(lines[end.line], true);
  const fromCol = startMap.from[start.col];
  const toCol = endMap.to[end.col];
  const oldString =
    start.line === end.line
      ? lines[start.line].slice(fromCol, toCol)
      : [lines[start.line].slice(fromCol), ...lines.slice(start.line + 1, end.line), lines[end.line].slice(0, toCol)].join("\n");
  if (oldString === needle || findAllOccurrences(lines, oldString, 2).length !== 1) return undefined;
  const fixed = keepFileCharacters(needle, oldString, newString);
  if (fixed === undefined || fixed === oldString) return undefined;
  return { oldString, newString: fixed, line: start.line, kinds: kindsOf(needle, oldString) };
}

/** Line and column of the folded file's `k`-th unit (lines joined by "\n"). */
function locate(folded: readonly string[], k: number): { line: number; col: number } {
  let left = k;
  for (let line = 0; line < folded.length; line++) {
    if (left < folded[line].length) return { line, col: left };
    left -= folded[line].length + 1;
  }
  return { line: folded.length - 1, col: Math.max(0, folded[folded.length - 1].length - 1) };
}

/**
 * new_string with the file's own text (`old`) where it repeats old_string
 * as sent (`needle`) at its start and end; the part the model changed is
 * kept as sent, made plain where the file's text there is plain ASCII and
 * decomposed where it is NFD, so the edit does not change the file's style
 * of the text around it. Undefined when the two cannot be aligned.
 */
function keepFileCharacters(needle: string, old: string, newString: string): string | undefined {
  const n = foldAligned(needle);
  const o = foldAligned(old);
  if (n.text !== o.text) return undefined;
  let p = 0;
  while (p < needle.length && p < newString.length && needle[p] === newString[p]) p++;
  let s = 0;
  while (s < needle.length - p && s < newString.length - p && needle[needle.length - 1 - s] === newString[newString.length - 1 - s]) s++;
  // Boundaries both texts share, in folded units: a segment start in each at the same folded place.
  const head = shared(n.starts, o.starts, p, "down");
  const tail = shared(n.starts, o.starts, needle.length - s, "up");
  if (head === undefined || tail === undefined || head.needle > tail.needle || head.old > tail.old) return undefined;
  let middle = newString.slice(head.needle, newString.length - (needle.length - tail.needle));
  if (!/[^\x00-\x7f]/.test(old)) middle = foldText(middle);
  else if (old === old.normalize("NFD") && old !== old.normalize("NFC")) middle = middle.normalize("NFD");
  return old.slice(0, head.old) + middle + old.slice(tail.old);
}

/** The whole text folded (lines with "\n"), and for each folded index where a segment starts, the text index. */
function foldAligned(text: string): { text: string; starts: Map<number, number[]> } {
  const starts = new Map<number, number[]>();
  const add = (f: number, at: number) => {
    const list = starts.get(f);
    if (list) list.push(at);
    else starts.set(f, [at]);
  };
  let out = "";
  let offset = 0;
  for (const line of text.split("\n")) {
    const f = foldLine(line, true);
    for (let j = 0; j < f.text.length; j++) if (j === 0 || f.from[j] !== f.from[j - 1]) add(out.length + j, offset + f.from[j]);
    out += f.text;
    add(out.length, offset + line.length);
    out += "\n";
    offset += line.length + 1;
  }
  return { text: out.slice(0, -1), starts };
}

/** The boundary nearest `at` in the needle (at or before it: "down"; at or after: "up") that the file's text has at the same folded place. */
function shared(needle: Map<number, number[]>, old: Map<number, number[]>, at: number, way: "down" | "up"): { needle: number; old: number } | undefined {
  const candidates: { f: number; pos: number }[] = [];
  for (const [f, list] of needle) for (const pos of list) candidates.push({ f, pos });
  candidates.sort((a, b) => (way === "down" ? b.pos - a.pos : a.pos - b.pos));
  for (const { f, pos } of candidates) {
    if (way === "down" ? pos > at : pos < at) continue;
    const there = old.get(f);
    if (there) return { needle: pos, old: way === "down" ? there[there.length - 1] : there[0] };
  }
  return undefined;
}

/** What kinds of look-alike difference there are between what was sent and the file's text. */
function kindsOf(needle: string, old: string): string[] {
  const kinds: string[] = [];
  const typographic = (t: string) => [...t].some((c) => c in PLAIN || c === "\u2026" || (DASH.test(c) && c !== "-")) || /--/.test(t);
  if (typographic(needle) || typographic(old)) kinds.push("typographic punctuation (curly quotes, dashes, ellipsis, no-break spaces)");
  const hidden = [...new Set([...needle, ...old].filter((c) => INVISIBLE.test(c)))];
  if (hidden.length > 0)
    kinds.push(`invisible characters (${hidden.map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`).join(", ")})`);
  if (needle.normalize("NFC") !== needle || old.normalize("NFC") !== old) {
    kinds.push("Unicode normalisation (an accented letter as one character, NFC, or as a letter and a combining mark, NFD)");
  }
  return kinds;
}
