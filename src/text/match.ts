/**
 * The string-replacement ladder behind the `edit` tool: exact ->
 * escaped-literal recovery -> whitespace-insensitive whole-line match ->
 * diagnostics. Pure: lines in, structured result out; the tool layer writes
 * the model-facing wording and splices the result into the file with the
 * original terminators.
 *
 * Input lines are line contents without terminators. old_string and
 * new_string have "\r\n" read as "\n" first: a line's content never ends in
 * "\r" (it belongs to the terminator), so a CRLF in old_string could never
 * match, and new lines get the file's own terminators from the tool anyway.
 *
 * Replacement is by index (slices and concatenation), never
 * `String.prototype.replace`, so `$&`, `$1`, `$$` in new_string stay literal.
 */

import { formatHash, lineHash } from "../hash/fnv.ts";
import { applyLineEdits, editsChangeNothing, type LineEdit, spanLines, spansToLineEdits, type TextSpan, textToLines } from "./line-edits.ts";
import { escapePlaces, interpretEscapes, shouldInterpretNewString } from "./match-escapes.ts";
import { findWhitespaceInsensitive, fitIndentation, type IndentPair } from "./match-fuzzy.ts";
import { anyOverlap, countAllOccurrences, countLeftToRight, findAllOccurrences, leftToRight } from "./match-overlap.ts";
import { findWhitespaceOnly, type WhitespacePlace } from "./near-match.ts";
import { closestWindows, type WindowCandidate } from "./similarity.ts";

/** Which rung of the ladder found the match. */
export type MatchStrategy = "exact" | "escaped" | "fuzzy";

/** Options of {@link findMatch} and {@link applyStringEdit}. */
export interface MatchOptions {
  /** Replace every exact (or escaped) match instead of requiring exactly one. */
  readonly replaceAll?: boolean;
  /**
   * The file size limit, in bytes. Where the ladder itself makes new_string
   * longer (indentation fitted to a wider file unit, a continuation's lines
   * given the line's indentation), the size is worked out before anything
   * is built, and an edit past this limit is {@link EditTooLarge}. Sizes are
   * counted in UTF-16 units, never more than the UTF-8 bytes, so the check
   * never refuses an edit that fits. Default: no limit.
   */
  readonly maxBytes?: number;
}

/** A line as the model addresses it: 1-based number and id text `N:hh`. */
export interface LineRef {
  readonly line: number;
  readonly id: string;
  /** 1-based column of the match, when another listed match starts on the same line (overlapping ones do). */
  readonly column?: number;
}

/** A range of whole lines, 0-based, `end` exclusive. */
export interface LineRange {
  readonly start: number;
  readonly end: number;
}

/** Most matches listed by line id; the rest are only counted. */
export const MAX_LISTED_MATCHES = 50;
/**
 * Most occurrences one replace_all replaces. Each is a few objects while the
 * edit is built (~300 bytes): a 4 MB file of one repeated character took
 * the server to 1.4 GB. Past it the call is refused before anything is built.
 */
export const MAX_REPLACE_ALL = 100_000;

function tooManyToReplace(total: number, replaced: number): MatchInvalid {
  const n = (x: number) => x.toLocaleString("en-US");
  return {
    kind: "invalid",
    message:
      `replace_all would replace ${n(replaced)} occurrences of old_string${total !== replaced ? ` (${n(total)} counting overlapping ones)` : ""}, ` +
      `over the ${n(MAX_REPLACE_ALL)} one call may replace, so nothing was written. Use a longer old_string that names fewer places ` +
      `(and send several calls if you need them all), or rewrite the file's content with write`,
  };
}

/** Where old_string is (the ladder succeeded). */
export interface MatchFound {
  readonly kind: "found";
  readonly strategy: MatchStrategy;
  /** What was searched for: old_string with "\r\n" read as "\n" (and, for "escaped", its escapes read). */
  readonly needle: string;
  /** The lines each match touches, in file order. Exactly one for "fuzzy". */
  readonly ranges: readonly LineRange[];
  /** For "exact"/"escaped": each match as a text span; empty for "fuzzy". */
  readonly spans: readonly TextSpan[];
  /** replace_all only: old_string's occurrences overlap, so only these non-overlapping ones (left to right) of `total` are in `spans`. */
  readonly overlapped?: { readonly total: number; readonly first: number };
}

