/**
 * The whitespace-insensitive rung of the ladder: old_string's lines are
 * compared with windows of whole file lines after trimming each line and
 * collapsing whitespace runs. The normalised text is only ever a comparison
 * key: the edit replaces the matched lines with new_string's own lines, with
 * their indentation fitted to the file ({@link fitIndentation}), and leaves
 * everything else alone; an indentation it cannot place is refused, never
 * guessed.
 */

import type { SearchWork } from "./text-find.ts";

// JavaScript's \s and trim() count U+FEFF (the byte-order mark) as whitespace; it is not: a BOM
// pasted into old_string must never match line 1 "ignoring whitespace" and then be written twice.
const EDGE_SPACE = /^[^\S\uFEFF]+|[^\S\uFEFF]+$/g;
const SPACE_RUN = /[^\S\uFEFF]+/g;

/** A line trimmed, with every whitespace run collapsed to one space (U+FEFF is not whitespace). */
export function normalizeWhitespace(line: string): string {
  return line.replace(EDGE_SPACE, "").replace(SPACE_RUN, " ");
}

/** Whitespace as {@link normalizeWhitespace} trims it (U+FEFF is not). */
const SPACE_CHAR = /[^\S\uFEFF]/;

/**
 * 0-based start lines of every window of `lines` whose lines equal `needle`'s
 * lines after {@link normalizeWhitespace}. Empty when the needle has no
 * non-blank line: blank lines alone would match almost anywhere.
 *
 * Knuth-Morris-Pratt over lines: at most about 2 x (file lines + needle
 * lines) line comparisons (counted in `work`), where comparing the needle
 * at every window costs their product (a file of 100k "x" lines and an
 * old_string of 20k "x" lines and a "y" had taken seconds). A file line is
 * read in place the first time it is compared (most are compared once, and
 * most differ in their last or first character), and normalised at most
 * once, kept for the comparisons after a fallback: linear in the file.
 */
export function findWhitespaceInsensitive(lines: readonly string[], needle: readonly string[], work?: SearchWork): number[] {
  const m = needle.length;
  if (lines.length < m) return [];
  const want = needle.map(normalizeWhitespace);
  if (!want.some((line) => line !== "")) return [];

  // fail[i]: length of the longest proper border of want[0..i].
  const fail = new Int32Array(m);
  for (let i = 1, k = 0; i < m; i++) {
    while (k > 0 && want[i] !== want[k]) k = fail[k - 1];
    if (want[i] === want[k]) k++;
    fail[i] = k;
  }
  // A line compared once is read in place; one compared again (a KMP fallback) is normalised once and kept.
  const compared = new Uint8Array(lines.length);
  const cache = new Array<string | undefined>(lines.length);
  let steps = 0;
  const same = (j: number, q: number): boolean => {
    steps++;
    const w = want[q];
    const line = lines[j];
    if (line.length < w.length) return false; // normalising never lengthens a line
    if (compared[j] === 0) {
      compared[j] = 1;
      return sameNormalized(line, w);
    }
    return (cache[j] ??= normalizeWhitespace(line)) === w;
  };
  const starts: number[] = [];
  for (let j = 0, k = 0; j < lines.length; j++) {
    for (;;) {
      if (same(j, k)) {
        k++;
        break;
      }
      if (k === 0) break;
      k = fail[k - 1];
    }
    if (k === m) {
      starts.push(j - m + 1);
      k = fail[m - 1];
    }
  }
  if (work) work.steps += steps;
  return starts;
}

/**
 * `normalizeWhitespace(line) === normalized`, read in place: no string is
 * made, and the first difference ends it. The line's last character past
 * its whitespace is compared first (the start may be deep in indentation).
 */
function sameNormalized(line: string, normalized: string): boolean {
  const n = line.length;
  let end = n;
  while (end > 0 && isSpace(line.charCodeAt(end - 1))) end--;
  if (normalized === "" || end === 0) return normalized === "" && end === 0;
  if (line.charCodeAt(end - 1) !== normalized.charCodeAt(normalized.length - 1)) return false;
  let i = 0;
  while (isSpace(line.charCodeAt(i))) i++;
  let p = 0;
  while (i < end) {
    const c = line.charCodeAt(i);
    if (isSpace(c)) {
      // A run of whitespace inside the text reads as one space.
      while (isSpace(line.charCodeAt(i))) i++;
      if (normalized.charCodeAt(p) !== 0x20) return false;
      p++;
      continue;
    }
    if (normalized.charCodeAt(p) !== c) return false;
    p++;
    i++;
  }
  return p === normalized.length;
}

function isSpace(code: number): boolean {
  if (code < 0x80) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  return SPACE_CHAR.test(String.fromCharCode(code));
}

