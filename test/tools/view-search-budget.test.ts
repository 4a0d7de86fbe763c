/**
 * The regex search's work bounds (src/tools/view/search-work.ts): the
 * program-size cap refused up front, lines too long for one bounded RE2
 * call, the per-search work budget and where it stops, the turns given to
 * the event loop, and the call's signal stopping a search between lines;
 * and the same bounds on finding where a long shown line's match starts.
 * Nothing here reads a clock: the meter's clock and turn are injected, and
 * every assertion is on the work counter, the lines reached, or the text.
 */
import { describe, expect, test } from "bun:test";
import { RE2JS } from "re2js";
import { estimateProgramSize, re2CharsWithin, re2Work } from "../../src/text/re2-work.ts";
import {
  createSearcher,
  indexLines,
  type LineIndex,
  lineAt,
  loosenRepeats,
  MAX_REGEX_CHARS,
  MAX_SEARCH_PROGRAM,
  requiredLiteral,
  type Searcher,
} from "../../src/tools/view/matcher.ts";
import { UNLOCATED_MARK, unlocatedNote } from "../../src/tools/view/search-limits.ts";
import { locateMatch, MATCH_CALL_WORK, SEARCH_WORK, SearchWork } from "../../src/tools/view/search-work.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { makeContext, seed } from "../helpers/tool-context.ts";
import { id, row, view } from "../helpers/tool-view.ts";

/** The pattern of the security finding: ten chained {1000} repeats, 10,003 instructions. */
const ATTACK = `${"[^\\n]{1000}".repeat(10)}[^x]`;

function regex(content: string, caseSensitive = true): Searcher {
  const made = createSearcher({ content, regex: true, caseSensitive });
  if (!made.ok) throw new Error(made.message);
  return made.searcher;
}

/** A meter whose clock never moves (a turn is due only after a call's worth of work) and whose budget is `budget`. */
function still(searcher: Searcher, budget = SEARCH_WORK): SearchWork {
  return new SearchWork(searcher.programSize, { budget, now: () => 0 });
}

/** Scan all of `text` as a search does: from line 0, a turn whenever the scan pauses, until done or stopped. */
async function scanAll(searcher: Searcher, text: string, work: SearchWork, from = 0) {
  const index = indexLines(text);
  const matches: number[] = [];
  const tooLong: number[] = [];
  let next = from;
  let calls = 0;
  for (;;) {
    const scan = searcher.scanLines(text, index, next, work);
    calls++;
    matches.push(...scan.matches);
    tooLong.push(...scan.tooLong);
    next = scan.next;
    if (next >= index.count || work.stopped) return { matches, tooLong, next, calls, index };
    await work.turn();
  }
}

/** The old matcher's answer, line by line: the reference a metered scan must equal. */
function reference(content: string, caseSensitive: boolean, text: string, index: LineIndex): number[] {
  const re = RE2JS.compile(content, caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
  const out: number[] = [];
  for (let i = 0; i < index.count; i++) if (re.test(lineAt(text, index, i))) out.push(i);
  return out;
}

/** A seeded PRNG (mulberry32), so the random cases are the same every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The first `view {...}` call in `text` after `marker`, parsed. */
function callAfter(text: string, marker: string): Record<string, unknown> {
  const at = text.indexOf(marker);
  expect(at).toBeGreaterThanOrEqual(0);
  const start = text.indexOf("view {", at) + "view ".length;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return JSON.parse(text.slice(start, i + 1));
  }
  throw new Error(`no call after ${marker}`);
}

