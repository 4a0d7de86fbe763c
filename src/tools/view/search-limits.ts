/**
 * What a search says when its regex limits act (see ./search-work.ts):
 * the refusal of a pattern too long or too complex to run, the note naming
 * lines too long for one bounded RE2 call, the note for long matching lines
 * shown from their start (their match not looked for), and why and where a
 * search stopped, each with a call that works. Pure.
 */
import { fail, type ToolResult } from "../../result.ts";
import { shownPath } from "../support/remedy.ts";
import { plural, viewCall } from "./format.ts";
import { createSearcher, loosenRepeats, MAX_REGEX_CHARS, MAX_SEARCH_PROGRAM, requiredLiteral, type SearcherRefusal } from "./matcher.ts";
import { formatWork, type NotLocated, type SearchWork } from "./search-work.ts";

/** The search as asked: what a suggested call repeats. */
export interface AskedSearch {
  readonly path: string;
  readonly content: string;
  readonly caseSensitive: boolean;
  /** Other arguments a suggested call keeps (context, pattern...). */
  readonly keep: Readonly<Record<string, unknown>>;
}

/** Longest suggested pattern echoed in a message. */
const MAX_ECHO = 400;

/** A literal search for the text every match of `content` contains, when there is one. */
function literalCall(asked: AskedSearch): string | undefined {
  const literal = requiredLiteral(asked.content);
  if (literal === undefined || literal.length > MAX_ECHO) return undefined;
  return viewCall(asked.path, { content: literal, case_sensitive: asked.caseSensitive ? undefined : false, ...asked.keep });
}

/** The same regex search with counted repeats loosened, when that fits the limits. */
function loosenedCall(asked: AskedSearch): string | undefined {
  const loose = loosenRepeats(asked.content);
  if (loose === undefined || loose.length > MAX_ECHO) return undefined;
  const made = createSearcher({ content: loose, regex: true, caseSensitive: asked.caseSensitive });
  if (!made.ok) return undefined;
  return viewCall(asked.path, { content: loose, regex: true, case_sensitive: asked.caseSensitive ? undefined : false, ...asked.keep });
}

/** The refusal of a regex the search will not run: LIMIT_EXCEEDED when too long or complex, INVALID_ARGUMENT when RE2 cannot parse it. */
export function refusal(made: SearcherRefusal, asked: AskedSearch): ToolResult {
  if (made.kind === "invalid") {
    return fail(
      "INVALID_ARGUMENT",
      `content is not a valid regular expression: ${made.message}. The syntax is RE2 (no lookaround or ` +
        `backreferences). Fix the pattern, or leave out "regex" to search for the text literally.`,
    );
  }
  const what =
    made.kind === "too-long"
      ? `content is ${made.chars} characters long, over the ${MAX_REGEX_CHARS} a regex search accepts`
      : made.estimated
        ? `content is too complex to search with: its counted repeats expand to about ${made.programSize} RE2 instructions, over the limit of ${MAX_SEARCH_PROGRAM}`
        : `content is too complex to search with: it compiles to ${made.programSize} RE2 instructions, over the limit of ${MAX_SEARCH_PROGRAM}`;
  const why = made.kind === "too-long" ? "" : " (RE2 has no counters: x{1000} is 1000 copies of x, and every line searched costs the whole program)";
  const ways: string[] = [];
  const loosened = made.kind === "too-complex" ? loosenedCall(asked) : undefined;
  if (loosened) ways.push(`its counted repeats written as + or * (this finds every line the pattern finds, and more): ${loosened}`);
  const literal = literalCall(asked);
  if (literal) ways.push(`a literal search for text every match contains: ${literal}`);
  ways.push(
    made.kind === "too-long"
      ? `a shorter pattern, or several searches of a few alternatives each (or, if content is plain text, leave out "regex")`
      : "a shorter repeat (x{20} rather than x{1000}), x+ or x*, or several smaller searches",
  );
  const listed = ways.length === 1 ? ways[0] : ways.map((way, i) => `(${i + 1}) ${way}`).join("; ");
  return fail("LIMIT_EXCEEDED", `${what}${why}. Nothing was searched. Search instead with ${listed}.`);
}

/** Where a search stopped matching, 1-based. */
export interface StopPoint {
  readonly path: string;
  readonly line: number;
  readonly why: "budget" | "cancelled";
}

