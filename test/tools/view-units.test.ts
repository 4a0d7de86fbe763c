import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { RE2JS } from "re2js";
import { splitLines } from "../../src/text/lines.ts";
import { describeContent } from "../../src/tools/view/directory.ts";
import { ignoreLayer, isIgnored } from "../../src/tools/view/gitignore.ts";
import { compileGlob } from "../../src/tools/view/glob.ts";
import { createSearcher, indexLines, lineAt, normalizeEndings } from "../../src/tools/view/matcher.ts";
import { resolveRange } from "../../src/tools/view/range.ts";
import { COUNT_CAP } from "../../src/tools/view/search.ts";
import { makeContext, seed } from "../helpers/tool-context.ts";
import { view } from "../helpers/tool-view.ts";

const enc = new TextEncoder();

/** The lines of `text` as the tools split them, and the 0-based indices for which `test` holds. */
function naive(text: string, test: (line: string) => boolean): number[] {
  return splitLines(text).lines.flatMap((line, i) => (test(line) ? [i] : []));
}

function search(text: string, content: string, regex = false, caseSensitive = true): number[] {
  const made = createSearcher({ content, regex, caseSensitive });
  if (!made.ok) throw new Error(made.message);
  const normalized = normalizeEndings(text);
  return made.searcher.mayMatch(normalized) ? made.searcher.matchLines(normalized, indexLines(normalized)) : [];
}

const lineArb = fc.array(fc.constantFrom("a", "b", "A", "B", " ", "\r", "é", "İ", "x"), { maxLength: 12 }).map((c) => c.join(""));
const textArb = fc
  // Full length (fast-check's default size stops at 10 lines): past the 16 line starts an index begins with.
  .tuple(fc.array(fc.tuple(lineArb, fc.constantFrom("\n", "\r\n")), { maxLength: 40, size: "max" }), lineArb)
  .map(([lines, tail]) => lines.map(([l, e]) => l + e).join("") + tail);

describe("matcher", () => {
  test("line index agrees with splitLines for any text", () => {
    fc.assert(
      fc.property(textArb, (text) => {
        const normalized = normalizeEndings(text);
        const index = indexLines(normalized);
        const lines = Array.from({ length: index.count }, (_, i) => lineAt(normalized, index, i));
        expect(lines).toEqual(splitLines(text).lines);
      }),
      { numRuns: 500 },
    );
  });

  test("a single-line literal finds exactly the lines that contain it (both case modes)", () => {
    const needleArb = fc.array(fc.constantFrom("a", "b", "A", " ", "é", "x"), { minLength: 1, maxLength: 3 }).map((c) => c.join(""));
    fc.assert(
      fc.property(textArb, needleArb, (text, needle) => {
        expect(search(text, needle)).toEqual(naive(text, (l) => l.includes(needle)));
        expect(search(text, needle, false, false)).toEqual(naive(text, (l) => l.toLowerCase().includes(needle.toLowerCase())));
      }),
      { numRuns: 500 },
    );
  });

  test("a regex matches per line; the whole-chunk pre-check never loses a line, across chunk boundaries too", () => {
    const patterns = ["^a", "b$", "\\bab", "a\\B", "^$", "a+b", "[^a]", "x|^B", "(?i)a$", "\\Aa", "(?-m)^a"];
    const bigTextArb = fc.tuple(textArb, fc.integer({ min: 1, max: 2500 })).map(([text, times]) => `${"filler line\n".repeat(times)}${text}`);
    fc.assert(
      fc.property(bigTextArb, fc.constantFrom(...patterns), (text, pattern) => {
        const re = RE2JS.compile(pattern);
        expect(search(text, pattern, true)).toEqual(naive(text, (l) => re.test(l)));
      }),
      { numRuns: 150 },
    );
  });

  test("lines whose lower-case form changes length (İ) still match case-insensitively", () => {
    expect(search("İx\nab\nAB\n", "ab", false, false)).toEqual([1, 2]);
    expect(search("İx\nab\nAB\n", "i̇x", false, false)).toEqual([0]);
  });

  test("a literal spanning lines marks every line it covers, not a line it only touches with the newline", () => {
    expect(search("a\nfoo\nbar\nb\n", "foo\nbar")).toEqual([1, 2]);
    expect(search("a\nfoo\nbar\nb\n", "\nbar")).toEqual([2]);
    expect(search("a\r\nfoo\r\nbar\r\n", "foo\nb")).toEqual([1, 2]);
  });

  test("a literal spanning lines marks the lines each occurrence covers, in a long file (property)", () => {
    /** Lines any occurrence covers (its content or its "\n"), except a line whose "\n" the occurrence only starts on. */
    const covered = (text: string, needle: string, fold: boolean): number[] => {
      const t = fold ? normalizeEndings(text).toLowerCase() : normalizeEndings(text);
      const n = fold ? normalizeEndings(needle).toLowerCase() : normalizeEndings(needle);
      const starts = t.length === 0 ? [] : [0];
      for (let nl = t.indexOf("\n"); nl !== -1 && nl + 1 < t.length; nl = t.indexOf("\n", nl + 1)) starts.push(nl + 1);
      const hit = new Set<number>();
      for (let p = t.indexOf(n); p !== -1; p = t.indexOf(n, p + 1)) {
        starts.forEach((start, line) => {
          const nl = line + 1 < starts.length ? starts[line + 1] - 1 : t.length - (t.endsWith("\n") ? 1 : 0);
          if (p <= nl && p + n.length > start && p !== nl) hit.add(line);
        });
      }
      return [...hit].sort((a, b) => a - b);
    };
    const piece = fc.constantFrom("a", "b", "A", "\n", "\r\n", " ", "é", "İ", "\r");
    fc.assert(
      fc.property(textArb, fc.array(piece, { minLength: 1, maxLength: 4 }), fc.nat(), fc.boolean(), fc.boolean(), (text, parts, at, fromText, fold) => {
        // Half the needles are cut from the text itself (so they occur), the rest made up.
        const normalized = normalizeEndings(text);
        const len = parts.join("").length;
        const needle = fromText && normalized.length > 0 ? normalized.slice(at % normalized.length, (at % normalized.length) + len) : parts.join("");
        if (!needle.includes("\n") || needle === "") return;
        expect(search(text, needle, false, !fold)).toEqual(covered(text, needle, fold));
      }),
      { numRuns: 500 },
    );
  });
});