describe("the program-size cap: refused before anything is searched", () => {
  test("the finding's pattern is LIMIT_EXCEEDED with its size, the limit, and a loosened call that works", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "dist/app.min.js": `${"x".repeat(200_000)}!\n`, "dist/b.js": "fine\n" });
    for (const path of ["dist", "dist/app.min.js"]) {
      const out = await view(ctx, { path, content: ATTACK, regex: true });
      expect(out.result.code).toBe("LIMIT_EXCEEDED");
      expect(out.text).toStartWith(`content is too complex to search with: it compiles to 10003 RE2 instructions, over the limit of ${MAX_SEARCH_PROGRAM}`);
      expect(out.text).toContain("Nothing was searched.");
      const loosened = callAfter(out.text, "(1) its counted repeats written as + or *");
      expect(loosened).toEqual({ path, content: `${"[^\\n]+".repeat(10)}[^x]`, regex: true });
      const retried = await view(ctx, loosened);
      expect(retried.result.isError).toBe(false);
      expect(retried.text).toContain("1 matching line");
    }
  });

  test("a pattern far over the cap is refused on its estimate, without compiling it", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "a.txt": "a\n" });
    const compile = RE2JS.compile;
    let compiled = 0;
    RE2JS.compile = ((...args: Parameters<typeof compile>) => {
      compiled++;
      return compile.apply(RE2JS, args);
    }) as typeof compile;
    try {
      // 100 chained repeats: RE2 would build 100,002 instructions (30 ms, ~15 MB) before its size could be read.
      const out = await view(ctx, { path: "a.txt", content: "[^\\n]{1000}".repeat(100), regex: true });
      expect(out.result.code).toBe("LIMIT_EXCEEDED");
      expect(out.text).toMatch(/^content is too complex to search with: its counted repeats expand to about \d+ RE2 instructions, over the limit of 4096/);
      expect(compiled).toBe(0);
    } finally {
      RE2JS.compile = compile;
    }
  });

  test("a regex over the length limit is refused; the same text searched literally is not", async () => {
    const ctx = makeContext();
    const long = "word ".repeat(1000);
    await seed(ctx.storage, { "a.txt": `${long}\n` });
    const out = await view(ctx, { path: "a.txt", content: long, regex: true });
    expect(out.result.code).toBe("LIMIT_EXCEEDED");
    expect(out.text).toStartWith(`content is ${long.length} characters long, over the ${MAX_REGEX_CHARS} a regex search accepts. Nothing was searched.`);
    expect(out.text).toContain(`leave out "regex"`);
    const literal = await view(ctx, { path: "a.txt", content: long });
    expect(literal.text).toContain("1 matching line");
  });

  test("a pattern with plain text in it offers the literal search for that text", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "src/a.ts": "function main() {}\n" });
    const out = await view(ctx, { path: "src", content: `function\\s+\\w+\\(${"[^\\n]{1000}".repeat(5)}`, regex: true, context: 1 });
    expect(out.result.code).toBe("LIMIT_EXCEEDED");
    const literal = callAfter(out.text, "a literal search for text every match contains");
    expect(literal).toEqual({ path: "src", content: "function", context: 1 });
    expect((await view(ctx, literal)).text).toContain("1 matching line");
  });

  test("a pattern RE2 cannot parse is still INVALID_ARGUMENT", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "a.txt": "a\n" });
    const out = await view(ctx, { path: "a.txt", content: "(?=x)", regex: true });
    expect(out.result.code).toBe("INVALID_ARGUMENT");
    expect(out.text).toStartWith("content is not a valid regular expression:");
  });

  test("the estimate is never under the real size, and never refuses a pattern within the cap", () => {
    const random = prng(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const atoms = ["a", "b", "é", ".", "\\w", "\\d", "[^\\n]", "[a-z]", "\\x{41}", "\\pL", "^", "$", "\\b", "\\.", "[]x]", "\\Qa.b\\E"];
    const quantifiers = ["", "", "", "*", "+", "?", "{3}", "{2,5}", "{4,}", "{0,3}", "{20}", "{100}", "*?"];
    function gen(depth: number): string {
      let out = "";
      const parts = 1 + Math.floor(random() * 4);
      for (let i = 0; i < parts; i++) {
        let atom = depth > 0 && random() < 0.3 ? `${pick(["(", "(?:", "(?i:", "(?P<n>"])}${gen(depth - 1)})` : pick(atoms);
        if (random() < 0.2) atom += `|${pick(atoms)}`;
        out += atom + pick(quantifiers);
      }
      return random() < 0.1 ? `(?i)${out}` : out;
    }
    const typical = [
      "createServer",
      "fn\\s+main",
      "function\\s+\\w+\\(",
      "TODO|FIXME|XXX",
      "import .* from ['\"]react['\"]",
      "^\\s*export\\s+(async\\s+)?function",
      "(?i)password|secret|token|api[_-]?key",
      "(foo|bar|baz|qux|quux|corge|grault|garply|waldo|fred|plugh|xyzzy|thud)",
      "[^\\n]{1000}",
      "((a{10}){10}){10}",
      "(?:ab|ac|ad){10}",
      ATTACK,
    ];
    let checked = 0;
    for (const source of [...typical, ...Array.from({ length: 3000 }, () => gen(3))]) {
      let size: number;
      try {
        size = RE2JS.compile(source).programSize();
      } catch {
        continue;
      }
      checked++;
      const estimate = estimateProgramSize(source);
      expect({ source, under: estimate < size }).toEqual({ source, under: false });
      // Within the cap, the estimate never reaches the refusal threshold (16 x the cap).
      if (size <= MAX_SEARCH_PROGRAM) expect({ source, refused: estimate > 16 * MAX_SEARCH_PROGRAM }).toEqual({ source, refused: false });
    }
    expect(checked).toBeGreaterThan(1000);
    // Ordinary patterns are estimated close to their size.
    for (const source of typical.slice(0, 8)) expect(estimateProgramSize(source)).toBeLessThanOrEqual(3 * RE2JS.compile(source).programSize());
  });

  test("loosened repeats and required literals leave escapes and classes alone", () => {
    expect(loosenRepeats("[^\\n]{1000}x{0,3}\\x{41}{2}[{]{5}")).toBe("[^\\n]+x*\\x{41}+[{]+");
    expect(loosenRepeats("abc")).toBeUndefined();
    expect(requiredLiteral("function\\s+\\w+\\(")).toBe("function");
    expect(requiredLiteral("\\.then\\(cb")).toBe(".then(cb");
    expect(requiredLiteral("ab[cde]fghi{2}jk")).toBe("fgh");
    expect(requiredLiteral("abcd?")).toBe("abc");
    expect(requiredLiteral("foo|barbaz")).toBeUndefined();
    expect(requiredLiteral("(?i)hello")).toBeUndefined();
    expect(requiredLiteral("[^\\n]{1000}")).toBeUndefined();
  });
});

