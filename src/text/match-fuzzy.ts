/**
 * The whitespace-insensitive rung of the ladder: old_string's lines are
 * compared with windows of whole file lines after trimming each line and
 * collapsing whitespace runs. The normalised text is only ever a comparison
 * key: the edit replaces the matched lines with new_string's own lines, with
 * their indentation fitted to the file ({@link fitIndentation}), and leaves
 * everything else alone; an indentation it cannot place is refused, never
 * guessed.
 */

// JavaScript's \s and trim() count U+FEFF (the byte-order mark) as whitespace; it is not: a BOM
// pasted into old_string must never match line 1 "ignoring whitespace" and then be written twice.
const EDGE_SPACE = /^[^\S\uFEFF]+|[^\S\uFEFF]+$/g;
const SPACE_RUN = /[^\S\uFEFF]+/g;

/** A line trimmed, with every whitespace run collapsed to one space (U+FEFF is not whitespace). */
export function normalizeWhitespace(line: string): string {
  return line.replace(EDGE_SPACE, "").replace(SPACE_RUN, " ");
}

/**
 * 0-based start lines of every window of `lines` whose lines equal `needle`'s
 * lines after {@link normalizeWhitespace}. Empty when the needle has no
 * non-blank line: blank lines alone would match almost anywhere.
 */
export function findWhitespaceInsensitive(lines: readonly string[], needle: readonly string[]): number[] {
  const want = needle.map(normalizeWhitespace);
  const anchor = want.findIndex((line) => line !== "");
  const windows = lines.length - needle.length + 1;
  if (anchor === -1 || windows <= 0) return [];

  const cache = new Array<string | undefined>(lines.length);
  const normalized = (j: number): string => (cache[j] ??= normalizeWhitespace(lines[j]));
  // Cheap reject before normalising: a line containing the anchor's longest
  // word is the only kind that can normalise to the anchor.
  const probe = longestWord(want[anchor]);
  const starts: number[] = [];
  for (let s = 0; s < windows; s++) {
    const j = s + anchor;
    if (!lines[j].includes(probe) || normalized(j) !== want[anchor]) continue;
    let all = true;
    for (let i = 0; i < want.length && all; i++) {
      if (i !== anchor && normalized(s + i) !== want[i]) all = false;
    }
    if (all) starts.push(s);
  }
  return starts;
}

function longestWord(normalized: string): string {
  let best = "";
  for (const word of normalized.split(" ")) if (word.length > best.length) best = word;
  return best;
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
   * fit no reading, e.g. one model indentation matched two file depths).
   */
  | {
      readonly kind: "ambiguous";
      readonly lines: readonly number[];
      readonly readings: readonly (readonly string[])[];
      readonly pairs: readonly IndentPair[];
    };

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
 */
export function fitIndentation(
  needle: readonly string[],
  matched: readonly string[],
  replacement: readonly string[],
  fileLines: readonly string[] = matched,
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

  let readings: Reading[] | undefined; // made only when a line needs them
  const fitted: string[] = [];
  const unsure: number[] = [];
  replacement.forEach((line, i) => {
    if (line.trim() === "") {
      fitted.push(line);
      return;
    }
    const indent = indentOf(line);
    const exact = direct.get(indent);
    if (typeof exact === "string") {
      fitted.push(exact + line.slice(indent.length));
      return;
    }
    readings ??= readingsOf(pairs, needle, replacement, matched, fileLines);
    const places = new Set(readings.map((r) => place(r, indent)));
    if (places.size === 1) fitted.push([...places][0] + line.slice(indent.length));
    else {
      unsure.push(i);
      fitted.push(line);
    }
  });
  if (unsure.length === 0) return { kind: "fitted", lines: fitted };

  // Whole alternatives, one per reading, when every reading places every line.
  const all = readings ?? [];
  const whole = all.map((r) => fitWith(r, direct, replacement));
  const distinct = new Map(whole.map((lines) => [lines.join("\n"), lines]));
  return { kind: "ambiguous", lines: unsure, readings: distinct.size >= 2 ? [...distinct.values()] : [], pairs };
}

/** One way the model's indentation may read in the file (see {@link fitIndentation}). */
interface Reading {
  readonly modelUnit: number;
  readonly fileUnit: number;
  readonly shift: number;
  readonly tabs: boolean;
}

/** Where `reading` puts a model indentation in the file. */
function place(reading: Reading, indent: string): string {
  const width = columns(indent);
  const level = Math.floor(width / reading.modelUnit);
  const rest = width % reading.modelUnit;
  const to = Math.max(0, level + reading.shift) * reading.fileUnit + rest;
  return reading.tabs ? "\t".repeat(Math.floor(to / TAB_WIDTH)) + " ".repeat(to % TAB_WIDTH) : " ".repeat(to);
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
