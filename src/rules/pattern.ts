/**
 * Compiling a user rule's pattern to RE2. Pure.
 *
 * User rules run on RE2 (`re2js`): matching is linear in the input whatever
 * the pattern, so `(a+)+$` against `aaaa…!` costs no more than a literal.
 * Linear is not free, though: RE2's fallback engine does work proportional
 * to program size x input length. Each rule therefore gets a work budget,
 * {@link RULE_SCAN_WORK}: a rule of n instructions reads at most
 * `RULE_SCAN_WORK / n` characters of each scanned window (head and tail
 * halves when a window is longer), and a pattern over
 * {@link MAX_RULE_PROGRAM} instructions is refused at load. The unit and its
 * measurements are shared with `view` searches: `src/text/re2-work.ts`.
 */
import { RE2JS } from "re2js";
import { re2CharsWithin, re2ProgramSize } from "../text/re2-work.ts";

/** Instructions x characters one rule may spend on one scanned window (about 2 s worst case in JS, measured). */
export const RULE_SCAN_WORK = 64 * 1024 * 1024;

/** Largest RE2 program a user rule may compile to; its window is then RULE_SCAN_WORK / 4096 = 16 Ki characters. */
export const MAX_RULE_PROGRAM = 4096;

/** A compiled pattern: where the first hit is, if any. */
export interface PatternHit {
  readonly start: number;
  readonly end: number;
}

/** A user pattern compiled to RE2, or why it cannot be. */
export type CompiledPattern =
  | { readonly ok: true; readonly re2: RE2JS; readonly programSize: number; readonly scanChars: number }
  | { readonly ok: false; readonly problem: string };

const LOOKAROUND_ADVICE: Record<string, string> = {
  "(?=":
    'lookahead "(?=" is not supported (rules run on RE2, which has no lookaround): match the following text as part of the pattern instead, e.g. "foo(?=bar)" -> "foobar" (the excerpt shows the whole hit)',
  "(?!":
    'negative lookahead "(?!" is not supported (rules run on RE2, which has no lookaround): spell out what may follow with a negated class, e.g. "foo(?!bar)" -> "foo(?:$|[^b]|b[^a]|ba[^r])", or match the wanted shape exactly',
  "(?<=":
    'lookbehind "(?<=" is not supported (rules run on RE2, which has no lookaround): match the preceding text as part of the pattern instead, e.g. "(?<=bar)foo" -> "barfoo"',
  "(?<!":
    'negative lookbehind "(?<!" is not supported (rules run on RE2, which has no lookaround): anchor the pattern instead, e.g. "(?<!x)foo" -> "(?:^|[^x])foo" with flag m',
};

/**
 * The first construct RE2 cannot express (backreference, lookaround), with
 * how to rewrite it; undefined when there is none. Escapes and character
 * classes are skipped, so `\(?=` and `[(?=]` are literals, not lookahead.
 */
export function unsupportedConstruct(source: string): string | undefined {
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      const next = source[i + 1] ?? "";
      if (!inClass && /[1-9]/.test(next)) {
        return `backreference "\\${next}" is not supported (rules run on RE2, which has no backreferences): spell the repeated text out, e.g. "(a|b)\\1" -> "aa|bb", or match the first occurrence only`;
      }
      if (!inClass && next === "k" && source[i + 2] === "<") {
        return 'named backreference "\\k<...>" is not supported (rules run on RE2, which has no backreferences): spell the repeated text out, or match the first occurrence only';
      }
      i++;
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      continue;
    }
    if (c === "[") {
      inClass = true;
      // A "]" right after "[" or "[^" is a literal member, not the end.
      if (source[i + 1] === "^") i++;
      if (source[i + 1] === "]") i++;
      continue;
    }
    if (c === "(") {
      for (const opener of ["(?<=", "(?<!", "(?=", "(?!"]) {
        if (source.startsWith(opener, i)) return LOOKAROUND_ADVICE[opener];
      }
    }
  }
  return undefined;
}

/** JavaScript escapes RE2 spells differently: `\uFFFD` and `\u{1F600}` become `\x{FFFD}` and `\x{1F600}`. */
export function toRe2Syntax(source: string): string {
  let out = "";
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c !== "\\") {
      out += c;
      continue;
    }
    const rest = source.slice(i + 1);
    const braced = /^u\{([0-9A-Fa-f]{1,6})\}/.exec(rest);
    const plain = /^u([0-9A-Fa-f]{4})/.exec(rest);
    const hit = braced ?? plain;
    if (hit) {
      out += `\\x{${hit[1]}}`;
      i += hit[0].length;
    } else {
      out += c + (source[i + 1] ?? "");
      i++;
    }
  }
  return out;
}

/** RE2 flags for the rule flags i, m, s (u changes nothing: RE2 always matches code points). */
function re2Flags(flags: string): number {
  let out = 0;
  if (flags.includes("i")) out |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes("m")) out |= RE2JS.MULTILINE;
  if (flags.includes("s")) out |= RE2JS.DOTALL;
  return out;
}

/** Compile a user rule's `pattern` with its `flags` (already validated to be some of i, m, s, u). */
export function compileRe2(source: string, flags: string): CompiledPattern {
  const unsupported = unsupportedConstruct(source);
  if (unsupported !== undefined) return { ok: false, problem: unsupported };
  let re2: RE2JS;
  try {
    re2 = RE2JS.compile(toRe2Syntax(source), re2Flags(flags));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { ok: false, problem: `invalid pattern: ${why} (rules use RE2 syntax: no lookaround, no backreferences, repeat counts up to 1000)` };
  }
  const programSize = re2ProgramSize(re2);
  if (programSize > MAX_RULE_PROGRAM) {
    return {
      ok: false,
      problem: `pattern compiles to ${programSize} RE2 instructions, more than ${MAX_RULE_PROGRAM}: replace large counted repetitions such as [^\\n]{0,500} with [^\\n]* (RE2 stays linear without them), or split the rule in two`,
    };
  }
  return { ok: true, re2, programSize, scanChars: re2CharsWithin(RULE_SCAN_WORK, programSize) };
}

/** The first hit of `re2` in `text`. The DFA-backed `test` answers most texts; only a hit pays for `exec`. */
export function findRe2(re2: RE2JS, text: string): PatternHit | undefined {
  if (!re2.test(text)) return undefined;
  const hit = re2.exec(text) as RegExpExecArray | null;
  return hit === null ? undefined : { start: hit.index, end: hit.index + hit[0].length };
}
