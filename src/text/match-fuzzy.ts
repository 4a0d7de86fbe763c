/**
 * The whitespace-insensitive rung of the ladder: old_string's lines are
 * compared with windows of whole file lines after trimming each line and
 * collapsing whitespace runs. The normalised text is only ever a comparison
 * key: the edit replaces the matched lines with new_string's own lines, with
 * their indentation fitted to the file, and leaves everything else alone.
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

const TAB_WIDTH = 4;

function columns(indent: string): number {
  let width = 0;
  for (const ch of indent) width += ch === "\t" ? TAB_WIDTH : 1;
  return width;
}

/**
 * Re-indent `replacement` lines to the file: `needle` is old_string's lines
 * and `matched` the file lines they matched (same length). Each pair of
 * non-blank lines says how the model's indentation reads in the file (e.g.
 * 4 spaces -> 1 tab, "" -> 8 spaces); a replacement line takes the file
 * indentation of the longest matched model indentation that prefixes its own,
 * and the rest of its indentation is converted to the file's unit when the
 * pairs show one (spaces <-> tabs). A line shallower than every pair is
 * shifted by the width difference of the first non-blank pair. Blank lines
 * and line content are kept exactly as the model wrote them.
 */
export function fitIndentation(needle: readonly string[], matched: readonly string[], replacement: readonly string[]): string[] {
  const map = new Map<string, string>();
  let anchor: { model: string; file: string } | undefined;
  let identical = true;
  for (let i = 0; i < needle.length; i++) {
    if (needle[i].trim() === "") continue;
    const model = indentOf(needle[i]);
    const file = indentOf(matched[i]);
    if (model !== file) identical = false;
    if (!map.has(model)) map.set(model, file);
    anchor ??= { model, file };
  }
  if (identical || anchor === undefined) return replacement.slice();
  const convert = unitConversion(map);
  const { model: anchorModel, file: anchorFile } = anchor;

  return replacement.map((line) => {
    if (line.trim() === "") return line;
    const indent = indentOf(line);
    const rest = line.slice(indent.length);
    let best: string | undefined;
    for (const model of map.keys()) {
      if (indent.startsWith(model) && (best === undefined || model.length > best.length)) best = model;
    }
    if (best !== undefined) return map.get(best) + convert(indent.slice(best.length)) + rest;
    const width = Math.max(0, columns(indent) + columns(anchorFile) - columns(anchorModel));
    const useTabs = anchorFile.includes("\t") && width % TAB_WIDTH === 0;
    return (useTabs ? "\t".repeat(width / TAB_WIDTH) : " ".repeat(width)) + rest;
  });
}

/**
 * From the indentation pairs, how extra model indentation reads in the file:
 * spaces -> tabs when a pair maps N*k spaces to k tabs, tabs -> spaces when a
 * pair maps k tabs to N*k spaces; otherwise unchanged.
 */
function unitConversion(map: ReadonlyMap<string, string>): (extra: string) => string {
  for (const [model, file] of map) {
    if (/^ +$/.test(model) && /^\t+$/.test(file) && model.length % file.length === 0) {
      const unit = " ".repeat(model.length / file.length);
      return (extra) => extra.split(unit).join("\t");
    }
    if (/^\t+$/.test(model) && /^ +$/.test(file) && file.length % model.length === 0) {
      const unit = " ".repeat(file.length / model.length);
      return (extra) => extra.split("\t").join(unit);
    }
  }
  return (extra) => extra;
}