/**
 * Several matches and no licence to pick: "exact"/"escaped" without
 * replaceAll, or any "fuzzy" (a whitespace-insensitive match is applied
 * only when unique, so replaceAll does not resolve a fuzzy ambiguity).
 */
export interface MatchAmbiguous {
  readonly kind: "ambiguous";
  readonly strategy: MatchStrategy;
  /** How many matches there are. */
  readonly total: number;
  /** The first line of each match, at most {@link MAX_LISTED_MATCHES}. */
  readonly matches: readonly LineRef[];
  /** Some matches overlap: how many replace_all would replace (the non-overlapping ones, left to right). */
  readonly nonOverlapping?: number;
}

/** old_string is nowhere, even ignoring whitespace line by line: the closest windows instead. */
export interface MatchMissing {
  readonly kind: "no-match";
  /** Best first, up to 3, each at least 25% similar; may be empty. */
  readonly candidates: readonly WindowCandidate[];
  /**
   * Places where old_string is when all whitespace is ignored, even inside
   * lines (in file order, up to 3): what the model meant, before any merely
   * similar window.
   */
  readonly whitespacePlaces: readonly WhitespacePlace[];
  /** old_string as compared (an over-escaped one-line old_string with its escapes read). */
  readonly needle: string;
}

/** The arguments cannot describe an edit (empty old_string). */
export interface MatchInvalid {
  readonly kind: "invalid";
  readonly message: string;
}

/** What {@link findMatch} returns. */
export type MatchResult = MatchFound | MatchAmbiguous | MatchMissing | MatchInvalid;

/** The edit was found and changes the file. */
export interface EditApplied {
  readonly kind: "ok";
  readonly strategy: MatchStrategy;
  /** Sorted, non-overlapping whole-line edits in old-file coordinates. */
  readonly edits: readonly LineEdit[];
  /** The whole file afterwards (line contents; `spliceLineEdits` may still drop an empty unterminated last line). */
  readonly lines: string[];
  /** How many occurrences were replaced. */
  readonly replacements: number;
  /** The first line of each replaced match in the OLD file, at most {@link MAX_LISTED_MATCHES}. */
  readonly matches: readonly LineRef[];
  /** For "escaped" and "fuzzy": a sentence telling the model what was interpreted. */
  readonly hint?: string;
  /** For "escaped": new_string's literal escapes were read too (see `shouldInterpretNewString`). */
  readonly newStringInterpreted: boolean;
}

/** The edit would not change the file. */
export interface EditNoChange {
  readonly kind: "no-change";
  /** "same-strings": old_string equals new_string; "same-result": the replacement leaves the file as it was. */
  readonly reason: "same-strings" | "same-result";
}

/**
 * old_string matched only with its escapes read, and new_string has escapes
 * inside quoted literals too: reading them would turn an intended "\t" or
 * "\n" in a string literal into a real tab or newline, keeping them would
 * guess the other way. Nothing is applied; the tool offers the corrected call.
 */
export interface EscapeAmbiguous {
  readonly kind: "escape-ambiguous";
  /** old_string as it matched (its escapes read). */
  readonly oldRead: string;
  /** new_string with the escapes outside quoted literals read and those inside kept. */
  readonly newCorrected: string;
  /** How many escapes sit inside quoted literals. */
  readonly inside: number;
}

/**
 * old_string matched one place ignoring whitespace, but new_string's
 * indentation cannot be placed in the file without guessing (see
 * `fitIndentation`): nothing is applied. The tool shows the matched lines
 * and, when the pairs allow a few readings, each as a call ready to send.
 */
export interface IndentAmbiguous {
  readonly kind: "indent-ambiguous";
  /** The lines old_string matched. */
  readonly range: LineRange;
  /** new_string's lines as sent ("\r\n" read as "\n"). */
  readonly newLines: readonly string[];
  /** 0-based lines of new_string that could not be placed. */
  readonly unsure: readonly number[];
  /** Each reading as the edit it would make (two or more), or none when the pairs fit no reading. */
  readonly readings: readonly LineEdit[];
  /** How old_string's indentation read in the file, line by line (distinct pairs). */
  readonly pairs: readonly IndentPair[];
}

/**
 * A one-line old_string found right where a line's indentation ends (the
 * model left the indentation out), and a new_string of several lines: its
 * later lines may be written relative to old_string's column (each then
 * needs the line's indentation) or as they are. Both are plausible, and
 * one of them breaks indentation-sensitive code, so neither is guessed.
 */
