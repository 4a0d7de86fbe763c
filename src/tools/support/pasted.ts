/**
 * Pasted view artifacts in text a tool is about to write: `N:hh|` prefixes
 * copied from view output, and a markdown code fence around code for a file
 * that is not markdown. None is ever written silently. The rule (also in
 * docs/tools.md):
 *
 * - Stripped, with a note, only when no legitimate file could contain it:
 *   every prefix names, by a verified id, a line of the current file inside
 *   the region being replaced (the lines an edit matched, a replace's range,
 *   the whole file for write). Content never starts with the id of the very
 *   line it replaces; a paste of the view always does.
 * - Refused otherwise, with the cleaned call and nothing written: a prefix
 *   or a fence could be content (documentation of view output, a fixture, a
 *   markdown snippet in a docstring), so the model says which it meant.
 * - Not checked when the file already has such lines (it is that kind of
 *   file), for markdown files (fences), or when the call says "verbatim": true.
 *
 * A paste is read whole (text/id-prefix.ts): when every line is a row or a
 * line view or a diff prints around rows (a `[path: N lines]` header, a cut
 * footer, `@@` hunk headers), those lines go with the prefixes, and a diff's
 * `- ` rows (lines the change removed) are left out. A paste that is cut or
 * mixes a diff with other lines is never stripped, and its refusal says why
 * (`unclear`): a caller should then not offer the cleaned text as a ready call.
 */

import { fenceWrapped, findShortenedLines, isFenceLine, isMarkdownPath, type ShortenedLine } from "../../text/artifacts.ts";
import { type Paste, type PastedRow, readPaste } from "../../text/id-prefix.ts";
import { formatId } from "../../text/ids.ts";
import { type LongLineChange, resolveShortened } from "../../text/shortened.ts";
import { DEFAULT_LIMITS } from "../types.ts";

/** What to do with a text before writing it. */
export type PasteVerdict =
  | { readonly kind: "clean" }
  /** Write `text` instead, and say `note`. */
  | { readonly kind: "strip"; readonly text: string; readonly note: string }
  /**
   * Write nothing; `what` says what was found, `cleaned` is the text without
   * it. `unclear` says why `cleaned` may not be what was meant (a cut paste,
   * a diff mixed with other lines): then no call should be offered as ready.
   * `shown`: for a whole-file text that is a paste of part of a view (the
   * only doubt), the current ids of the first and last lines it shows.
   * `shortened`: lines copied from a line view showed shortened; then
   * `cleaned` still holds their markers and must not be offered (see
   * support/shortened.ts for what is offered instead).
   */
  | {
      readonly kind: "refuse";
      readonly what: string;
      readonly cleaned: string;
      readonly unclear?: string;
      readonly shown?: { readonly start: string; readonly end: string };
      readonly shortened?: readonly ShortenedFinding[];
    };

/** A line of the text copied from a shortened view row, and what it asks of the file line it stands for, when that is known. */
export interface ShortenedFinding {
  readonly shown: ShortenedLine;
  readonly change?: LongLineChange;
}

/** What the check knows about the target. */
export interface PasteContext {
  /** Workspace path of the file (its extension decides about fences). */
  readonly path: string;
  /**
   * The file's current lines, when it exists; or a function giving them,
   * called only when a finding needs them (a fence or a prefix in the text):
   * most texts have neither, and a large file's lines cost a decode and split.
   */
  readonly fileLines?: readonly string[] | (() => readonly string[]);
  /** Whether `N:hh` is a current id of a line in the region being replaced. */
  readonly ownsId?: (line: number, hash: number) => boolean;
  /** The text replaces the whole file (write): a paste of part of a view would delete the rest. */
  readonly wholeFile?: boolean;
  /**
   * The lines the text replaces (1-based, inclusive spans; the whole file
   * for `wholeFile`): a shortened line whose marker a line there already
   * ends with is the file's own, and the line a shortened copy stands for
   * is looked for there. None (an insert, an edit that matched nothing):
   * every line of the file may be the one copied.
   */
  readonly region?: readonly (readonly [number, number])[];
  /** Longest line view shows whole (ToolLimits.maxLineChars): where it cut a line. */
  readonly maxLineChars?: number;
}

/** A row prefix after a literal "\n" (or "\r\n") escape, inside one line. */
const ESCAPED_ROWS = /\\(?:r\\)?n\d+:[0-9a-f]{2}\|/;
const ESCAPED_ROWS_WHY =
  'its rows are joined by a literal "\\n" (a backslash and an n, as text escaped twice) rather than by newlines, so they read as one line with a view prefix inside it';