/** Leading spaces and tabs of a line. */
export function indentOf(line: string): string {
  let i = 0;
  while (i < line.length && (line[i] === " " || line[i] === "\t")) i++;
  return line.slice(0, i);
}

/** Columns a tab counts for when tabs and spaces are compared (levels, not display, are what is mapped). */
const TAB_WIDTH = 4;

function columns(indent: string): number {
  let width = 0;
  for (const ch of indent) width += ch === "\t" ? TAB_WIDTH : 1;
  return width;
}

/** One non-blank line of old_string and the file line it matched: how the model's indentation reads in the file. */
export interface IndentPair {
  readonly model: string;
  readonly file: string;
}

/** What {@link fitIndentation} made of new_string. */
export type IndentFit =
  /** Every line placed: `lines` is new_string's lines in the file's indentation. */
  | { readonly kind: "fitted"; readonly lines: string[] }
  /**
   * Some line's place in the file cannot be told from the pairs: nothing may
   * be written. `lines`: 0-based lines of new_string that could not be placed.
   * `readings`: new_string fitted under each reading the pairs allow, when
   * there are two or more and each places every line (empty when the pairs
   * fit no reading, e.g. one model indentation matched two file depths, or
   * when fewer than two fit in `maxBytes` together).
   */
  | {
      readonly kind: "ambiguous";
      readonly lines: readonly number[];
      readonly readings: readonly (readonly string[])[];
      readonly pairs: readonly IndentPair[];
    }
  /**
   * Placed in the file, new_string's lines would take `bytes` characters
   * (joined by newlines; at least as many bytes), more than
   * {@link FitOptions.maxBytes}: found from the indentation widths, before
   * any line is built (a "\t" per level read as a 1000-space file unit
   * turns 400 KB of tabs into 400 MB of spaces).
   */
  | { readonly kind: "too-large"; readonly bytes: number };

/** Options of {@link fitIndentation}. */
export interface FitOptions {
  /**
   * Most characters new_string's fitted lines may take, joined by newlines
   * (a UTF-16 length, never more than the UTF-8 bytes: a bound on bytes).
   * Default: no bound; a caller with text anyone can send passes one.
   */
  readonly maxBytes?: number;
}

/**
 * Re-indent new_string's lines (`replacement`) to the file. `needle` is
 * old_string's lines and `matched` the file lines they matched (same
 * length); `fileLines` is the whole file (default `matched`), read for its
 * indentation unit and style. Pure.
 *
 * The rule. Each non-blank needle line pairs a model indentation with the
 * file's. A new line whose indentation is exactly a paired one takes that
 * pair's file indentation. Any other line is placed by LEVELS: the model's
 * indentation is `level * modelUnit + rest` (columns, a tab = 4), and goes to
 * the file at `(level + shift) * fileUnit + rest`, in the file's style (tabs
 * or spaces), never below column 0. So column 0 stays column 0 when the pairs
 * show no shift, 2-space levels become 4-space levels, and a model that
 * dropped the outer indentation gets it back.
 *
 * When every pair already agrees (only whitespace inside lines differed),
 * new_string is kept as sent, as on the exact rung.
 *
 * - modelUnit: tabs when the model indents with tabs; else the model's
 *   smallest indentation step (of 2 or more) in old_string or new_string
 *   (a step of 1 is alignment); else, with no step to go by or when that
 *   step fits no pair, every unit (2, 3, 4, 6, 8) dividing its
 *   indentation: a lone "    " may be one level of 4 or two of 2.
 * - fileUnit: tabs in a tab-indented file; else the file's most common
 *   indentation step (of 2 or more); else (the file shows no step) the
 *   model's unit.
 * - shift: the one integer every pair agrees on, for that pair of units;
 *   units for which the pairs agree on none are not a reading.
 *
 * Each reading places each line; a line is written only when every reading
 * puts it in the same place. Otherwise the result is "ambiguous" and the
 * caller writes nothing: 4 spaces matched to 8 with a new line at column 0
 * may be scale (column 0) or a dropped level (4 spaces), and guessing would
 * be a silent wrong write. Blank lines and line content are kept exactly.
 *
 * Size. Where each line goes is worked out in numbers first; when the lines
 * would take more than `options.maxBytes`, the result is "too-large" and no
 * line is built. In an "ambiguous" result the readings together stay within
 * it too (one that does not fit is left out).
 */