export interface ContinuationAmbiguous {
  readonly kind: "continuation-ambiguous";
  /** 0-based line of the first such place. */
  readonly line: number;
  /** That line's indentation. */
  readonly indent: string;
  /** The edit as written and the edit with the indentation added, when there is one place. */
  readonly readings: readonly LineEdit[];
}

/**
 * new_string's indentation, fitted to the file (see `fitIndentation`), would
 * make the file larger than {@link MatchOptions.maxBytes}: found from the
 * indentation widths, before any line was built; nothing is applied.
 */
export interface EditTooLarge {
  readonly kind: "too-large";
  /** At least this many bytes the file would have. */
  readonly bytes: number;
  /** The lines old_string matched (ignoring whitespace). */
  readonly range: LineRange;
}

/** What {@link applyStringEdit} returns. */
export type StringEditResult =
  | EditApplied
  | EditNoChange
  | MatchAmbiguous
  | MatchMissing
  | MatchInvalid
  | EscapeAmbiguous
  | IndentAmbiguous
  | ContinuationAmbiguous
  | EditTooLarge;

/** Find old_string in `lines` with the ladder (see the module comment). */
export function findMatch(lines: readonly string[], oldString: string, options: MatchOptions = {}): MatchResult {
  return locate(lines, crlfToLf(oldString), options.replaceAll ?? false);
}

/**
 * Replace old_string with new_string in `lines` using the ladder. On success
 * returns whole-line edits and the resulting lines; otherwise why not, as
 * data. The tool writes `spliceLineEdits(doc, result.edits)` (original
 * terminators kept) and shows `diffFromEdits(doc.lines, out.lines, out.edits)`.
 */
export function applyStringEdit(lines: readonly string[], oldString: string, newString: string, options: MatchOptions = {}): StringEditResult {
  const oldText = crlfToLf(oldString);
  const newText = crlfToLf(newString);
  if (oldText === "") return invalidEmpty();
  if (oldText === newText) return { kind: "no-change", reason: "same-strings" };

  const found = locate(lines, oldText, options.replaceAll ?? false);
  if (found.kind !== "found") return found;

  let edits: LineEdit[];
  let newStringInterpreted = false;
  let hint: string | undefined;
  if (found.strategy === "fuzzy") {
    const { start, end } = found.ranges[0];
    const newLines = textToLines(newText);
    // The budget of the new lines: the limit less the rest of the file.
    const outside = options.maxBytes === undefined ? 0 : sizeOutside(lines, start, end);
    const maxBytes = options.maxBytes === undefined ? undefined : options.maxBytes - outside;
    const fit = fitIndentation(textToLines(oldText), lines.slice(start, end), newLines, lines, { maxBytes });
    if (fit.kind === "too-large") return { kind: "too-large", bytes: outside + fit.bytes, range: { start, end } };
    if (fit.kind === "ambiguous") {
      const readings = fit.readings.map((r) => ({ start, end, lines: r.slice() }));
      return { kind: "indent-ambiguous", range: { start, end }, newLines, unsure: fit.lines, readings, pairs: fit.pairs };
    }
    edits = [{ start, end, lines: fit.lines }];
    hint =
      `old_string had no exact match; it matched ${end - start === 1 ? `line ${end}` : `lines ${start + 1}-${end}`} when whitespace is ignored. ` +
      `Only those lines were replaced, with new_string's indentation fitted to the file.`;
  } else if (found.strategy === "escaped") {
    newStringInterpreted = shouldInterpretNewString(newText);
    if (newStringInterpreted) {
      // Only an unambiguous reading is applied: an escape inside a quoted literal may well be meant.
      const places = escapePlaces(newText);
      if (places.inside > 0) {
        return { kind: "escape-ambiguous", oldRead: found.needle, newCorrected: places.outsideRead, inside: places.inside };
      }
    }
    const replacement = newStringInterpreted ? interpretEscapes(newText) : newText;
    const doubt = continuationDoubt(lines, found.spans, found.needle, replacement, options.maxBytes);
    if (doubt) return doubt;
    edits = spansToLineEdits(lines, found.spans, replacement);
    hint =
      `old_string had no exact match; it matched after reading its literal \\n / \\t as real newlines / tabs` +
      `${newStringInterpreted ? ", and new_string was read the same way" : ""}. Send real newlines and tabs.`;
  } else {
    const doubt = continuationDoubt(lines, found.spans, found.needle, newText, options.maxBytes);
    if (doubt) return doubt;
    edits = spansToLineEdits(lines, found.spans, newText);
  }

  if (editsChangeNothing(lines, edits)) return { kind: "no-change", reason: "same-result" };
  if (found.overlapped) hint = hint ? `${hint} ${overlapHint(found)}` : overlapHint(found);
  return {
    kind: "ok",
    strategy: found.strategy,
    edits,
    lines: applyLineEdits(lines, edits),
    replacements: found.ranges.length,
    matches: listRefs(lines, found.ranges),
    hint,
    newStringInterpreted,
  };
}

