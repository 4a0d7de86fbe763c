/**
 * Tool output pasted back as if it were file text: the rows view, search and
 * result diffs print (`N:hh|text`, `> N:hh|`, `  N:hh|`, `+ N:hh|`,
 * `- N:hh|`) and the lines those outputs print around their rows (view's
 * `[path: N lines]` header, its `[note: …]` and footers, a diff's
 * `@@ … @@` hunk headers). Pure: {@link readPaste} says what the paste is and
 * what the file would hold; the tools decide what to do with it (see
 * tools/support/pasted.ts).
 *
 * The lines around the rows are dropped only when every other non-blank line
 * is a row: then the whole text is a paste, and no such line can be file text.
 * In any other text they are kept, since a file may hold a line like
 * "[note: …]" or "@@ -1,2 +1,2 @@".
 */

import { lineHash } from "../hash/fnv.ts";

/** What comes before a row's id: "" for a view row, " " for a diff or search context row, or the diff / search mark. */
export type RowMark = "" | " " | "+" | "-" | ">";

/** One line of the text that carries a row prefix. */
export interface PastedRow {
  /** 0-based line of the text. */
  readonly index: number;
  readonly mark: RowMark;
  /** The id the prefix names. */
  readonly line: number;
  readonly hash: number;
  /** The whole line as sent (prefix included). */
  readonly text: string;
}

/** A text read as pasted tool output. */
export interface Paste {
  /** Every row, kept or left out. */
  readonly rows: readonly PastedRow[];
  /** Non-blank lines that are not rows and were kept (the model's own text, or tool lines in a text that is not all paste). */
  readonly plain: number;
  /** Lines a tool prints around its rows, left out of `cleaned`. */
  readonly meta: readonly string[];
  /** `- N:hh|` rows of a diff, left out of `cleaned`: lines the change removed. */
  readonly removed: number;
  /** The text as the file would hold it: rows without their prefixes, and the lines above left out. */
  readonly cleaned: string;
  /** Line numbers of rows shown shortened whose whole line `cleaned` holds, taken from the file. */
  readonly restored: readonly number[];
  /** The part of the file a pasted view header or cut footer says it shows, e.g. "lines 1-4 of 7"; absent when it shows all or does not say. */
  readonly partial?: string;
  /** Why `cleaned` may not be what the paste means (it is cut, or mixes a diff with other lines); absent when it is clear. */
  readonly unclear?: string;
}

/** Options of {@link readPaste}. */
export interface ReadPasteOptions {
  /**
   * Also take a row with other leading whitespace or uppercase hex
   * (" 3:AB|x"), for text whose cleaning is proven some other way (an
   * old_string that must then match the file). Default: only what the tools print.
   */
  readonly lenient?: boolean;
  /**
   * The file's current lines: a row that view or a diff showed shortened
   * (`… [line truncated: N chars total]`) gets its whole line back when its
   * id names a line of them whose text it shows. Without them, or when the
   * row does not fit its line, the paste is unclear.
   */
  readonly fileLines?: () => readonly string[] | undefined;
}

// What view, search and diff rows print before a line's content (as src/text/artifacts.ts's VIEW_PREFIX).
const ROW = /^(?:([+\->]) |( {2}))?(\d+):([0-9a-f]{2})\|/;
const LENIENT_ROW = /^(?:([+\->]) |([ \t]*))(\d+):([0-9a-fA-F]{2})\|/;

// The lines tools print around rows (src/tools/view/file.ts, src/text/diff.ts). A view header's path may hold "]" ("[id].tsx").
const VIEW_HEADER =
  /^\[.+: (?:(\d+) lines?|lines (\d+)-(\d+) of (\d+))(?:, (?:CRLF line endings|mixed line endings \(\d+ CRLF, \d+ LF\)|UTF-8 BOM|no final newline))*\]$/;
const VIEW_NOTE = /^\[note: .*\]$/;
const SHORTENED_FOOTER = /^\[\d+ lines? longer than \d+ characters shown shortened; ids still cover the whole line\]$/;
const CUT_FOOTER = /^\[cut at line (\d+) by .+; (\d+) more lines? to show\. Continue: view \{.*\}\]$/;
const HUNK_HEADER = /^@@ -\d+,\d+ \+(\d+),(\d+) @@$/;
// These two say the diff left lines out: its rows are not all of the change.
const DIFF_CAPPED = /^… \d+ more diff lines? not shown(?:; view lines \d+-\d+ to see the current text and ids| \(removed lines only\))$/;
const DIFF_ELIDED = /^~ too large to diff: /;

