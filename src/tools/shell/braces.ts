/**
 * Bash brace expansion of one word, enough to see the program a command
 * runs: `{cat,f}` is the two words `cat f`, `{c..c}at` is `cat`. Pure,
 * bounded: at most {@link MAX_BRACE_WORDS} results.
 */
import type { ShellWord } from "./lex.ts";

/** Most words one expansion yields; the rest are dropped (the first ones hold the program). */
export const MAX_BRACE_WORDS = 64;
const MAX_SEQUENCE = 64;

/**
 * The first brace group to close that expands (`{a,b}` with a comma at its
 * own level, or a `{x..y}` sequence), or null. One pass with a stack, so a
 * word of many unclosed braces costs its length, not its length squared.
 */
function findGroup(text: string): { open: number; close: number; parts: string[] } | null {
  const stack: { open: number; param: boolean; cuts: number[] }[] = [];
  // An expanding group inside another waits: the outer one, if it expands too, goes first (as in bash).
  let found: { open: number; close: number; parts: string[] } | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") {
      i++;
    } else if (c === "{") {
      // `${var}` is a parameter, not a brace group; its braces still pair up.
      stack.push({ open: i, param: i > 0 && text[i - 1] === "$", cuts: [] });
    } else if (c === "," && stack.length > 0) {
      stack[stack.length - 1].cuts.push(i);
    } else if (c === "}" && stack.length > 0) {
      const group = stack.pop()!;
      const parts = group.param ? null : groupParts(text, group.open, i, group.cuts);
      if (parts !== null) found = { open: group.open, close: i, parts };
      if (found !== null && stack.length === 0) return found;
    }
  }
  return found;
}

/** The alternatives of the group `[open, close]`, or null when it does not expand. */
function groupParts(text: string, open: number, close: number, cuts: readonly number[]): string[] | null {
  if (cuts.length === 0) return sequenceParts(text.slice(open + 1, close));
  const parts: string[] = [];
  let from = open + 1;
  for (const cut of cuts) {
    parts.push(text.slice(from, cut));
    from = cut + 1;
  }
  parts.push(text.slice(from, close));
  return parts;
}

/** `a..e` or `1..5` (an optional step ignored): the items, or null when not a small sequence. */
function sequenceParts(inner: string): string[] | null {
  const m = /^(-?\d{1,6}|[A-Za-z])\.\.(-?\d{1,6}|[A-Za-z])(?:\.\.-?\d{1,6})?$/.exec(inner);
  if (m === null) return null;
  const numeric = /\d/.test(m[1]);
  if (numeric !== /\d/.test(m[2])) return null;
  const from = numeric ? Number(m[1]) : m[1].charCodeAt(0);
  const to = numeric ? Number(m[2]) : m[2].charCodeAt(0);
  if (Math.abs(to - from) >= MAX_SEQUENCE) return null;
  const step = from <= to ? 1 : -1;
  const out: string[] = [];
  for (let v = from; v !== to + step; v += step) out.push(numeric ? String(v) : String.fromCharCode(v));
  return out;
}

/** The words bash makes of `text` by brace expansion (`[text]` when nothing expands). */
export function expandBraces(text: string): string[] {
  const out: string[] = [];
  const queue = [text];
  // Breadth first with a cap: each step expands the first group of one word.
  while (queue.length > 0 && out.length + queue.length <= MAX_BRACE_WORDS * 4) {
    const word = queue.shift()!;
    const group = findGroup(word);
    if (group === null) {
      out.push(word);
      if (out.length >= MAX_BRACE_WORDS) break;
      continue;
    }
    const prefix = word.slice(0, group.open);
    const suffix = word.slice(group.close + 1);
    queue.unshift(...group.parts.map((part) => prefix + part + suffix));
  }
  return out.length > 0 ? out : [text];
}

/**
 * The command's words after brace expansion. A word expands when it has no
 * substitution and its first `{` is unquoted (bash never expands a quoted
 * brace); an expansion to nothing but itself leaves the word as it was.
 */
export function expandWords(words: readonly ShellWord[]): readonly ShellWord[] {
  let out: ShellWord[] | null = null;
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (out !== null && out.length >= MAX_BRACE_WORDS * 64) {
      out.push(word); // a bound on the whole command: its program and first operands are long expanded
      continue;
    }
    const brace = word.text.indexOf("{");
    const expands = !word.dynamic && brace >= 0 && brace < word.plainPrefix && (word.text.includes(",") || word.text.includes(".."));
    const parts = expands ? expandBraces(word.text) : null;
    if (parts === null || (parts.length === 1 && parts[0] === word.text)) {
      out?.push(word);
      continue;
    }
    out ??= words.slice(0, i);
    for (const text of parts) out.push({ ...word, text, plainPrefix: word.quoted ? 0 : text.length });
  }
  return out ?? words;
}