/** Check `text` (rules in the module comment). */
export function checkPasted(text: string, target: PasteContext): PasteVerdict {
  const found: string[] = [];
  let cleaned = text;
  const fileLines = (): readonly string[] | undefined => (typeof target.fileLines === "function" ? target.fileLines() : target.fileLines);
  // The file's own fence lines are looked at only for a text that is fence-wrapped.
  const wrapped = isMarkdownPath(target.path) ? undefined : fenceWrapped(text);
  const fenced = wrapped && !fileLines()?.some(isFenceLine) ? wrapped : undefined;
  if (fenced) {
    cleaned = fenced.inner;
    const open = JSON.stringify(text.split("\n")[0].trim());
    const close = JSON.stringify(text.trimEnd().split("\n").pop()!.trim());
    found.push(`is wrapped in a markdown code fence (first line ${open}, last line ${close}), and \`${target.path}\` is not a markdown file`);
  }
  const paste = readPaste(cleaned, { fileLines });
  const lines = paste ? fileLines() : undefined;
  const existing = lines ? new Set(lines) : undefined;
  const pasted = paste?.rows.filter((p) => !existing?.has(p.text.replace(/\r$/, ""))) ?? [];
  let unclear: string | undefined;
  let shown: { start: string; end: string } | undefined;
  if (paste && pasted.length > 0) {
    const partial = target.wholeFile && paste.partial ? partialWrite(paste.partial) : undefined;
    // Rows joined by an escaped newline (the two characters \ and n: new_string escaped twice) are one line to
    // the reader: stripped, the first prefix would go and the next stay in the file, inside that one line.
    const escaped = ESCAPED_ROWS.test(paste.cleaned) ? ESCAPED_ROWS_WHY : undefined;
    unclear = [paste.unclear, partial, escaped].filter(Boolean).join("; and ") || undefined;
    const own = target.ownsId;
    // Stripped only when every row is a current line of the region and nothing else is in doubt.
    const whole = !fenced && own && !unclear && paste.removed === 0 && paste.rows.every((p) => own(p.line, p.hash));
    if (whole && shortenedIn(paste.cleaned, target, fileLines).length === 0) {
      return { kind: "strip", text: paste.cleaned, note: stripNote(paste) };
    }
    if (partial && !paste.unclear && own) shown = shownSpan(paste, own);
    cleaned = paste.cleaned;
    const first = pasted[0].text;
    const sample = first.length > 60 ? `${first.slice(0, 60)}…` : first;
    found.push(
      `has ${pasted.length === 1 ? "a line" : `${pasted.length} lines`} starting with a view prefix "N:hh|" (e.g. ${JSON.stringify(sample)}); ` +
        `view shows that prefix in front of each line, it is not part of the file` +
        aroundRows(paste),
    );
  }
  const shortened = shortenedIn(cleaned, target, fileLines);
  if (shortened.length > 0) found.push(shortenedWhat(shortened));
  if (found.length === 0) return { kind: "clean" };
  return {
    kind: "refuse",
    what: found.join(", and "),
    cleaned,
    ...(unclear ? { unclear } : {}),
    ...(shown ? { shown } : {}),
    ...(shortened.length > 0 ? { shortened } : {}),
  };
}

/**
 * Lines of `text` copied from a shortened row (view's marker at their end)
 * that the region's lines do not already end with, each with the file line
 * it stands for when one fits for certain.
 */
function shortenedIn(text: string, target: PasteContext, fileLines: () => readonly string[] | undefined): ShortenedFinding[] {
  const found = findShortenedLines(text);
  if (found.length === 0) return [];
  const lines = fileLines() ?? [];
  const spans = target.region ?? (target.wholeFile ? [[1, lines.length] as const] : undefined);
  const where = (): Iterable<number> => (spans ? spanIndexes(spans, lines.length) : lines.keys());
  const has = (line: string, s: ShortenedLine) => (s.total !== undefined ? line.endsWith(s.marker) : line.startsWith(s.marker));
  const own = (s: ShortenedLine) => spans !== undefined && [...where()].some((i) => has(lines[i], s));
  const max = target.maxLineChars ?? DEFAULT_LIMITS.maxLineChars;
  return found.filter((s) => !own(s)).map((shown) => ({ shown, change: resolveShortened(shown, lines, where(), max) }));
}

