/**
 * What an RE2 match costs, in the one unit every RE2 budget here counts
 * (user rules, `src/rules/pattern.ts`; `view` searches,
 * `src/tools/view/search-work.ts`): instructions x characters. Pure.
 *
 * RE2 (`re2js`) is linear in the input whatever the pattern, but linear is
 * not free: when its lazy DFA gives up (too many states, as with
 * `[^\n]{1000}` repeated, or `[ab]*a[ab]{20}` on text of a and b), the NFA
 * fallback steps every live instruction once per character, so one match
 * of a program of n instructions over m characters does up to n x m steps.
 * Measured on the project's 2-core machine (Bun 1.4, re2js 2.10,
 * `RE2JS.test`): 12-19 ns per unit for programs of 1,000-10,000
 * instructions and up to 45 ns per unit for DFA-defeating programs of about
 * 20; ordinary patterns the DFA runs cost 0.1-0.5 ns per unit (1.5-10 ns a
 * character). Finding where a match starts (`matcher(text).find()`, group
 * 0 only) runs the NFA with no DFA first: up to 39 ns per unit, within a
 * test's worst. `exec` then matches again tracking every capture group, at a
 * cost that grows with their number (80-440 ns per unit for 180-720
 * groups): no metered call uses it.
 */
import type { RE2JS } from "re2js";

/** Work, in instructions x characters, of one match of a program of `programSize` instructions over `chars` characters. */
export function re2Work(programSize: number, chars: number): number {
  return Math.max(1, programSize) * chars;
}

/** Most characters a program of `programSize` instructions may read within `work` instructions x characters. */
export function re2CharsWithin(work: number, programSize: number): number {
  return Math.floor(work / Math.max(1, programSize));
}

/** Instructions `re2` compiled to: the n of {@link re2Work}. */
export function re2ProgramSize(re2: RE2JS): number {
  return re2.programSize();
}

/**
 * An upper estimate of the instructions `source` compiles to, read from its
 * text without compiling it: literals, classes and escapes count 1, a group
 * 2 more, an alternation 1 per "|", `*` `+` `?` 2 (a split, and a no-op
 * when what they repeat can match empty), and a counted repeat `x{n,m}`
 * copies x max(n, m) times (plus 2 per copy), as RE2 does (it has no
 * counters). Compiling `[^\n]{1000}` repeated 100 times takes 30 ms and
 * 100,000 instructions before anything can be refused; this reads it in
 * microseconds. RE2 can only come out smaller (it merges alternatives that
 * share a prefix, drops empty groups), so a pattern whose estimate is far
 * over a bound is refused on it; near the bound, compile and count.
 * Counts past `stopAbove` stop the walk (the answer is then above it).
 */
export function estimateProgramSize(source: string, stopAbove = Number.POSITIVE_INFINITY): number {
  // Each open group: the size of its finished alternatives, and of the current one.
  const stack: { done: number; branch: number; last: number; alternatives: number }[] = [];
  let done = 0; // finished alternatives of the current level
  let alternatives = 0; // "|" seen at the current level
  let branch = 0; // size of the current alternative
  let last = 0; // size of the last atom (what a quantifier applies to)
  const atom = (size: number) => {
    branch += size;
    last = size;
  };
  const repeat = (copies: number) => {
    // `last` becomes `copies` copies of itself, each with a split (and maybe a no-op) instruction.
    branch += copies * (last + 2) - last;
    last = copies * (last + 2);
  };
  let i = 0;
  const n = source.length;
  while (i < n) {
    if (done + branch > stopAbove) return done + branch;
    const c = source[i];
    if (c === "\\") {
      const next = source[i + 1] ?? "";
      if (next === "Q") {
        const end = source.indexOf("\\E", i + 2);
        const stop = end === -1 ? n : end;
        for (let k = i + 2; k < stop; k++) atom(1);
        i = end === -1 ? n : end + 2;
        continue;
      }
      if ((next === "p" || next === "P" || next === "x") && source[i + 2] === "{") {
        const close = source.indexOf("}", i + 3);
        i = close === -1 ? n : close + 1;
      } else if (next === "x") {
        i += 4;
      } else if (next === "p" || next === "P") {
        i += 3;
      } else {
        i += 2;
      }
      atom(1);
      continue;
    }
    if (c === "[") {
      // A class is one instruction; skip to its end ("]" right after "[" or "[^" is a member).
      let k = i + 1;
      if (source[k] === "^") k++;
      if (source[k] === "]") k++;
      while (k < n && source[k] !== "]") {
        if (source[k] === "\\") k++;
        else if (source[k] === "[" && source[k + 1] === ":") {
          const close = source.indexOf(":]", k + 2);
          if (close !== -1) k = close + 1;
        }
        k++;
      }
      i = k + 1;
      atom(1);
      continue;
    }
    if (c === "(") {
      if (source.startsWith("(?", i) && !source.startsWith("(?P<", i) && !source.startsWith("(?<", i) && !source.startsWith("(?:", i)) {
        // Flags: "(?i)" sets them for the rest; "(?i:" opens a group like "(?:".
        let k = i + 2;
        while (k < n && /[a-zA-Z-]/.test(source[k])) k++;
        if (source[k] === ")") {
          i = k + 1;
          continue;
        }
      }
      stack.push({ done, branch, last, alternatives });
      done = 0;
      branch = 0;
      last = 0;
      alternatives = 0;
      i++;
      continue;
    }
    if (c === ")") {
      const inner = done + branch + alternatives;
      const outer = stack.pop();
      if (outer) {
        ({ done, branch, alternatives } = outer);
      } else {
        // An unbalanced ")" does not compile; count what there is.
        done = 0;
        branch = 0;
        alternatives = 0;
      }
      atom(inner + 2);
      i++;
      continue;
    }
    if (c === "|") {
      done += branch;
      alternatives++;
      branch = 0;
      last = 0;
      i++;
      continue;
    }
    if (c === "*" || c === "+" || c === "?") {
      repeat(1);
      i++;
      // A lazy or possessive mark after a quantifier adds nothing.
      if (source[i] === "?" || source[i] === "+") i++;
      continue;
    }
    if (c === "{") {
      const counted = /^\{(\d+)(?:(,)(\d*))?\}/.exec(source.slice(i, i + 24));
      if (counted) {
        const min = Number(counted[1]);
        const max = counted[2] === undefined ? min : counted[3] === "" ? min + 1 : Number(counted[3]);
        repeat(Math.max(1, min, max));
        i += counted[0].length;
        if (source[i] === "?") i++;
        continue;
      }
    }
    atom(1);
    i++;
  }
  // Unclosed groups (a syntax error RE2 reports) count what they hold.
  let total = done + branch + alternatives;
  while (stack.length > 0) {
    const outer = stack.pop()!;
    total = outer.done + outer.branch + outer.alternatives + total + 2;
  }
  // Every program has a match and a fail instruction.
  return total + 2;
}
