/**
 * The text of a search result (pure): a bracketed header (what was searched,
 * how, and the totals), notes, what was not searched or skipped, one group
 * per file shown (its path line, its rows, and the call that shows the rest
 * of the file), and the closing advice (hints after no match, how to narrow
 * a cut result, why the search stopped). ./search.ts collects the model.
 */
import { shownPath } from "../support/remedy.ts";
import { plural, quoteArg } from "./format.ts";

/** One file's shown matches: the rows (`N:hh|content`, marked when context is on, "--" between groups). */
export interface SearchFileGroup {
  /** The file's path, normalised. */
  readonly path: string;
  /** Matching lines in this file (shown or not). */
  readonly matchCount: number;
  readonly rows: readonly string[];
  /** When some of this file's matches are not shown: how many, and the call that shows them. */
  readonly more?: { readonly left: number; readonly call: string };
}

/** What a search found: the model {@link renderSearch} prints. */
export interface SearchModel {
  readonly kind: "file" | "directory";
  /** The search as given. */
  readonly content: string;
  readonly regex: boolean;
  readonly caseSensitive: boolean;
  /** How the content was matched ("literal", "regex, ignoring case"...). */
  readonly label: string;
  readonly context: number;
  /** A directory search's "pattern", when given. */
  readonly pattern?: string;
  /** What was searched as the header names it: "src/a.ts (12 lines)", "src/a.ts lines 3-9 of 40", "src/". */
  readonly where: string;
  readonly notes: readonly string[];
  /** Entries the walk did not search, each with how to include it. */
  readonly notSearched: readonly string[];
  /** Matching lines counted, and how many were shown. */
  readonly matched: number;
  readonly shownMatches: number;
  readonly filesMatched: number;
  readonly filesShown: number;
  readonly filesSearched: number;
  /** Files skipped: binary or not UTF-8, too large, unreadable. */
  readonly notText: number;
  readonly tooLarge: number;
  readonly unreadable: number;
  /** False when a cap stopped the search: the counts are lower bounds. */
  readonly complete: boolean;
  /** Why the search stopped early ("stopped counting at 10000 matching lines"). */
  readonly stopReason?: string;
  /** What to call next after that stop (continue, or narrow). */
  readonly stopNext?: string;
  readonly files: readonly SearchFileGroup[];
}

/** A file group's first line. */
export function fileHeader(path: string, matchCount: number): string {
  return `${shownPath(path)} (${plural(matchCount, "matching line")})`;
}

/** A file group's last line when some of its matches are not shown. */
export function moreNote(left: number, call: string): string {
  return `[${plural(left, "more matching line")} in this file: ${call}]`;
}

/** The whole search result as text. */
export function renderSearch(model: SearchModel): string {
  const { kind } = model;
  const what = `${quoteArg(model.content)} (${model.label})`;
  const atLeast = model.complete ? "" : "at least ";
  const searched = kind === "directory" ? `; ${plural(model.filesSearched, "file")} searched` : "";
  const out: string[] = [];
  if (model.matched === 0) {
    out.push(`[search ${what} in ${model.where}: no match${kind === "directory" ? ` in ${plural(model.filesSearched, "file")} searched` : ""}]`);
  } else {
    const inFiles = kind === "directory" ? ` in ${atLeast}${plural(model.filesMatched, "file")}` : "";
    const marks = model.context > 0 ? "; > marks matching lines" : "";
    out.push(`[search ${what} in ${model.where}: ${atLeast}${plural(model.matched, "matching line")}${inFiles}${searched}${marks}]`);
  }
  if (model.notes.length > 0) out.push(`[note: ${model.notes.join("; ")}]`);
  if (model.notSearched.length > 0) out.push(`[not searched: ${model.notSearched.join(", ")}]`);
  const unsearched: string[] = [];
  if (model.notText > 0) unsearched.push(`${plural(model.notText, "binary or non-UTF-8 file")}`);
  if (model.tooLarge > 0) unsearched.push(`${plural(model.tooLarge, "file")} too large to search`);
  if (model.unreadable > 0) unsearched.push(`${plural(model.unreadable, "unreadable file")}`);
  if (unsearched.length > 0) out.push(`[skipped: ${unsearched.join(", ")}]`);

  // A blank line between files keeps each path visibly the start of its group.
  model.files.forEach((group, i) => {
    if (i > 0) out.push("");
    out.push(fileHeader(group.path, group.matchCount), ...group.rows);
    if (group.more) out.push(moreNote(group.more.left, group.more.call));
  });

  if (model.matched === 0) {
    // A search that stopped early says why below; hints are for a search that saw everything.
    if (model.complete) out.push(`[nothing matched. Try ${noMatchHints(model).join(", or ")}]`);
  } else if (model.shownMatches < model.matched) {
    const left = model.matched - model.shownMatches;
    const leftFiles = model.filesMatched - model.filesShown;
    const where = leftFiles > 0 ? ` (${atLeast}${plural(leftFiles, "more file")} not shown)` : "";
    const narrow =
      kind === "directory"
        ? `a subdirectory as "path", a "pattern" such as "**/*.ts", or a more specific "content"`
        : `a more specific "content", or "start"/"end" to search part of the file`;
    out.push(`[showing ${model.shownMatches} of ${atLeast}${model.matched} matching lines; ${atLeast}${left} not shown${where}. Narrow it: ${narrow}]`);
  }
  if (model.stopReason) out.push(`[the search ${model.stopReason}; counts are lower bounds${model.stopNext ? `. ${model.stopNext}` : ""}]`);
  return out.join("\n");
}

/** What to try after no match, from how the search was asked. */
function noMatchHints(model: SearchModel): string[] {
  const hints: string[] = [];
  if (model.caseSensitive) hints.push(`"case_sensitive": false`);
  if (!model.regex && /[.*+?^$|()[\]{}\\]/.test(model.content)) hints.push(`"regex": true if content is a pattern`);
  hints.push(model.regex ? "a simpler pattern" : `a shorter "content"`);
  if (model.kind === "directory" && model.pattern !== undefined) hints.push(`a wider "pattern"`);
  return hints;
}