describe("lines too long for one bounded RE2 call", () => {
  // 1003 instructions: one call may read floor(8 Mi / 1003) - 1 = 8362 characters.
  const pattern = "[^\\n]{1000}y";
  const lines = [`${"x".repeat(200_000)}y`, `${"x".repeat(1000)}y`, `${"x".repeat(8000)}y`, `${"x".repeat(9000)}y`, "short y"];

  test("are not matched and cost nothing; every other line is matched as before", async () => {
    const searcher = regex(pattern);
    expect(searcher.programSize).toBe(1003);
    const work = still(searcher);
    expect(work.maxCallChars).toBe(re2CharsWithin(MATCH_CALL_WORK, 1003) - 1);
    const text = `${lines.join("\n")}\n`;
    const scanned = await scanAll(searcher, text, work);
    expect(scanned.matches).toEqual([1, 2]);
    expect(scanned.tooLong).toEqual([0, 3]);
    // Charged: lines 2, 3 and 5, each alone (with the next line a chunk would overflow one call); lines 1 and 4 nothing.
    expect(work.used).toBe(re2Work(1003, 1001 + 1) + re2Work(1003, 8001 + 1) + re2Work(1003, 7 + 1));
    expect(work.used).toBeLessThan(3 * MATCH_CALL_WORK);
  });

  test("the answer names them, with the longest line this pattern can match and how to search them", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "f.txt": `${lines.join("\n")}\n` });
    const out = await view(ctx, { path: "f.txt", content: pattern, regex: true });
    expect(out.result.isError).toBe(false);
    const text = out.text.split("\n");
    expect(text[0]).toBe(`[search "[^\\\\n]{1000}y" (regex, case-sensitive) in f.txt (5 lines): 2 matching lines]`);
    expect(text[1]).toBe(
      "[not searched: 2 lines too long for this regex (the first: `f.txt` line 1, 200,001 characters; a pattern of 1003 RE2 instructions " +
        `matches lines of up to 8,362): search them with a literal "content" or a regex of fewer instructions]`,
    );
    expect(out.text).toContain("f.txt (2 matching lines)");
    expect(text[3]).toBe(row(2, lines[1]));
    // Line 3 is longer than a row shows: it is shown around its match (found by one more bounded call).
    expect(text[4]).toStartWith(`${id(3, lines[2])}|…`);
    expect(text[4]).toEndWith(`[line shortened: characters 6002-8001 of 8001 shown]`);
  });
});