// A row's content as view or a diff shortens a long line (src/text/render.ts, src/text/diff.ts windowAround).
const TRUNCATED = /… \[line truncated: (\d+) chars total\]$/;
const WINDOW_START = /^… \[(\d+) chars before not shown\] /;

/**
 * Read `text` as pasted tool output: undefined when no line carries a row
 * prefix. In a diff (a `+` or `-` row) the `-` rows are the lines the change
 * removed, so `cleaned` keeps the context and `+` rows and leaves them out;
 * a diff of `-` rows only keeps them (it may be meant to put them back) and
 * is unclear.
 */
export function readPaste(text: string, options: ReadPasteOptions = {}): Paste | undefined {
  if (!text.includes("|")) return undefined;
  const pattern = options.lenient ? LENIENT_ROW : ROW;
  const lines = text.split("\n");
  const rows: PastedRow[] = [];
  const contents = new Map<number, string>();
  const metaAt: number[] = [];
  let plain = 0;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    const m = pattern.exec(line);
    if (m) {
      const mark: RowMark = (m[1] as RowMark | undefined) ?? (m[2] === "  " ? " " : "");
      rows.push({ index, mark, line: Number(m[3]), hash: parseInt(m[4], 16), text: line });
      contents.set(index, line.slice(m[0].length));
    } else if (isMeta(line.replace(/\r$/, ""))) metaAt.push(index);
    else if (line.trim() !== "") plain++;
  }
  if (rows.length === 0) return undefined;

  // Tool lines are paste only when all the rest is rows; otherwise they may be file text.
  const allPaste = plain === 0;
  const meta = allPaste ? metaAt.map((i) => lines[i].replace(/\r$/, "")) : [];
  if (!allPaste) plain += metaAt.length;
  const marks = new Set(rows.map((r) => r.mark));
  // Removed rows are noise only beside the lines the change left (context and "+" rows).
  const dropRemoved = marks.has("-") && rows.some((r) => r.mark !== "-");
  const drop = new Set<number>(allPaste ? metaAt : []);
  if (dropRemoved) for (const r of rows) if (r.mark === "-") drop.add(r.index);

  const unclear: string[] = [];
  if (!allPaste && metaAt.length > 0) {
    const sample = JSON.stringify(lines[metaAt[0]].replace(/\r$/, ""));
    unclear.push(`a line tools print around rows (${sample}) sits among lines that are not rows, so whether it belongs in the file is unclear`);
  }
  const capped = meta.find((l) => DIFF_CAPPED.test(l) || DIFF_ELIDED.test(l));
  if (capped) unclear.push(`the pasted diff leaves lines out (${JSON.stringify(capped)}), so its rows are not all of the change`);
  if (marks.has("-") && !dropRemoved) {
    unclear.push(
      `its "- N:hh|" ${rows.length === 1 ? "line is a line" : "lines are lines"} a change removed, with no context or "+" line beside them, so whether they belong in the file is unclear`,
    );
  } else if (dropRemoved && !allPaste) {
    unclear.push(
      `it mixes the rows of a pasted diff with ${plain === 1 ? "a line" : `${plain} lines`} that ${plain === 1 ? "is" : "are"} not rows, so which lines belong in the file is unclear`,
    );
  }
  const restored: number[] = [];
  for (const row of rows) {
    if (drop.has(row.index)) continue;
    const sent = contents.get(row.index)!;
    const shown = sent.replace(/\r$/, "");
    if (!TRUNCATED.test(shown) && !WINDOW_START.test(shown)) continue;
    const whole = wholeLine(row, shown, options.fileLines?.());
    if (whole !== undefined) {
      contents.set(row.index, whole + sent.slice(shown.length));
      restored.push(row.line);
    } else unclear.push(`line ${row.line} was shown shortened (${JSON.stringify(shortenedMarker(shown))}), so its text as pasted is not the whole line`);
  }

  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) if (!drop.has(i)) kept.push(contents.get(i) ?? lines[i]);
  // A dropped last line (a footer, a "-" row) ended the text: the line before it had its newline.
  if (drop.has(lines.length - 1) && lines[lines.length - 1] !== "" && kept.length > 0) kept.push("");
  return {
    rows,
    plain,
    meta,
    removed: dropRemoved ? rows.filter((r) => r.mark === "-").length : 0,
    cleaned: kept.join("\n"),
    restored,
    partial: allPaste ? partOf(meta, rows, options.fileLines?.()?.length) : undefined,
    unclear: unclear.length > 0 ? unclear.join("; and ") : undefined,
  };
}