/** 0-based indexes of the lines in 1-based inclusive `spans`, within `count` lines. */
function* spanIndexes(spans: readonly (readonly [number, number])[], count: number): Generator<number> {
  for (const [a, b] of spans) for (let n = Math.max(1, a); n <= Math.min(b, count); n++) yield n - 1;
}

function shortenedWhat(shortened: readonly ShortenedFinding[]): string {
  const first = shortened[0].shown;
  const n = shortened.length;
  return (
    `has ${n === 1 ? "a line" : `${n} lines`} copied from a line that view showed shortened (its line ${first.index + 1} ${first.total !== undefined ? "ends with" : "starts with"} ${JSON.stringify(first.marker)}): ` +
    `that marker is not file text, and the rest of the line was never shown, so writing it would cut the file's line there and put the marker in it`
  );
}

/** The ids of the first and last rows, when every row is a current id of the region, in file order. */
function shownSpan(paste: Paste, own: (line: number, hash: number) => boolean): { start: string; end: string } | undefined {
  const rows = paste.rows;
  if (paste.removed > 0) return undefined;
  for (let i = 0; i < rows.length; i++) {
    if (!own(rows[i].line, rows[i].hash) || (i > 0 && rows[i].line <= rows[i - 1].line)) return undefined;
  }
  const id = (r: PastedRow) => formatId(r.line, r.hash);
  return { start: id(rows[0]), end: id(rows[rows.length - 1]) };
}

/** The note of a stripped paste. */
function stripNote(paste: Paste): string {
  const n = paste.rows.length;
  const k = paste.meta.length;
  return (
    `${n === 1 ? "1 line" : `${n} lines`} of the content started with "N:hh|", the view prefix of the very line ${n === 1 ? "it replaces" : "they replace"}` +
    (k === 0 ? "" : `, and ${metaClause(paste.meta)}`) +
    `; the prefixes were removed and only the text after them written${k === 0 ? "" : `, without ${k === 1 ? "that line" : "those lines"}`}` +
    (paste.restored.length > 0 ? ` (${restoredClause(paste.restored, "written")})` : "") +
    ". " +
    `Send content without the prefixes${k === 0 ? "" : " and the lines around them"}.`
  );
}

/** What else of the paste the cleaned text leaves out: the lines tools print around rows, and a diff's removed rows. */
function aroundRows(paste: Paste): string {
  let out = "";
  const k = paste.meta.length;
  if (k > 0) out += `; ${metaClause(paste.meta)}, not file text either, so the cleaned text leaves ${k === 1 ? "it" : "them"} out`;
  const r = paste.removed;
  if (r > 0) {
    out +=
      `; the rows are a pasted result diff, whose ${r === 1 ? `"- N:hh|" line is a line` : `${r} "- N:hh|" lines are lines`} the change removed, ` +
      `so the cleaned text leaves ${r === 1 ? "it" : "them"} out and keeps the context and "+" lines`;
  }
  if (paste.restored.length > 0) out += `; ${restoredClause(paste.restored, "in the cleaned text")}`;
  return out;
}

/** Shortened rows taken whole from the file: said, since that text is not what was sent. `where`: "written", "in the cleaned text". */
function restoredClause(lines: readonly number[], where: string): string {
  const one = lines.length === 1;
  const verb = where === "written" ? (one ? "was" : "were") : one ? "is" : "are";
  return `${one ? `line ${lines[0]}` : `lines ${lines.join(", ")}`}, shown shortened with "… [line truncated: …]", ${verb} ${where} whole, as the file has ${one ? "it" : "them"}`;
}

/** "1 line around them ("[a.ts: 2 lines]") is what view prints around its lines". */
function metaClause(meta: readonly string[]): string {
  const k = meta.length;
  const sample = k === 1 ? JSON.stringify(meta[0]) : `e.g. ${JSON.stringify(meta[0])}`;
  const hunks = meta.every((l) => l.startsWith("@@"));
  const what = hunks ? `a result diff's hunk header${k === 1 ? "" : "s"}` : "what view prints around its lines";
  return `${k === 1 ? "1 line" : `${k} lines`} around them (${sample}) ${k === 1 ? "is" : "are"} ${what}`;
}

/** Why a pasted partial view is unclear as a whole file. */
function partialWrite(part: string): string {
  return `the pasted view shows only part of the file (${part}), and write replaces the whole file, so writing it would delete every line it does not show`;
}

/** The closing sentences of a refusal: what to send, and how to keep the text as it was. */
export function pastedRemedy(call: string): string {
  return `Nothing was written. Send the cleaned call:\n${call}\nIf the text really belongs in the file as sent, send the same call with "verbatim": true.`;
}