describe("the per-search work budget", () => {
  test("a search stops before the call that would overspend it; resumed, it finds exactly the rest", async () => {
    const random = prng(11);
    const text = `${Array.from({ length: 3000 }, (_, i) => (random() < 0.05 ? `hit ${i} ` : "miss ").repeat(1 + Math.floor(random() * 30))).join("\n")}\n`;
    const searcher = regex("hit \\d+");
    const index = indexLines(text);
    const budget = re2Work(searcher.programSize, 40_000);
    const first = still(searcher, budget);
    const part = await scanAll(searcher, text, first);
    expect(first.exhausted).toBe(true);
    expect(first.used).toBeLessThanOrEqual(budget);
    expect(part.next).toBeGreaterThan(0);
    expect(part.next).toBeLessThan(index.count);
    const all = reference("hit \\d+", true, text, index);
    expect(part.matches).toEqual(all.filter((i) => i < part.next));
    // The continuation spends nothing on the lines before it.
    const rest = await scanAll(searcher, text, still(searcher), part.next);
    expect([...part.matches, ...rest.matches]).toEqual(all);
  });

  test("a file search says where it stopped and gives the call that continues; that call goes on from there", async () => {
    const ctx = makeContext();
    // 4002 instructions: the default budget (64 Gi) holds about 17 million characters of it.
    const pattern = "(?:abcd){1000}";
    const line = "0123456789".repeat(10);
    await seed(ctx.storage, { "f.txt": `${line}\n`.repeat(200_000) });
    const out = await view(ctx, { path: "f.txt", content: pattern, regex: true });
    expect(out.result.isError).toBe(false);
    const chars = Math.floor(SEARCH_WORK / 4002);
    const stop = new RegExp(
      `\\[the search stopped at line (\\d+): its regex work budget is spent \\(64 Gi RE2 instructions x characters per search; this pattern has 4002 instructions, so about ${chars.toLocaleString("en-US")} characters\\); counts are lower bounds\\. Continue from there: `,
    ).exec(out.text);
    expect(stop).not.toBeNull();
    const at = Number(stop![1]);
    // 17,171,283 characters charged about 101 a line (each line and its call), in chunks: stopped near line 170,000.
    expect(at).toBeGreaterThan(160_000);
    expect(at).toBeLessThan(172_000);
    const next = callAfter(out.text, "Continue from there:");
    expect(next).toEqual({ path: "f.txt", content: pattern, regex: true, start: at });
    const rest = await view(ctx, next);
    expect(rest.text).toBe(
      [
        `[search "(?:abcd){1000}" (regex, case-sensitive) in f.txt lines ${at}-200000 of 200000: no match]`,
        '[nothing matched. Try "case_sensitive": false, or a simpler pattern]',
      ].join("\n"),
    );
  });

  test("a directory search names the file and line it stopped at, and says the files after it were not searched", async () => {
    const ctx = makeContext();
    const line = "0123456789".repeat(10);
    const half = `${line}\n`.repeat(100_000);
    await seed(ctx.storage, { "d/a.txt": half, "d/b.txt": half, "d/c.txt": `${"abcd".repeat(1000)}\n` });
    const out = await view(ctx, { path: "d", content: "(?:abcd){1000}", regex: true, context: 2 });
    expect(out.result.isError).toBe(false);
    expect(out.text).toMatch(/^\[search "\(\?:abcd\)\{1000\}" \(regex, case-sensitive\) in d\/: no match in 2 files searched\]$/m);
    const stop =
      /\[the search stopped at `d\/b\.txt` line (\d+): its regex work budget is spent .*; the files after it were not searched; counts are lower bounds\. Continue that file: /.exec(
        out.text,
      );
    expect(stop).not.toBeNull();
    expect(callAfter(out.text, "Continue that file:")).toEqual({
      path: "d/b.txt",
      content: "(?:abcd){1000}",
      regex: true,
      context: 2,
      start: Number(stop![1]),
    });
    expect(out.text).toContain(
      `narrow the rest: a subdirectory as "path", a "pattern" such as "**/*.ts", a literal "content", or a regex of fewer instructions]`,
    );
  });

  test("ordinary patterns fit: measured charges are 0.8-1.5 units a character per instruction, so 512 MiB at 64 instructions is under the budget", () => {
    expect(SEARCH_WORK).toBe(64 * 1024 ** 3);
    expect(re2Work(64, 1.5 * 512 * 1024 * 1024)).toBeLessThan(SEARCH_WORK);
  });
});

describe("metered matching finds exactly what the old matcher found", () => {
  test("random texts and patterns, a turn due after every chunk", async () => {
    const random = prng(3);
    const words = ["foo", "bar", "Foo", "baz()", "x", "ab", "", "İ", "é", "\t", "  ", "12", "a.b"];
    const patterns = ["foo", "ba.", "^ab", "x$", "\\bfoo\\b", "\\d+", "[a-z]{2}\\(", "(?i)foo|bar", "a\\.b", "^$", "\\Afoo", "^\\s+\\d", "é|İ"];
    for (let round = 0; round < 40; round++) {
      const lineCount = 1 + Math.floor(random() * 400);
      const text = Array.from({ length: lineCount }, () => {
        const n = Math.floor(random() * (random() < 0.05 ? 4000 : 12));
        return Array.from({ length: n }, () => words[Math.floor(random() * words.length)]).join(random() < 0.5 ? " " : "");
      }).join("\n");
      for (const content of patterns) {
        for (const caseSensitive of [true, false]) {
          const searcher = regex(content, caseSensitive);
          let clock = 0;
          const work = new SearchWork(searcher.programSize, { now: () => (clock += 5), nextTurn: async () => {} });
          const scanned = await scanAll(searcher, text, work);
          expect({ content, caseSensitive, round, matches: scanned.matches }).toEqual({
            content,
            caseSensitive,
            round,
            matches: reference(content, caseSensitive, text, scanned.index),
          });
          expect(scanned.tooLong).toEqual([]);
          // Unmetered, as before.
          expect(searcher.matchLines(text, scanned.index)).toEqual(scanned.matches);
        }
      }
    }
  });

  test("ranged searches: a metered regex shows the same rows as the literal it spells, range by range", async () => {
    const ctx = makeContext();
    const lines = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? `line ${i} foo` : `line ${i}`));
    await seed(ctx.storage, {
      "a.txt": `${lines.join("\n")}\n`,
      "b.txt": `${[...lines, "last foo"].join("\n")}`,
      "c.txt": `${[...lines, "last"].join("\r\n")}\r\n`,
    });
    const rowsOf = (text: string) => text.split("\n").filter((l) => /^\d+:[0-9a-f]{2}\|/.test(l));
    const headerCount = (text: string) => /: (no match|\d+ matching lines?)/.exec(text)?.[1];
    const ranges = [{}, { start: 3 }, { start: 3, end: 10 }, { start: -5 }, { end: -2 }, { start: 1000 }, { start: 40, end: 40 }];
    for (const path of ["a.txt", "b.txt", "c.txt"]) {
      for (const range of ranges) {
        const literal = await view(ctx, { path, content: "foo", ...range });
        const metered = await view(ctx, { path, content: "fo[o]", regex: true, ...range });
        expect({ path, range, rows: rowsOf(metered.text), count: headerCount(metered.text) }).toEqual({
          path,
          range,
          rows: rowsOf(literal.text),
          count: headerCount(literal.text),
        });
      }
    }
  });

  test("a literal, and a regex of plain text, meter nothing", () => {
    const literal = createSearcher({ content: "foo", regex: false, caseSensitive: true });
    const plain = regex("createServer");
    expect(literal.ok && literal.searcher.programSize).toBe(0);
    expect(plain.programSize).toBe(0);
    expect(regex("createServer", false).programSize).toBe(14);
    const work = still(plain);
    const text = `${"x".repeat(10_000_000)} createServer\n`;
    const scan = plain.scanLines(text, indexLines(text), 0, work);
    expect(scan.matches).toEqual([0]);
    expect(work.used).toBe(0);
  });
});