/** What replace_all says when occurrences overlapped (see `decide`): never left for the model to find in the diff. */
function overlapHint(found: MatchFound): string {
  const { total, first } = found.overlapped!;
  return (
    `old_string occurs ${total} times counting overlapping occurrences (they share text, first on line ${first}); ` +
    `replace_all replaced the ${found.spans.length} that do not overlap, left to right, each after the end of the one before. ` +
    `If you meant others, check the diff and edit those places with a longer old_string.`
  );
}

/**
 * See {@link ContinuationAmbiguous}: undefined when no place is in doubt.
 * The reading with the indentation added is offered only when it fits in
 * `maxBytes` (worked out before it is built: a deep indentation times many
 * lines is large): one past the file size limit is no edit to offer.
 */
function continuationDoubt(
  lines: readonly string[],
  spans: readonly TextSpan[],
  needle: string,
  replacement: string,
  maxBytes = Number.POSITIVE_INFINITY,
): ContinuationAmbiguous | undefined {
  const [first, ...rest] = replacement.split("\n");
  if (needle.includes("\n") || /^\s/.test(needle) || first.trim() === "" || !rest.some((line) => line.trim() !== "")) return undefined;
  // The whole of a line after its indentation: the model left the indentation out.
  const indented = spans.filter(
    ({ start, end }) => start.col > 0 && end.line === start.line && end.col === lines[start.line].length && lines[start.line].slice(0, start.col).trim() === "",
  );
  if (indented.length === 0) return undefined;
  const { line } = indented[0].start;
  const indent = lines[line].slice(0, indented[0].start.col);
  if (spans.length > 1) return { kind: "continuation-ambiguous", line, indent, readings: [] };
  const asWritten = spansToLineEdits(lines, spans, replacement)[0];
  const later = rest.filter((text) => text.trim() !== "").length;
  // The line becomes its indentation, then new_string with that indentation before each later non-blank line.
  const relativeSize = () => sizeOutside(lines, line, line + 1) + indent.length + replacement.length + later * indent.length;
  if (maxBytes !== Number.POSITIVE_INFINITY && relativeSize() > maxBytes) return { kind: "continuation-ambiguous", line, indent, readings: [asWritten] };
  const relative = replacement
    .split("\n")
    .map((text, i) => (i === 0 || text.trim() === "" ? text : indent + text))
    .join("\n");
  return {
    kind: "continuation-ambiguous",
    line,
    indent,
    readings: [asWritten, spansToLineEdits(lines, spans, relative)[0]],
  };
}

/**
 * Characters of the file outside lines `start`..`end` (exclusive), a newline
 * after each. With the lines put in their place counted with a newline
 * between each (one fewer than there are), a lower bound on the file's bytes.
 */
function sizeOutside(lines: readonly string[], start: number, end: number): number {
  let size = 0;
  for (let i = 0; i < lines.length; i++) if (i < start || i >= end) size += lines[i].length + 1;
  return size;
}

/**
 * The first rung of the ladder on which old_string occurs, with every
 * occurrence there: for "exact"/"escaped", `spans` has overlapping ones too
 * (uniqueness is decided on them); the fuzzy rung's KMP finds overlapping
 * windows already.
 */
type Occurrences =
  | { readonly strategy: "exact" | "escaped"; readonly needle: string; readonly spans: TextSpan[] }
  | { readonly strategy: "fuzzy"; readonly needleLines: string[]; readonly starts: number[] };