/** The stop reason, as `[the search <reason>; counts are lower bounds. <next>]` prints it. */
export function stopWording(stop: StopPoint, work: SearchWork, asked: AskedSearch, kind: "file" | "directory", end?: number): { reason: string; next: string } {
  const at = kind === "directory" ? `\`${shownPath(stop.path)}\` line ${stop.line}` : `line ${stop.line}`;
  const because =
    stop.why === "budget"
      ? `its regex work budget is spent (${formatWork(work.budget)} RE2 instructions x characters per search; this pattern has ` +
        `${work.programSize} instructions, so about ${Math.floor(work.budget / work.programSize).toLocaleString("en-US")} characters)`
      : "the call was cancelled (its time limit, or the client left)";
  const rest = kind === "directory" ? "; the files after it were not searched" : "";
  const continueCall = viewCall(stop.path, {
    content: asked.content,
    regex: true,
    case_sensitive: asked.caseSensitive ? undefined : false,
    ...asked.keep,
    start: stop.line,
    end,
  });
  const narrow =
    kind === "directory"
      ? `narrow the rest: a subdirectory as "path", a "pattern" such as "**/*.ts", a literal "content", or a regex of fewer instructions`
      : `or search less: a literal "content", a regex of fewer instructions, or "end" to search part of the file`;
  const next = kind === "directory" ? `Continue that file: ${continueCall}; ${narrow}` : `Continue from there: ${continueCall}, ${narrow}`;
  return { reason: `stopped at ${at}: ${because}${rest}`, next };
}

/** Lines a search did not match because each alone is over one call's bound: how many, and the first. */
export interface TooLongLines {
  count: number;
  first?: { readonly path: string; readonly line: number; readonly chars: number };
}

/** The "[not searched: ...]" entry for lines too long for this regex. */
export function tooLongNote(lines: TooLongLines, work: SearchWork, asked: AskedSearch): string | undefined {
  const first = lines.first;
  if (lines.count === 0 || first === undefined) return undefined;
  const them = lines.count === 1 ? "it" : "them";
  const literal = literalCall({ ...asked, path: first.path });
  const how = literal
    ? `search ${them} literally, e.g. ${literal}, or with a regex of fewer instructions`
    : `search ${them} with a literal "content" or a regex of fewer instructions`;
  return (
    `${plural(lines.count, "line")} too long for this regex (${lines.count === 1 ? "" : "the first: "}\`${shownPath(first.path)}\` line ${first.line}, ` +
    `${first.chars.toLocaleString("en-US")} characters; a pattern of ${work.programSize} RE2 instructions matches lines of up to ` +
    `${work.maxCallChars.toLocaleString("en-US")}): ${how}`
  );
}

/** Long matching lines shown from their start because where their match starts was not looked for: how many, and the first. */
export interface UnlocatedLines {
  count: number;
  first?: { readonly path: string; readonly line: number; readonly why: NotLocated };
}

/** What ends a long matching row shown from its start (the note says why). */
export const UNLOCATED_MARK = "[match not located: see the note]";

/** The note for long matching lines shown from their start, not around their match. */
export function unlocatedNote(lines: UnlocatedLines, work: SearchWork, asked: AskedSearch): string | undefined {
  const first = lines.first;
  if (lines.count === 0 || first === undefined) return undefined;
  const because =
    first.why === "budget"
      ? `the search's regex work budget (${formatWork(work.budget)} RE2 instructions x characters) could not hold the call that finds it`
      : first.why === "too-long"
        ? `the call that finds it would cost more than one RE2 call may (${formatWork(work.callLimit)} RE2 instructions x characters)`
        : "the call was cancelled (its time limit, or the client left)";
  const them = lines.count === 1 ? "it" : "them";
  const where = `${lines.count === 1 ? "" : "the first: "}\`${shownPath(first.path)}\` line ${first.line}`;
  // A long pattern is not echoed: the call is named by its arguments.
  const alone =
    asked.content.length > MAX_ECHO
      ? `the same search with "start" and "end" at ${first.line}`
      : viewCall(first.path, {
          content: asked.content,
          regex: true,
          case_sensitive: asked.caseSensitive ? undefined : false,
          start: first.line,
          end: first.line,
        });
  const literal = literalCall({ ...asked, path: first.path });
  const how =
    first.why === "too-long"
      ? literal
        ? `search ${them} literally, e.g. ${literal}, or with a regex of fewer instructions`
        : `search ${them} with a literal "content" or a regex of fewer instructions`
      : `search that line alone: ${alone}`;
  return (
    `${plural(lines.count, "long matching line")} shown from the start, not around the match (${where}): where the match starts was not ` +
    `looked for, because ${because}. To see it, ${how}`
  );
}