/**
 * `text` as {@link readPaste} cleans it (prefixes removed, a diff's `-` rows
 * left out, and the lines tools print around rows when all of it is paste),
 * when at least one line carries a prefix; rows with other leading
 * whitespace or uppercase hex count too. Undefined when no line has one, or when the
 * paste cannot be cleaned without guessing (a shortened line, a cut diff).
 * Only the prefix is removed; the line's own indentation, which follows the
 * `|`, is kept.
 */
export function stripIdPrefixes(text: string): string | undefined {
  const paste = readPaste(text, { lenient: true });
  return paste && !paste.unclear ? paste.cleaned : undefined;
}

function isMeta(line: string): boolean {
  // Every such line starts with one of these; most lines of a text are rejected here.
  const c = line[0];
  if (c !== "[" && c !== "@" && c !== "…" && c !== "~") return false;
  return (
    VIEW_HEADER.test(line) ||
    VIEW_NOTE.test(line) ||
    SHORTENED_FOOTER.test(line) ||
    CUT_FOOTER.test(line) ||
    HUNK_HEADER.test(line) ||
    DIFF_CAPPED.test(line) ||
    DIFF_ELIDED.test(line)
  );
}

/**
 * The part of the file a view's header ("lines 2-5 of 9") or cut footer
 * says the paste shows, unless its rows cover every line of the file all
 * the same (two ranged views pasted one after the other).
 */
function partOf(meta: readonly string[], rows: readonly PastedRow[], fileLineCount: number | undefined): string | undefined {
  let said: string | undefined;
  let total = 0;
  for (const line of meta) {
    // A result diff shows windows of the file: it stands for the whole file only if they cover all of it.
    const hunk = HUNK_HEADER.exec(line);
    if (hunk) {
      total = Math.max(total, fileLineCount ?? 0, Number(hunk[1]) + Number(hunk[2]) - 1);
      said ??= "a result diff's windows of it";
    }
    const h = VIEW_HEADER.exec(line);
    if (h?.[1] !== undefined) total = Math.max(total, Number(h[1]));
    if (h?.[2] !== undefined) {
      total = Math.max(total, Number(h[4]));
      if (h[2] !== "1" || h[3] !== h[4]) said ??= `lines ${h[2]}-${h[3]} of ${h[4]}`;
    }
    const c = CUT_FOOTER.exec(line);
    if (c) {
      total = Math.max(total, Number(c[1]) + Number(c[2]));
      said ??= `up to line ${c[1]}, with ${c[2]} more not shown`;
    }
  }
  if (said === undefined) return undefined;
  const shown = new Set(rows.filter((r) => r.mark !== "-").map((r) => r.line));
  for (let n = 1; n <= total; n++) if (!shown.has(n)) return said;
  return undefined;
}

/**
 * The whole line a shortened row stands for: line `row.line` of the file,
 * when its hash is the row's and the row's text is how view or a diff shows
 * it (its beginning, or a window of it, and its length). Anything else is
 * not the file's line, and the caller must not guess.
 */
function wholeLine(row: PastedRow, shown: string, fileLines: readonly string[] | undefined): string | undefined {
  const line = fileLines?.[row.line - 1];
  if (line === undefined || lineHash(line) !== row.hash) return undefined;
  const t = TRUNCATED.exec(shown);
  const w = WINDOW_START.exec(shown);
  const total = t ? Number(t[1]) : line.length;
  const from = w ? Number(w[1]) : 0;
  const visible = shown.slice(w ? w[0].length : 0, t ? t.index : shown.length);
  return line.length === total && line.startsWith(visible, from) ? line : undefined;
}

function shortenedMarker(shown: string): string {
  return TRUNCATED.exec(shown)?.[0] ?? WINDOW_START.exec(shown)![0].trimEnd();
}