describe("glob", () => {
  const cases: [string, string, boolean][] = [
    ["**/*.ts", "a.ts", true],
    ["**/*.ts", "src/a/b.ts", true],
    ["**/*.ts", "src/a.tsx", false],
    ["*.md", "docs/x/README.md", true],
    ["src/**", "src", true],
    ["src/**", "src/a/b", true],
    ["src/**", "srcx/a", false],
    ["src/*.ts", "src/a.ts", true],
    ["src/*.ts", "src/x/a.ts", false],
    ["{src,test}/**/*.{ts,js}", "test/x/y.js", true],
    ["[!a]*.ts", "b.ts", true],
    ["[!a]*.ts", "a.ts", false],
    ["[a-c]x", "bx", true],
    ["file?.txt", "file1.txt", true],
    ["file?.txt", "file12.txt", false],
    ["a\\*b", "a*b", true],
    ["a\\*b", "axb", false],
    ["a/**/b", "a/b", true],
    ["a/**/b", "a/x/y/b", true],
    ["a.b", "axb", false],
    ["[abc", "[abc", true],
    ["*a*a*a*a*a*a*a*a*b", `x/${"a".repeat(250)}`, false],
  ];
  for (const [glob, path, want] of cases) {
    test(`${glob} ${want ? "matches" : "does not match"} ${path}`, () => {
      const compiled = compileGlob(glob);
      if (!compiled.ok) throw new Error(compiled.message);
      expect(compiled.test(path)).toBe(want);
    });
  }

  test("malformed globs are refused with the right form", () => {
    expect(compileGlob("*.{ts")).toEqual({
      ok: false,
      message: 'pattern has a "{" without its closing "}"; alternatives look like "*.{ts,tsx}"',
    });
    expect(compileGlob("a\\").ok).toBe(false);
  });
});