export function fitIndentation(
  needle: readonly string[],
  matched: readonly string[],
  replacement: readonly string[],
  fileLines: readonly string[] = matched,
  options: FitOptions = {},
): IndentFit {
  const pairs: IndentPair[] = [];
  const seenPairs = new Set<string>();
  // A model indentation read as two different file indentations maps to null: no exact answer for it.
  const direct = new Map<string, string | null>();
  let identical = true;
  for (let i = 0; i < needle.length; i++) {
    if (needle[i].trim() === "") continue;
    const model = indentOf(needle[i]);
    const file = indentOf(matched[i]);
    if (model !== file) identical = false;
    const seen = direct.get(model);
    if (seen === undefined) direct.set(model, file);
    else if (seen !== null && seen !== file) direct.set(model, null);
    if (!seenPairs.has(`${model}|${file}`)) {
      seenPairs.add(`${model}|${file}`);
      pairs.push({ model, file });
    }
  }
  if (identical || pairs.length === 0) return { kind: "fitted", lines: replacement.slice() };

  const budget = options.maxBytes ?? Number.POSITIVE_INFINITY;
  let readings: Reading[] | undefined; // made only when a line needs them
  // Each line's place, as data: undefined (blank, kept), the exact file indentation, a column every reading agrees on, or null (in doubt).
  const plan = new Array<string | number | null | undefined>(replacement.length);
  const unsure: number[] = [];
  // The size of the lines placed (an unsure one at its smallest reading): past the budget under every reading.
  let size = Math.max(0, replacement.length - 1);
  for (let i = 0; i < replacement.length; i++) {
    const line = replacement[i];
    if (line.trim() === "") {
      size += line.length;
      continue;
    }
    const indent = indentOf(line);
    const text = line.length - indent.length;
    const exact = direct.get(indent);
    if (typeof exact === "string") {
      plan[i] = exact;
      size += exact.length + text;
      continue;
    }
    readings ??= readingsOf(pairs, needle, replacement, matched, fileLines);
    const width = columns(indent);
    const places = [...new Set(readings.map((r) => placedColumn(r, width)))];
    if (places.length === 1) {
      plan[i] = places[0];
      size += indentLength(readings[0], places[0]) + text;
    } else {
      plan[i] = null;
      unsure.push(i);
      size += (places.length === 0 ? indent.length : Math.min(...places.map((to) => indentLength(readings![0], to)))) + text;
    }
  }
  if (size > budget) return { kind: "too-large", bytes: size };

  if (unsure.length === 0) {
    const style = readings?.[0];
    const fitted = replacement.map((line, i) => {
      const at = plan[i];
      if (at === undefined || at === null) return line;
      return (typeof at === "string" ? at : indentText(style!, at)) + line.slice(indentOf(line).length);
    });
    return { kind: "fitted", lines: fitted };
  }

  // Whole alternatives, one per reading, when every reading places every line; together within the budget.
  let left = budget;
  const whole: string[][] = [];
  for (const r of readings ?? []) {
    const cost = fittedSize(r, direct, replacement);
    if (cost > left) continue;
    const lines = fitWith(r, direct, replacement);
    if (whole.some((w) => sameLines(w, lines))) continue;
    left -= cost;
    whole.push(lines);
  }
  return { kind: "ambiguous", lines: unsure, readings: whole.length >= 2 ? whole : [], pairs };
}

/** One way the model's indentation may read in the file (see {@link fitIndentation}). */
interface Reading {
  readonly modelUnit: number;
  readonly fileUnit: number;
  readonly shift: number;
  readonly tabs: boolean;
}

/** The column where `reading` puts a model indentation `width` columns wide. */
function placedColumn(reading: Reading, width: number): number {
  const level = Math.floor(width / reading.modelUnit);
  const rest = width % reading.modelUnit;
  return Math.max(0, level + reading.shift) * reading.fileUnit + rest;
}

/** Characters of the indentation reaching column `to` in the reading's style. */
function indentLength(reading: Reading, to: number): number {
  return reading.tabs ? Math.floor(to / TAB_WIDTH) + (to % TAB_WIDTH) : to;
}

/** The indentation reaching column `to` in the reading's style (its size checked first: see {@link indentLength}). */
function indentText(reading: Reading, to: number): string {
  return reading.tabs ? "\t".repeat(Math.floor(to / TAB_WIDTH)) + " ".repeat(to % TAB_WIDTH) : " ".repeat(to);
}

/** Where `reading` puts a model indentation in the file. */
function place(reading: Reading, indent: string): string {
  return indentText(reading, placedColumn(reading, columns(indent)));
}

/** The characters {@link fitWith} would make, newlines between lines included, without making them. */
function fittedSize(reading: Reading, direct: ReadonlyMap<string, string | null>, replacement: readonly string[]): number {
  let size = Math.max(0, replacement.length - 1);
  for (const line of replacement) {
    if (line.trim() === "") {
      size += line.length;
      continue;
    }
    const indent = indentOf(line);
    const exact = direct.get(indent);
    size += (typeof exact === "string" ? exact.length : indentLength(reading, placedColumn(reading, columns(indent)))) + line.length - indent.length;
  }
  return size;
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}

function fitWith(reading: Reading, direct: ReadonlyMap<string, string | null>, replacement: readonly string[]): string[] {
  return replacement.map((line) => {
    if (line.trim() === "") return line;
    const indent = indentOf(line);
    const exact = direct.get(indent);
    return (typeof exact === "string" ? exact : place(reading, indent)) + line.slice(indent.length);
  });
}

