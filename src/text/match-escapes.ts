/**
 * Escaped-literal recovery: a model sometimes over-escapes its tool call and
 * sends the two characters `\` `n` where it meant a newline.
 *
 * Only `\n`, `\t` and `\r\n` are interpreted. `\r\n` becomes "\n" because the
 * ladder works on LF text (the file's own terminators are kept by the tool).
 * `\"`, `\\`, `\r` alone and every other escape are left as they are: they
 * occur legitimately in source (string literals, regexes, Windows paths), and
 * reinterpreting them would silently rewrite code the model meant literally.
 * A `\\` pair is kept whole and never starts an escape, so `\\n` (a literal
 * backslash before `n`, as in a regex) is never turned into a newline.
 */

/**
 * `text` with literal `\n` / `\r\n` read as "\n" and `\t` as a tab (rules in
 * the module comment). Returns `text` itself when there is nothing to read.
 */
export function interpretEscapes(text: string): string {
  if (!text.includes("\\")) return text;
  const out: string[] = [];
  let from = 0;
  let i = text.indexOf("\\");
  while (i !== -1 && i + 1 < text.length) {
    const next = text[i + 1];
    let read: string | undefined;
    let width = 2;
    if (next === "n") read = "\n";
    else if (next === "t") read = "\t";
    else if (next === "r" && text.startsWith("\\n", i + 2)) {
      read = "\n";
      width = 4;
    }
    if (read !== undefined) {
      out.push(text.slice(from, i), read);
      from = i + width;
      i = text.indexOf("\\", from);
    } else {
      // Skip a "\\" pair as a unit so its second backslash starts nothing.
      i = text.indexOf("\\", next === "\\" ? i + 2 : i + 1);
    }
  }
  if (out.length === 0) return text;
  out.push(text.slice(from));
  return out.join("");
}

/**
 * Whether new_string should get the same reading as an old_string that only
 * matched with escapes interpreted. It should when it looks over-escaped in
 * the same way: it has escapes to read and no real newline. A new_string
 * that already contains real newlines was not over-escaped, so its `\n` are
 * taken as intended code (e.g. inside a string literal) and left alone.
 */
export function shouldInterpretNewString(newString: string): boolean {
  return !newString.includes("\n") && interpretEscapes(newString) !== newString;
}

/** Where the readable escapes (`\n`, `\t`, `\r\n`) of a text sit: inside a quoted literal or not. */
export interface EscapePlaces {
  /** Readable escapes outside any quoted literal. */
  readonly outside: number;
  /** Readable escapes inside a '…', "…" or `…` literal: in code these are meant as escapes. */
  readonly inside: number;
  /** The text with only the escapes outside quoted literals read (inside ones kept as written). */
  readonly outsideRead: string;
}

/**
 * Classify the readable escapes of a one-line text by quoting. The scan is
 * lexical and deliberately simple: a quote opens a literal until the same
 * quote closes it, a backslash pair is skipped whole. A stray apostrophe
 * (`don't`) opens a literal too, which only ever makes a reading look
 * ambiguous, so the caller refuses instead of guessing; never the reverse.
 */
export function escapePlaces(text: string): EscapePlaces {
  let outside = 0;
  let inside = 0;
  let quote: string | undefined;
  const out: string[] = [];
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\" && i + 1 < text.length) {
      const next = text[i + 1];
      const width = next === "n" || next === "t" ? 2 : next === "r" && text.startsWith("\\n", i + 2) ? 4 : 0;
      if (width > 0) {
        if (quote === undefined) {
          outside++;
          out.push(text.slice(from, i), next === "t" ? "\t" : "\n");
          from = i + width;
        } else inside++;
        i += width - 1;
      } else i++; // any other escape pair (\\, \", \') starts nothing and closes nothing
      continue;
    }
    if (quote === undefined ? c === '"' || c === "'" || c === "`" : c === quote) quote = quote === undefined ? c : undefined;
  }
  out.push(text.slice(from));
  return { outside, inside, outsideRead: out.join("") };
}