function occurrences(lines: readonly string[], needle: string, limit: number): Occurrences | undefined {
  const exact = findAllOccurrences(lines, needle, limit);
  if (exact.length > 0) return { strategy: "exact", needle, spans: exact };
  const escaped = interpretEscapes(needle);
  if (escaped !== needle) {
    const spans = findAllOccurrences(lines, escaped, limit);
    if (spans.length > 0) return { strategy: "escaped", needle: escaped, spans };
  }
  const needleLines = textToLines(needle);
  const starts = findWhitespaceInsensitive(lines, needleLines);
  return starts.length > 0 ? { strategy: "fuzzy", needleLines, starts } : undefined;
}

function locate(lines: readonly string[], needle: string, replaceAll: boolean): MatchResult {
  if (needle === "") return invalidEmpty();

  // Spans are objects (~100 bytes each): a file of one repeated character has millions of occurrences, so
  // only as many are built as the answer needs; past that they are counted.
  const limit = replaceAll ? MAX_REPLACE_ALL + 1 : MAX_LISTED_MATCHES + 1;
  const found = occurrences(lines, needle, limit);
  if (found && found.strategy !== "fuzzy") {
    if (found.spans.length < limit) return decide(found.strategy, lines, found.needle, found.spans, replaceAll);
    const total = countAllOccurrences(lines, found.needle);
    if (replaceAll) return tooManyToReplace(total, countLeftToRight(lines, found.needle));
    const ambiguous = decide(found.strategy, lines, found.needle, found.spans, false) as MatchAmbiguous;
    const nonOverlapping = countLeftToRight(lines, found.needle);
    return { ...ambiguous, total, nonOverlapping: nonOverlapping !== total ? nonOverlapping : undefined };
  }
  if (found) {
    const ranges = found.starts.map((start) => ({ start, end: start + found.needleLines.length }));
    if (ranges.length === 1) return { kind: "found", strategy: "fuzzy", needle, ranges, spans: [] };
    return { kind: "ambiguous", strategy: "fuzzy", total: ranges.length, matches: listRefs(lines, ranges) };
  }

  // An over-escaped one-line old_string is best compared in the lines it meant.
  const escaped = interpretEscapes(needle);
  const comparedText = escaped !== needle && !needle.includes("\n") ? escaped : needle;
  const compared = textToLines(comparedText);
  return {
    kind: "no-match",
    candidates: closestWindows(lines, compared),
    whitespacePlaces: findWhitespaceOnly(lines, comparedText),
    needle: comparedText,
  };
}

/**
 * For an old_string that matches several places: the edit replacing only
 * the k-th match would make, for the first `limit` matches, as the ladder
 * would make it there (escapes read, indentation fitted). Undefined where
 * that cannot be told (an escape reading or an indentation in doubt),
 * where it would change nothing, or where the fitted indentation would
 * pass `options.maxBytes`. Empty when old_string does not match several
 * places.
 */
export function editsAtMatches(
  lines: readonly string[],
  oldString: string,
  newString: string,
  limit: number,
  options: Pick<MatchOptions, "maxBytes"> = {},
): (LineEdit | undefined)[] {
  const oldText = crlfToLf(oldString);
  const newText = crlfToLf(newString);
  if (oldText === "") return [];
  // Only the first `limit` are used; one more tells "several" from "one".
  const found = occurrences(lines, oldText, Math.max(limit, 2));
  if (found === undefined) return [];
  const keep = (edit: LineEdit | undefined) => (edit && !editsChangeNothing(lines, [edit]) ? edit : undefined);
  if (found.strategy === "fuzzy") {
    if (found.starts.length < 2) return [];
    const newLines = textToLines(newText);
    const height = found.needleLines.length;
    return found.starts.slice(0, limit).map((start) => {
      const maxBytes = options.maxBytes === undefined ? undefined : options.maxBytes - sizeOutside(lines, start, start + height);
      const fit = fitIndentation(found.needleLines, lines.slice(start, start + height), newLines, lines, { maxBytes });
      return keep(fit.kind === "fitted" ? { start, end: start + height, lines: fit.lines } : undefined);
    });
  }
  if (found.spans.length < 2) return [];
  let replacement = newText;
  if (found.strategy === "escaped" && shouldInterpretNewString(newText)) {
    if (escapePlaces(newText).inside > 0) return found.spans.slice(0, limit).map(() => undefined);
    replacement = interpretEscapes(newText);
  }
  return found.spans.slice(0, limit).map((span) => keep(spansToLineEdits(lines, [span], replacement)[0]));
}