describe("gitignore layers", () => {
  test("the deepest file with a verdict decides; directory-only rules need the directory flag", () => {
    const layers = [ignoreLayer("", "*.tmp\nbuild/\n/top.txt\n"), ignoreLayer("src", "!keep.tmp\nlocal.txt\n")];
    expect(isIgnored(layers, "a.tmp", false)).toBe(true);
    expect(isIgnored(layers, "src/keep.tmp", false)).toBe(false);
    expect(isIgnored(layers, "src/other.tmp", false)).toBe(true);
    expect(isIgnored(layers, "src/build", true)).toBe(true);
    expect(isIgnored(layers, "src/build", false)).toBe(false);
    expect(isIgnored(layers, "top.txt", false)).toBe(true);
    expect(isIgnored(layers, "src/top.txt", false)).toBe(false);
    expect(isIgnored(layers, "src/local.txt", false)).toBe(true);
    expect(isIgnored(layers, "local.txt", false)).toBe(false);
    expect(isIgnored(layers, "A.TMP", false)).toBe(false); // case-sensitive, as git is by default
  });
});

describe("range", () => {
  const hashes = new Uint8Array([1, 2, 3, 4, 5]);
  const hashAt = (n: number) => hashes[n - 1];

  test("any non-zero bounds either resolve inside the file or are refused as start after end", () => {
    const bound = fc.oneof(
      fc.integer({ min: -20, max: 20 }).filter((n) => n !== 0),
      fc.constant(undefined),
    );
    fc.assert(
      fc.property(bound, bound, fc.integer({ min: 1, max: 5 }), (start, end, total) => {
        const r = resolveRange(start, end, total, hashAt);
        if (r.ok) {
          expect(1 <= r.from && r.from <= r.to && r.to <= total).toBe(true);
        } else {
          expect(start !== undefined && end !== undefined).toBe(true);
          expect(r.message).toContain("comes after end");
        }
      }),
    );
  });

  test("an empty file resolves to nothing without notes", () => {
    expect(resolveRange(3, 9, 0, hashAt)).toEqual({ ok: true, from: 1, to: 0, notes: [] });
  });
});

describe("listing content descriptions", () => {
  test("line counts follow the line model: a final newline opens no line, a BOM alone is empty", () => {
    expect(describeContent(enc.encode("a\nb\n"))).toBe("2 lines");
    expect(describeContent(enc.encode("a\nb"))).toBe("2 lines");
    expect(describeContent(enc.encode("\n"))).toBe("1 line");
    expect(describeContent(new Uint8Array([0xef, 0xbb, 0xbf]))).toBe("empty");
    expect(describeContent(new Uint8Array([0xff, 0xfe, 0x61, 0]))).toBe("not UTF-8");
    expect(describeContent(new Uint8Array([0x61, 0, 0x62]))).toBe("binary");
  });
});

describe("a long matching line shown around its match", () => {
  test("never splits a surrogate pair at either end of the shown part (property)", async () => {
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    const char = fc.constantFrom("x", "é", "🚀", " ");
    // Lines well past maxLineChars, the match anywhere in them.
    const side = fc.array(char, { maxLength: 120, size: "max" }).map((c) => c.join(""));
    await fc.assert(
      fc.asyncProperty(side, side, fc.integer({ min: 4, max: 60 }), async (before, after, maxLineChars) => {
        const ctx = makeContext({ limits: { maxLineChars } });
        await seed(ctx.storage, { "a.txt": `${before}NEEDLE${after}\n` });
        const out = await view(ctx, { path: "a.txt", content: "NEEDLE" });
        expect(out.text).not.toMatch(lone);
      }),
      { numRuns: 300 },
    );
  });
});

describe("search counting cap", () => {
  test(`after ${COUNT_CAP} matching lines a directory search stops and says its counts are lower bounds`, async () => {
    const ctx = makeContext();
    const perFile = 4000;
    const files: Record<string, string> = {};
    for (let f = 0; f < 4; f++) files[`d/f${f}.txt`] = "m\n".repeat(perFile);
    await seed(ctx.storage, files);
    const out = await view(ctx, { path: "d", content: "m" });
    const lines = out.text.split("\n");
    expect(lines[0]).toBe('[search "m" (literal, case-sensitive) in d/: at least 12000 matching lines in at least 3 files; 3 files searched]');
    expect(lines.at(-1)).toBe(`[the search stopped counting at ${COUNT_CAP} matching lines; counts are lower bounds]`);
  });
});