describe("turns and the call's signal", () => {
  /** 2000 lines of 100 characters: about 160 lines per 16 KiB chunk. */
  const text = `${Array.from({ length: 2000 }, (_, i) => `${String(i).padStart(6, "0")} ${"z".repeat(93)}`).join("\n")}\n`;

  test("matching gives the event loop a turn whenever the clock says the stretch is over", async () => {
    const searcher = regex("^0+1\\d* ");
    let clock = 0;
    let turns = 0;
    // Every look at the clock finds the stretch over: one chunk per scan call, then a turn.
    const work = new SearchWork(searcher.programSize, { now: () => (clock += 5), nextTurn: async () => void turns++ });
    const scanned = await scanAll(searcher, text, work);
    expect(scanned.matches).toEqual(reference("^0+1\\d* ", true, text, scanned.index));
    expect(turns).toBe(scanned.calls - 1);
    expect(scanned.calls).toBe(Math.ceil(scanned.index.count / 162));
  });

  test("where the clock stands still during synchronous code (Workers), a turn comes after each call's worth of work", async () => {
    const searcher = regex("z{90}");
    let turns = 0;
    const spentAtTurn: number[] = [];
    const work: SearchWork = new SearchWork(searcher.programSize, {
      now: () => 0,
      nextTurn: async () => {
        turns++;
        spentAtTurn.push(work.used);
      },
    });
    const scanned = await scanAll(searcher, text, work);
    expect(scanned.matches).toEqual(reference("z{90}", true, text, scanned.index));
    expect(turns).toBe(Math.ceil(work.used / MATCH_CALL_WORK) - 1);
    // Between two turns, at most a call's worth of work plus one chunk (chunk test and its lines).
    const gaps = spentAtTurn.map((used, i) => used - (spentAtTurn[i - 1] ?? 0));
    for (const gap of gaps) expect(gap).toBeLessThan(MATCH_CALL_WORK + 2 * re2Work(searcher.programSize, 16 * 1024 + 1));
  });

  test("an abort between chunks stops the scan at the next line boundary; nothing after it is matched or charged", async () => {
    const searcher = regex("z{90}");
    const controller = new AbortController();
    let clock = 0;
    let turns = 0;
    const work = new SearchWork(searcher.programSize, {
      signal: controller.signal,
      // Every check finds its stretch over: each scan call matches one chunk, then a turn.
      now: () => (clock += 10),
      nextTurn: async () => {
        if (++turns === 3) controller.abort(new Error("timed out"));
      },
    });
    const scanned = await scanAll(searcher, text, work);
    const index = scanned.index;
    expect(work.cancelled).toBe(true);
    expect(scanned.calls).toBe(4);
    // Three chunks matched (one per call), the fourth call stopped before its first line.
    const perChunk = (() => {
      const probe = new SearchWork(searcher.programSize, { now: () => (clock += 10) });
      return searcher.scanLines(text, index, 0, probe).next;
    })();
    expect(scanned.next).toBe(3 * perChunk);
    expect(scanned.matches).toEqual(Array.from({ length: 3 * perChunk }, (_, i) => i));
    const usedBefore = work.used;
    expect(searcher.scanLines(text, index, scanned.next, work)).toEqual({ matches: [], next: scanned.next, tooLong: [] });
    expect(work.used).toBe(usedBefore);
  });

  test("a search whose call is cancelled while its file is read stops and says so", async () => {
    const controller = new AbortController();
    const base = makeContext();
    await seed(base.storage, { "d/a.txt": text });
    const storage = new Proxy(base.storage, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (key !== "read" || typeof value !== "function") return value;
        return async (...args: unknown[]) => {
          const result = await value.apply(target, args);
          controller.abort(new Error("the call's time is up"));
          return result;
        };
      },
    });
    const ctx: ToolContext = { ...base, storage, signal: controller.signal };
    const out = await view(ctx, { path: "d", content: "z{90}", regex: true });
    expect(out.result.isError).toBe(false);
    expect(out.text).toContain("the call was cancelled");
    expect(out.text).not.toContain("matching line");
  });

  test("a streamed file search whose call is cancelled mid-file answers TIMEOUT", async () => {
    const controller = new AbortController();
    const base = makeContext();
    await seed(base.storage, { "f.txt": text.repeat(20) });
    const storage = new Proxy(base.storage, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (key !== "readStream" || typeof value !== "function") return value;
        return async (...args: unknown[]) => {
          const opened = await value.apply(target, args);
          let chunks = 0;
          const counted = opened.stream.pipeThrough(
            new TransformStream<Uint8Array, Uint8Array>({
              transform(chunk, out) {
                if (++chunks === 3) controller.abort(new Error("the call's time is up"));
                out.enqueue(chunk);
              },
            }),
          );
          return { ...opened, stream: counted };
        };
      },
    });
    const ctx: ToolContext = { ...base, storage, signal: controller.signal };
    const out = await view(ctx, { path: "f.txt", content: "z{90}", regex: true });
    expect(out.result.code).toBe("TIMEOUT");
  });
});