/** An `edit` call's strings, proven to make one given edit. */
export interface ReadyEdit {
  readonly oldString: string;
  readonly newString: string;
}

/** How far {@link readyEdit} widens old_string: lines before, lines after. */
const WIDENINGS: readonly (readonly [number, number])[] = [
  [0, 0],
  [1, 0],
  [0, 1],
  [1, 1],
  [2, 1],
  [1, 2],
  [2, 2],
  [3, 3],
  [5, 5],
  [8, 8],
];

/**
 * The old_string / new_string of an `edit` that makes exactly `edit` on
 * `lines` and nothing else: old_string is the file's own text of the edited
 * lines, widened by the lines around them until it matches only there, and
 * new_string the same lines with the edit made. Whole lines with their
 * newlines, so the call means the same whatever the lines hold. Proven by
 * running it through the ladder; undefined when no widening (up to 8 lines
 * each side) is unique.
 */
export function readyEdit(lines: readonly string[], edit: LineEdit): ReadyEdit | undefined {
  const expected = applyLineEdits(lines, [edit]);
  const text = (part: readonly string[]) => part.map((line) => `${line}\n`).join("");
  const tried = new Set<string>();
  for (const [before, after] of WIDENINGS) {
    const from = Math.max(0, edit.start - before);
    const to = Math.min(lines.length, edit.end + after);
    if (to === from || tried.has(`${from}:${to}`)) continue;
    tried.add(`${from}:${to}`);
    const oldString = text(lines.slice(from, to));
    if (findAllOccurrences(lines, oldString, 2).length !== 1) continue;
    const newString = text([...lines.slice(from, edit.start), ...edit.lines, ...lines.slice(edit.end, to)]);
    // The ladder decides what the call does when sent, and must agree.
    const r = applyStringEdit(lines, oldString, newString);
    if (r.kind === "ok" && r.strategy === "exact" && sameLines(r.lines, expected)) return { oldString, newString };
  }
  return undefined;
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}

/**
 * `all` is every occurrence, overlapping ones included: two or more are
 * ambiguous without replace_all. replace_all replaces the non-overlapping
 * ones left to right (as sed and String.replaceAll do) and says so in
 * `overlapped` when some were skipped; where "every occurrence" cannot all
 * be replaced, the one reading every tool shares is taken, and named.
 */
function decide(strategy: "exact" | "escaped", lines: readonly string[], needle: string, all: TextSpan[], replaceAll: boolean): MatchFound | MatchAmbiguous {
  const spans = leftToRight(all);
  if (all.length > 1 && !replaceAll) {
    const nonOverlapping = spans.length !== all.length ? spans.length : undefined;
    return { kind: "ambiguous", strategy, total: all.length, matches: listRefs(lines, all.map(spanLines), all), nonOverlapping };
  }
  const overlapped = spans.length !== all.length ? { total: all.length, first: overlapLine(all) } : undefined;
  return { kind: "found", strategy, needle, ranges: spans.map(spanLines), spans, overlapped };
}

/** The 1-based line where the first two overlapping occurrences start. */
function overlapLine(all: readonly TextSpan[]): number {
  for (let i = 1; i < all.length; i++) {
    if (anyOverlap([all[i - 1], all[i]])) return all[i - 1].start.line + 1;
  }
  return all[0].start.line + 1;
}

function listRefs(lines: readonly string[], ranges: readonly LineRange[], spans?: readonly TextSpan[]): LineRef[] {
  const listed = ranges.slice(0, MAX_LISTED_MATCHES);
  return listed.map(({ start }, i) => {
    const ref = { line: start + 1, id: `${start + 1}:${formatHash(lineHash(lines[start]))}` };
    // Matches sharing a line (overlapping ones do) are told apart by column.
    const shared = spans !== undefined && (listed[i - 1]?.start === start || listed[i + 1]?.start === start);
    return shared ? { ...ref, column: spans[i].start.col + 1 } : ref;
  });
}

function crlfToLf(text: string): string {
  return text.includes("\r\n") ? text.split("\r\n").join("\n") : text;
}

function invalidEmpty(): MatchInvalid {
  return { kind: "invalid", message: "old_string is empty: it must be the exact text to replace" };
}
