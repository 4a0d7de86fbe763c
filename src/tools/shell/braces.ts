/**
 * Bash brace expansion of one word, enough to see the program a command
 * runs: `{cat,f}` is the two words `cat f`, `{c..c}at` is `cat`. Pure,
 * bounded: at most {@link MAX_BRACE_WORDS} results.
 */
import type { ShellWord } from "./lex.ts";

/** Most words one expansion yields; the rest are dropped (the first ones hold the program). */
export const MAX_BRACE_WORDS = 64;
const MAX_SEQUENCE = 64;

/** `[open, close, commas]` of the first top-level brace group that expands, or null. */
function findGroup(text: string, from: number): { open: number; close: number; parts: string[] } | null {
  for (let open = text.indexOf("{", from); open >= 0; open = text.indexOf("{", open + 1)) {
    if (open > 0 && text[open - 1] === "$") continue; // `${var}` is a parameter, not a brace group
    let depth = 0;
    const cuts: number[] = [];
    for (let i = open; i < text.length; i++) {
      const c = text[i];
      if (c === "\\") {
        i++;
        continue;
      }
      if (c === "{") depth++;
      else if (c === "}") {
        depth--;
        if (depth === 0) {
          const inner = text.slice(open + 1, i);
          if (cuts.length > 0) {
            const parts: string[] = [];
            let start = open + 1;
            for (const cut of cuts) {
              parts.push(text.slice(start, cut));
              start = cut + 1;
            }
            parts.push(text.slice(start, i));
            return { open, close: i, parts };
          }
          const sequence = sequenceParts(inner);
          if (sequence !== null) return { open, close: i, parts: sequence };
          break;
        }
      } else if (c === "," && depth === 1) cuts.push(i);
    }
  }
  return null;
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
    const group = findGroup(word, 0);
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