/** Count the calls that find where a match starts (`matcher`), and refuse `exec` (it tracks every capture group), while `body` runs. */
async function spyingPositions<T>(body: (calls: { count: number }) => Promise<T> | T, onCall?: (count: number) => void): Promise<T> {
  const matcher = RE2JS.prototype.matcher;
  const exec = RE2JS.prototype.exec;
  const calls = { count: 0 };
  RE2JS.prototype.matcher = function (this: RE2JS, ...args: Parameters<typeof matcher>) {
    calls.count++;
    onCall?.(calls.count);
    return matcher.apply(this, args);
  };
  RE2JS.prototype.exec = () => {
    throw new Error("exec: a position must not track capture groups");
  };
  try {
    return await body(calls);
  } finally {
    RE2JS.prototype.matcher = matcher;
    RE2JS.prototype.exec = exec;
  }
}

describe("finding where a long line's match starts", () => {
  /** The finding's pattern: 2403 instructions, 720 capture groups; its line of 3487 characters fits one call. */
  const GROUPS = `${"((a)|(b))*".repeat(240)}c`;
  const GROUPS_LINE = `${"ab".repeat(1743)}c`;

  test("is one bounded call, charged as a test of the line, finding group 0 only (never `exec`)", async () => {
    const searcher = regex(GROUPS);
    expect(searcher.programSize).toBe(2403);
    const work = still(searcher);
    expect(work.fits(GROUPS_LINE.length)).toBe(true);
    await spyingPositions((calls) => {
      expect(searcher.column(GROUPS_LINE, work)).toBe(0);
      expect(calls.count).toBe(1);
    });
    expect(work.used).toBe(re2Work(2403, GROUPS_LINE.length + 1));
    expect(work.used).toBeLessThanOrEqual(MATCH_CALL_WORK);
  });

  test("answers what `exec` answered, for patterns with and without groups (metered and not)", () => {
    const random = prng(17);
    const patterns = ["(a)(b)?c", "((a)|(b))*c", "b+", "(?i)AB", "\\bab\\b", "(x)|(b)$", "^a", "c(a|b){3}", "(?:a|(b))+?c"];
    const alphabet = ["a", "b", "c", " ", "é"];
    for (let round = 0; round < 200; round++) {
      const line = Array.from({ length: 1 + Math.floor(random() * 300) }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
      for (const content of patterns) {
        const searcher = regex(content);
        // What the matcher answered before: `exec`'s index (typed loosely by re2js).
        const expected = (RE2JS.compile(content).exec(line) as RegExpExecArray | null)?.index ?? -1;
        expect({ content, line, at: searcher.column(line) }).toEqual({ content, line, at: expected });
        const work = still(searcher);
        expect({ content, line, at: searcher.column(line, work) }).toEqual({ content, line, at: expected });
        expect(work.used).toBe(searcher.programSize > 0 ? work.cost(line.length) : 0);
      }
    }
  });

  test("is not made, and nothing charged, when it would not fit one call or the budget cannot hold it", async () => {
    const searcher = regex(GROUPS);
    const cost = re2Work(2403, GROUPS_LINE.length + 1);
    const narrow = new SearchWork(searcher.programSize, { callLimit: cost - 1, now: () => 0 });
    const poor = new SearchWork(searcher.programSize, { budget: cost - 1, now: () => 0 });
    await spyingPositions((calls) => {
      expect(searcher.column(GROUPS_LINE, narrow)).toBe("too-long");
      expect(searcher.column(GROUPS_LINE, poor)).toBe("budget");
      expect(calls.count).toBe(0);
    });
    expect(narrow.used).toBe(0);
    expect(poor.used).toBe(0);
    // Refused for want of budget, the search is not stopped: the budget may still hold a smaller call.
    expect(poor.exhausted).toBe(false);
  });

  /** 15 instructions over 335,000 characters: a position costs just over half a call (found at a literal's speed: RE2 skips to "function"). */
  const CHEAP = "function\\s+\\w+\\(";
  const CHEAP_LINE = `${"x".repeat(335_000)} function f(`;

  test("gives the event loop a turn first when one is due, and looks for nothing once the call is cancelled", async () => {
    const searcher = regex(CHEAP);
    const controller = new AbortController();
    let clock = 0;
    let turns = 0;
    const work = new SearchWork(searcher.programSize, {
      signal: controller.signal,
      // Every look at the clock finds the stretch over.
      now: () => (clock += 5),
      nextTurn: async () => void turns++,
    });
    const one = work.cost(CHEAP_LINE.length);
    await spyingPositions(async (calls) => {
      expect(await locateMatch(searcher, CHEAP_LINE, work)).toBe(335_001);
      expect(await locateMatch(searcher, CHEAP_LINE, work)).toBe(335_001);
      expect({ turns, calls: calls.count, used: work.used }).toEqual({ turns: 2, calls: 2, used: 2 * one });
      controller.abort(new Error("the call's time is up"));
      // The turn comes first (a timeout fires during it), then the signal is looked at.
      expect(await locateMatch(searcher, CHEAP_LINE, work)).toBe("cancelled");
      expect({ turns, calls: calls.count, used: work.used }).toEqual({ turns: 3, calls: 2, used: 2 * one });
    });
  });

  test("where the clock stands still (Workers), a turn comes after each call's worth of positions", async () => {
    const searcher = regex(CHEAP);
    const spentAtTurn: number[] = [];
    const work: SearchWork = new SearchWork(searcher.programSize, { now: () => 0, nextTurn: async () => void spentAtTurn.push(work.used) });
    const one = work.cost(CHEAP_LINE.length);
    expect(one).toBeGreaterThan(MATCH_CALL_WORK / 2);
    expect(one).toBeLessThan(MATCH_CALL_WORK);
    for (let i = 0; i < 7; i++) expect(await locateMatch(searcher, CHEAP_LINE, work)).toBe(335_001);
    // Two positions spend a call's worth: a turn before every second one.
    expect(spentAtTurn).toEqual([2 * one, 4 * one, 6 * one]);
  });

  test("a literal finds it without RE2, metered or not", async () => {
    const made = createSearcher({ content: "NEEDLE", regex: false, caseSensitive: true });
    if (!made.ok) throw new Error(made.message);
    const work = new SearchWork(0, { now: () => 0, nextTurn: async () => expect.unreachable() });
    expect(await locateMatch(made.searcher, `${"x".repeat(5000)}NEEDLE`, work)).toBe(5000);
    expect(work.used).toBe(0);
  });

  test("the finding's file: one position call per shown line, and its rows as before", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "f.txt": `${GROUPS_LINE}\n`.repeat(3) });
    const out = await spyingPositions(async (calls) => {
      const result = await view(ctx, { path: "f.txt", content: GROUPS, regex: true });
      expect(calls.count).toBe(3);
      return result;
    });
    expect(out.result.isError).toBe(false);
    const rows = out.text.split("\n").filter((l) => /^\d+:[0-9a-f]{2}\|/.test(l));
    // The match starts at column 0: each row is the line's start, as a long row always was.
    expect(rows).toEqual([1, 2, 3].map((n) => `${id(n, GROUPS_LINE)}|${GROUPS_LINE.slice(0, 2000)}… [line truncated: 3487 chars total]`));
    expect(out.text).not.toContain("[note:");
  });

  test("with context, long rows that did not match cost no call", async () => {
    const ctx = makeContext({ limits: { maxLineChars: 100 } });
    const hit = `${"x".repeat(300)}target`;
    const miss = "y".repeat(500);
    await seed(ctx.storage, { "f.txt": [miss, hit, miss, miss, hit, miss].join("\n") });
    const out = await spyingPositions(async (calls) => {
      const result = await view(ctx, { path: "f.txt", content: "tar[g]et", regex: true, context: 1 });
      expect(calls.count).toBe(2);
      return result;
    });
    const rows = out.text.split("\n").filter((l) => /^[> ] \d+:/.test(l));
    expect(rows).toHaveLength(6);
    expect(rows[1]).toEndWith("[line shortened: characters 207-306 of 306 shown]");
    expect(rows[0]).toEndWith("… [line truncated: 500 chars total]");
  });

  test("a call cancelled while its rows are laid out shows the rest from their start, and says how to see them", async () => {
    const controller = new AbortController();
    const ctx = makeContext({ limits: { maxLineChars: 100 }, signal: controller.signal });
    const lines = Array.from({ length: 3 }, (_, i) => `${"x".repeat(300 + i)}(${i})target`);
    await seed(ctx.storage, { "f.txt": `${lines.join("\n")}\n` });
    const content = "\\(\\d\\)tar[g]et";
    const out = await spyingPositions(
      async (calls) => {
        const result = await view(ctx, { path: "f.txt", content, regex: true });
        // The first row's position was looked for; then the call was cancelled, and no other was.
        expect(calls.count).toBe(1);
        return result;
      },
      () => controller.abort(new Error("the call's time is up")),
    );
    expect(out.result.isError).toBe(false);
    const text = out.text.split("\n");
    expect(text[0]).toBe(`[search "\\\\(\\\\d\\\\)tar[g]et" (regex, case-sensitive) in f.txt (3 lines): 3 matching lines]`);
    expect(text[1]).toBe(
      "[note: 2 long matching lines shown from the start, not around the match (the first: `f.txt` line 2): where the match starts was not looked " +
        `for, because the call was cancelled (its time limit, or the client left). To see it, search that line alone: ` +
        `view {"path": "f.txt", "content": "\\\\(\\\\d\\\\)tar[g]et", "regex": true, "start": 2, "end": 2}]`,
    );
    expect(text[3]).toEndWith("[line shortened: characters 210-309 of 309 shown]");
    expect(text[4]).toBe(`${id(2, lines[1])}|${lines[1].slice(0, 100)}… [line truncated: 310 chars total] ${UNLOCATED_MARK}`);
    expect(text[5]).toBe(`${id(3, lines[2])}|${lines[2].slice(0, 100)}… [line truncated: 311 chars total] ${UNLOCATED_MARK}`);
    // The suggested call shows that line around its match.
    const again = await view({ ...ctx, signal: undefined }, callAfter(out.text, "search that line alone:"));
    expect(again.text.split("\n").find((l) => l.startsWith(id(2, lines[1])))).toEndWith("[line shortened: characters 211-310 of 310 shown]");
  });

  test("rows left out for the output budget are not counted in the note", async () => {
    const lines = Array.from({ length: 3 }, (_, i) => `${"x".repeat(300 + i)}(${i})target`);
    const content = "\\(\\d\\)tar[g]et";
    const run = async (maxOutputBytes?: number) => {
      const controller = new AbortController();
      const ctx = makeContext({ limits: { maxLineChars: 100, ...(maxOutputBytes ? { maxOutputBytes } : {}) }, signal: controller.signal });
      await seed(ctx.storage, { "f.txt": `${lines.join("\n")}\n` });
      return spyingPositions(
        () => view(ctx, { path: "f.txt", content, regex: true }),
        () => controller.abort(new Error("the call's time is up")),
      );
    };
    const whole = (await run()).text.split("\n");
    const group = whole.slice(whole.indexOf("f.txt (3 matching lines)"));
    // Room for the path and two rows, not the third (a quarter of a small output limit is kept for the header).
    const room = group.slice(0, 3).reduce((sum, line) => sum + new TextEncoder().encode(line).length + 1, 0);
    const cut = (await run(Math.ceil((room + 10) / 0.75))).text;
    expect(cut).toContain("[1 more matching line in this file:");
    expect(cut).toContain("[note: 1 long matching line shown from the start, not around the match (`f.txt` line 2)");
  });

  test("the note, when the budget could not hold the position", () => {
    const work = new SearchWork(40, { now: () => 0 });
    const asked = { path: "", content: "function\\s+x", caseSensitive: true, keep: {} };
    expect(unlocatedNote({ count: 0 }, work, asked)).toBeUndefined();
    expect(unlocatedNote({ count: 1, first: { path: "src/a.js", line: 7, why: "budget" } }, work, asked)).toBe(
      "1 long matching line shown from the start, not around the match (`src/a.js` line 7): where the match starts was not looked for, because " +
        "the search's regex work budget (64 Gi RE2 instructions x characters) could not hold the call that finds it. To see it, search that line " +
        'alone: view {"path": "src/a.js", "content": "function\\\\s+x", "regex": true, "start": 7, "end": 7}',
    );
    expect(unlocatedNote({ count: 2, first: { path: "src/a.js", line: 7, why: "too-long" } }, work, asked)).toBe(
      "2 long matching lines shown from the start, not around the match (the first: `src/a.js` line 7): where the match starts was not looked " +
        "for, because the call that finds it would cost more than one RE2 call may (8 Mi RE2 instructions x characters). To see it, search them " +
        'literally, e.g. view {"path": "src/a.js", "content": "function"}, or with a regex of fewer instructions',
    );
    // A long pattern is not echoed.
    const long = { ...asked, content: `(${"a|".repeat(250)}b)` };
    expect(unlocatedNote({ count: 1, first: { path: "a.js", line: 3, why: "cancelled" } }, work, long)).toEndWith(
      'To see it, search that line alone: the same search with "start" and "end" at 3',
    );
  });
});
