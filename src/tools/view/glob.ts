/**
 * Glob patterns for `view`'s `pattern` argument, compiled to RE2.
 *
 * Why not picomatch: it compiles a glob to a backtracking JS RegExp, and a
 * model-written glob such as `*a*a*a*a*a*a*b` against an 80-character name
 * took seven seconds there (measured). Here the same syntax becomes an RE2
 * program, which matches in time linear in the path, so no pattern can stall
 * the server.
 *
 * Syntax: `*` (any run within one segment), `?` (one character but "/"),
 * `**` as a whole segment (any number of segments, including none),
 * `[abc]`, `[a-z]`, `[!abc]`/`[^abc]`, `{a,b}` (nestable), `\x` (literal x).
 * Dot-names are matched like any other; hiding them is the walk's job.
 */

import { RE2JS } from "re2js";

/** A compiled glob, or why the text is not one (a sentence for the model). */
export type CompiledGlob = { readonly ok: true; readonly test: (path: string) => boolean } | { readonly ok: false; readonly message: string };

const REGEX_META = /[\\^$.|?*+()[\]{}]/;

function literal(ch: string): string {
  return REGEX_META.test(ch) ? `\\${ch}` : ch;
}

/** RE2 source for a glob (anchoring is the caller's), or an error message. */
export function globToRegex(glob: string): { ok: true; source: string } | { ok: false; message: string } {
  let out = "";
  let braces = 0;
  let i = 0;
  const n = glob.length;
  const segmentStart = (at: number) => at === 0 || glob[at - 1] === "/";
  while (i < n) {
    const ch = glob[i];
    if (ch === "*") {
      let j = i;
      while (j < n && glob[j] === "*") j++;
      const wholeSegment = j - i >= 2 && segmentStart(i) && (j === n || glob[j] === "/");
      if (wholeSegment) {
        if (j === n) {
          // "a/**": the directory's contents at any depth (and "a" itself); "**" alone: anything.
          if (out.endsWith("/"))
            out = `${out.slice(0, -1)}(?:/.*)?`; // drop the "/" just written
          else out += ".*";
          i = j;
        } else {
          // "**/": zero or more whole segments.
          out += "(?:[^/]*/)*";
          i = j + 1;
        }
      } else {
        out += "[^/]*";
        i = j;
      }
      continue;
    }
    if (ch === "?") {
      out += "[^/]";
      i++;
      continue;
    }
    if (ch === "[") {
      const cls = bracket(glob, i);
      if (cls) {
        out += cls.source;
        i = cls.end;
      } else {
        out += "\\[";
        i++;
      }
      continue;
    }
    if (ch === "{") {
      braces++;
      out += "(?:";
      i++;
      continue;
    }
    if (ch === "}" && braces > 0) {
      braces--;
      out += ")";
      i++;
      continue;
    }
    if (ch === "," && braces > 0) {
      out += "|";
      i++;
      continue;
    }
    if (ch === "\\") {
      if (i + 1 >= n) return { ok: false, message: 'pattern ends with a lone "\\"; escape it as "\\\\" or remove it' };
      out += literal(glob[i + 1]);
      i += 2;
      continue;
    }
    out += literal(ch);
    i++;
  }
  if (braces > 0) {
    return { ok: false, message: 'pattern has a "{" without its closing "}"; alternatives look like "*.{ts,tsx}"' };
  }
  return { ok: true, source: out };
}

/** `[...]` starting at `at`: its RE2 class and where it ends, or null when unclosed (then "[" is literal). */
function bracket(glob: string, at: number): { source: string; end: number } | null {
  let i = at + 1;
  let negate = false;
  if (glob[i] === "!" || glob[i] === "^") {
    negate = true;
    i++;
  }
  let body = "";
  let first = true;
  while (i < glob.length) {
    const ch = glob[i];
    if (ch === "]" && !first) {
      // A class never matches "/" (it is not part of any one name).
      return { source: negate ? `[^/${body}]` : `(?:[${body}])`, end: i + 1 };
    }
    if (ch === "\\" && i + 1 < glob.length) {
      body += `\\${glob[i + 1]}`;
      i += 2;
    } else {
      body += ch === "[" || ch === "]" || ch === "^" ? `\\${ch}` : ch;
      i++;
    }
    first = false;
  }
  return null;
}

/**
 * Compile `glob` into a whole-path matcher. A glob without "/" matches the
 * last segment (a name at any depth: "*.md"); one with "/" matches the whole
 * path, which the caller may try in more than one form.
 */
export function compileGlob(glob: string): CompiledGlob {
  const translated = globToRegex(glob);
  if (!translated.ok) return translated;
  let re: RE2JS;
  try {
    re = RE2JS.compile(`^(?:${translated.source})$`);
  } catch (error) {
    return { ok: false, message: `pattern ${JSON.stringify(glob)} is not a valid glob (${(error as Error).message})` };
  }
  if (glob.includes("/")) return { ok: true, test: (path) => re.test(path) };
  return { ok: true, test: (path) => re.test(path.slice(path.lastIndexOf("/") + 1)) };
}