/** Every reading the pairs allow (see {@link fitIndentation}); the same placement twice is kept once. */
function readingsOf(
  pairs: readonly IndentPair[],
  needle: readonly string[],
  replacement: readonly string[],
  matched: readonly string[],
  fileLines: readonly string[],
): Reading[] {
  const file = fileStyleOf(matched, fileLines);
  const model = modelUnitsOf(needle, replacement);
  const out = readingsFor(pairs, model.units, file);
  // The model's step may be alignment rather than a level: then its indentation's divisors are tried.
  return out.length > 0 || model.fallback === undefined ? out : readingsFor(pairs, model.fallback, file);
}

function readingsFor(pairs: readonly IndentPair[], modelUnits: readonly number[], file: { tabs: boolean; units: readonly number[] }): Reading[] {
  const out: Reading[] = [];
  for (const modelUnit of modelUnits) {
    for (const fileUnit of file.units.length > 0 ? file.units : [modelUnit]) {
      const shift = agreedShift(pairs, modelUnit, fileUnit);
      if (shift !== undefined) out.push({ modelUnit, fileUnit, shift, tabs: file.tabs });
    }
  }
  return out;
}

/** The shift every pair agrees on for these units, or undefined. */
function agreedShift(pairs: readonly IndentPair[], modelUnit: number, fileUnit: number): number | undefined {
  let shift: number | undefined;
  for (const { model, file } of pairs) {
    const width = columns(model);
    const rest = width % modelUnit;
    const base = columns(file) - rest;
    if (base < 0 || base % fileUnit !== 0) return undefined;
    const s = base / fileUnit - Math.floor(width / modelUnit);
    if (shift === undefined) shift = s;
    else if (s !== shift) return undefined;
  }
  return shift;
}

/** The units the model's own text allows (in columns), and those to try when none of them fits the pairs. */
function modelUnitsOf(needle: readonly string[], replacement: readonly string[]): { units: number[]; fallback?: number[] } {
  const all = [...needle, ...replacement].filter((l) => l.trim() !== "");
  if (all.some((l) => indentOf(l).includes("\t"))) return { units: [TAB_WIDTH] };
  const dividing = unitsDividing(all.map((l) => columns(indentOf(l))));
  // A step of 1 is alignment (" * " under "/**"), not a level.
  const steps = [...stepsOf(needle), ...stepsOf(replacement)].filter((s) => s >= 2);
  return steps.length > 0 ? { units: [Math.min(...steps)], fallback: dividing } : { units: dividing };
}

/** The file's indentation style and the units it allows (in columns; empty: the file shows none). */
function fileStyleOf(matched: readonly string[], fileLines: readonly string[]): { tabs: boolean; units: number[] } {
  const [mt, ms] = leadCounts(matched);
  let tabs: boolean;
  if (mt > 0 && ms === 0) tabs = true;
  else if (ms > 0 && mt === 0) tabs = false;
  else {
    const [ft, fs] = leadCounts(fileLines);
    tabs = ft > fs;
  }
  if (tabs) return { tabs, units: [TAB_WIDTH] };
  const counts = new Map<number, number>();
  for (const s of stepsOf(fileLines)) if (s >= 2) counts.set(s, (counts.get(s) ?? 0) + 1);
  if (counts.size > 0) {
    let best = 0;
    let most = 0;
    for (const [step, n] of counts) if (n > most || (n === most && step < best)) [best, most] = [step, n];
    return { tabs, units: [best] };
  }
  return { tabs, units: [] };
}

/** How many non-blank lines start with a tab, and how many with a space. */
function leadCounts(lines: readonly string[]): [number, number] {
  let t = 0;
  let s = 0;
  for (const line of lines) {
    if (line.trim() === "") continue;
    if (line[0] === "\t") t++;
    else if (line[0] === " ") s++;
  }
  return [t, s];
}

/** Increases of indentation (columns) from one non-blank line to the next. */
function stepsOf(lines: readonly string[]): number[] {
  const steps: number[] = [];
  let previous: number | undefined;
  for (const line of lines) {
    if (line.trim() === "") continue;
    const width = columns(indentOf(line));
    if (previous !== undefined && width > previous) steps.push(width - previous);
    previous = width;
  }
  return steps;
}

/** The usual units (2, 3, 4, 6, 8) that divide every width; the widths' common divisor when none does (1 when all are 0). */
function unitsDividing(widths: readonly number[]): number[] {
  let g = 0;
  for (const w of widths) g = gcd(g, w);
  if (g === 0) return [1];
  const units = [2, 3, 4, 6, 8].filter((u) => g % u === 0);
  return units.length > 0 ? units : [g];
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}
