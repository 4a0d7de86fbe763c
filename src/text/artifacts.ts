/**
 * Text that came from somewhere other than the file: `N:hh|` prefixes copied
 * from view output (or from a result diff: "+ ", "- ", "> " and "  " before
 * the id), and markdown code fences wrapped around code. Pure detection; the
 * tools decide whether to refuse or strip (see `tools/support/pasted.ts`).
 */

// What view, search and diff rows print before a line's content.
const VIEW_PREFIX = /^(?:[+\->] | {2})?(\d+):([0-9a-f]{2})\|/;
const FENCE = /^[ \t]{0,3}(`{3,}|~{3,})[^`]*$/;

/** One line of the text that carries a view prefix. */
export interface PrefixedLine {
  /** 0-based line of the text. */
  readonly index: number;
  /** The id the prefix names. */
  readonly line: number;
  readonly hash: number;
  /** The whole line as sent (prefix included). */
  readonly text: string;
}

/** The view prefixes found in a text, and the text without them. */
export interface ViewPrefixes {
  readonly prefixed: readonly PrefixedLine[];
  /** Lines of the text that are not blank. */
  readonly nonBlank: number;
  readonly cleaned: string;
}

/** The `N:hh|` prefixes of `text`, or undefined when no line has one. */
export function findViewPrefixes(text: string): ViewPrefixes | undefined {
  if (!text.includes("|")) return undefined;
  const lines = text.split("\n");
  const prefixed: PrefixedLine[] = [];
  let nonBlank = 0;
  const cleaned = lines.map((line, index) => {
    if (line.trim() !== "") nonBlank++;
    const m = VIEW_PREFIX.exec(line);
    if (!m) return line;
    prefixed.push({ index, line: Number(m[1]), hash: parseInt(m[2], 16), text: line });
    return line.slice(m[0].length);
  });
  return prefixed.length === 0 ? undefined : { prefixed, nonBlank, cleaned: cleaned.join("\n") };
}

/** True for a markdown fence line (```lang, ~~~). */
export function isFenceLine(line: string): boolean {
  return FENCE.test(line.replace(/\r$/, ""));
}

/** A text wholly wrapped in one code fence: what is inside it. */
export interface FenceWrapped {
  readonly inner: string;
  /** The info string after the opening fence ("ts"), "" when none. */
  readonly lang: string;
}

/** `text` without the code fence around all of it, or undefined when it is not wrapped in one. */
export function fenceWrapped(text: string): FenceWrapped | undefined {
  const lines = text.split("\n");
  let last = lines.length - 1;
  while (last > 0 && lines[last].trim() === "") last--;
  if (last < 1) return undefined;
  const open = /^[ \t]{0,3}(`{3,}|~{3,})\s*([^`\s]*)\s*$/.exec(lines[0].replace(/\r$/, ""));
  const close = /^[ \t]{0,3}(`{3,}|~{3,})\s*$/.exec(lines[last].replace(/\r$/, ""));
  if (!open || !close || close[1][0] !== open[1][0] || close[1].length < open[1].length) return undefined;
  // A fence line inside would make this two blocks with text between, not one wrapper.
  if (lines.slice(1, last).some((l) => isFenceLine(l) && l.trim().startsWith(open[1]))) return undefined;
  const body = lines.slice(1, last);
  const endsWithNewline = text.endsWith("\n") || last < lines.length - 1;
  return { inner: body.join("\n") + (endsWithNewline && body.length > 0 ? "\n" : ""), lang: open[2] };
}

/** Paths whose files are markdown, where fences are content. */
export function isMarkdownPath(path: string): boolean {
  return /\.(md|markdown|mdx|mdown|mkd|mkdn|qmd|rmd)$/i.test(path);
}

// How view and result diffs show a line too long to print whole (src/text/render.ts, src/text/diff.ts windowAround).
const SHORTENED_END = /… \[line truncated: (\d+) chars total\]$/;
const SHORTENED_START = /^… \[(\d+) chars before not shown\] /;

/** A line of a text that carries view's or a diff's shortening marker: a copy of a line the model never saw whole. */
export interface ShortenedLine {
  /** 0-based line of the text. */
  readonly index: number;
  /** The text between the markers (what the model kept of the shown part, with its change). */
  readonly visible: string;
  /** The end marker as sent ("… [line truncated: 2306 chars total]"), or the start marker when there is no end one. */
  readonly marker: string;
  /** N of the end marker: the whole line's length. */
  readonly total?: number;
  /** K of a diff window's start marker: characters before the part shown. */
  readonly before?: number;
}

/**
 * The lines of `text` that end with `… [line truncated: N chars total]`
 * where N is more than the line shows, or start with a diff window's
 * `… [K chars before not shown] `. A "\r" before the line end is ignored.
 */
export function findShortenedLines(text: string): ShortenedLine[] {
  if (!text.includes("… [")) return [];
  const out: ShortenedLine[] = [];
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index].replace(/\r$/, "");
    const end = SHORTENED_END.exec(line);
    const start = SHORTENED_START.exec(line);
    const before = start ? Number(start[1]) : undefined;
    const visible = line.slice(start ? start[0].length : 0, end ? end.index : line.length);
    const total = end ? Number(end[1]) : undefined;
    // "N chars total" at most what the line shows is not a shortened line (a line that documents the marker, say).
    if (total !== undefined && total > (before ?? 0) + visible.length) {
      out.push({ index, visible, marker: end![0], total, ...(before !== undefined ? { before } : {}) });
    } else if (before !== undefined && before > 0 && total === undefined) {
      out.push({ index, visible, marker: start![0].trimEnd(), before });
    }
  }
  return out;
}

/** Where a text holds half of a UTF-16 surrogate pair, which UTF-8 cannot store. */
export interface LoneSurrogate {
  /** 1-based line and column (UTF-16 units) of the text. */
  readonly line: number;
  readonly column: number;
  /** The code unit, e.g. 0xd800. */
  readonly code: number;
}

// A high half not followed by a low one, or a low half not after a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The first lone surrogate of `text`, or undefined when it is well-formed. */
export function findLoneSurrogate(text: string): LoneSurrogate | undefined {
  const m = LONE_SURROGATE.exec(text);
  if (!m) return undefined;
  const lineStart = text.lastIndexOf("\n", m.index - 1) + 1;
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < m.index; i = text.indexOf("\n", i + 1)) line++;
  return { line, column: m.index - lineStart + 1, code: m[0].charCodeAt(0) };
}
