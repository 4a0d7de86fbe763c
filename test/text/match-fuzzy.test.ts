/**
 * fitIndentation, the indentation rule of the whitespace-insensitive rung:
 * new_string's lines placed by LEVELS (model unit -> file unit, one shift
 * every pair agrees on, column 0 fixed when the pairs show no shift), and
 * "ambiguous" rather than a guess when the readings the pairs allow place a
 * line differently. Pure; the tool-level tests (test/tools/edit-indent.test.ts)
 * check the bytes on disk.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { findWhitespaceInsensitive, fitIndentation, type IndentFit, indentOf, normalizeWhitespace } from "../../src/text/match-fuzzy.ts";
import { applyStringEdit, editsAtMatches } from "../../src/text/match.ts";

/** fitIndentation over `file`, old_string's lines matched at `at`. */
function fit(file: readonly string[], at: number, needle: readonly string[], replacement: readonly string[]): IndentFit {
  return fitIndentation(needle, file.slice(at, at + needle.length), replacement, file);
}

function fitted(result: IndentFit): string[] {
  if (result.kind !== "fitted") throw new Error(`expected fitted, got ${JSON.stringify(result)}`);
  return result.lines;
}

const PY = ["def f(x):", "    if x:", "        return 1", "    return 0"];
const GO = ["package main", "", "func main() {", "\tx := 2", "\tprintln(x)", "}"];

describe("fitIndentation: lines shallower than old_string's (the scale-vs-offset cases)", () => {
  test("python, model 2-space vs file 4-space: a new top-level def stays at column 0, its body at one file level", () => {
    const r = fit(PY, 1, ["  if x:", "    return 1", "  return 0"], ["  if x:", "    return 1", "  return 0", "", "def g():", "  return 2"]);
    expect(fitted(r)).toEqual(["    if x:", "        return 1", "    return 0", "", "def g():", "    return 2"]);
  });

  test("go, model spaces vs file tabs: a new line at column 0 stays there, the paired one takes the tab", () => {
    expect(fitted(fit(GO, 3, ["  x := 2"], ["y := 0", "  x := 3"]))).toEqual(["y := 0", "\tx := 3"]);
  });

  test("a single-line old_string: the model's own step (2) sets its unit, so column 0 is top level", () => {
    expect(fitted(fit(PY, 1, ["  if x:"], ["  if x:", "    pass", "print(x)"]))).toEqual(["    if x:", "        pass", "print(x)"]);
  });

  test("a new line between two paired levels goes to the file level between them", () => {
    // Pairs 2 -> 4 and 6 -> 12: 2-space levels read as 4-space levels (the model's one step, 4, is two of its
    // levels, which the pairs prove), so 4 spaces is level 2 -> 8.
    const file = ["a:", "    b:", "            d: 1"];
    expect(fitted(fit(file, 1, ["  b:", "      d: 1"], ["  b:", "    c:", "      d: 2"]))).toEqual(["    b:", "        c:", "            d: 2"]);
  });

  test("old_string indented deeper than the file: the shift comes back off, and lines below the first level clamp at column 0", () => {
    expect(fitted(fit(["  a:", "    b: 1"], 0, ["        a:", "          b: 1"], ["        a:", "          b: 2", "      c: 3", "x: 0"]))).toEqual([
      "  a:",
      "    b: 2",
      "c: 3",
      "x: 0",
    ]);
  });

  test("old_string with the outer indentation dropped: column 0 is the shift, not the file's column 0", () => {
    const file = ["class A {", "    m() {", "        if (x) {", "            y();", "        }", "    }", "}"];
    const r = fit(file, 2, ["if (x) {", "    y();", "}"], ["if (x) {", "    y();", "}", "z();"]);
    expect(fitted(r)).toEqual(["        if (x) {", "            y();", "        }", "        z();"]);
  });
});

describe("fitIndentation: lines deeper than old_string's (kept working)", () => {
  test("4 spaces against tabs: deeper lines in tabs", () => {
    const file = ["func main() {", "\tif ok {", "\t\trun()", "\t}", "}"];
    expect(fitted(fit(file, 1, ["    if ok {", "        run()", "    }"], ["    if ok {", "        run()", "            deep()", "    }"]))).toEqual([
      "\tif ok {",
      "\t\trun()",
      "\t\t\tdeep()",
      "\t}",
    ]);
  });

  test("tabs against 2-space levels: each tab is one file level", () => {
    const file = ["def f():", "  if x:", "    return 1"];
    expect(fitted(fit(file, 1, ["\tif x:"], ["\tif x:", "\t\tpass", "\t\t\treturn"]))).toEqual(["  if x:", "    pass", "      return"]);
  });

  test("2-space levels against 4-space levels: a deeper line scales too", () => {
    expect(fitted(fit(PY, 1, ["  if x:", "    return 1"], ["  if x:", "    if y:", "      return 1"]))).toEqual([
      "    if x:",
      "        if y:",
      "            return 1",
    ]);
  });

  test('"" against 8 spaces: the model\'s own step (4) is one file level deeper', () => {
    const file = ["class A:", "    def f(self):", "        return 1"];
    expect(fitted(fit(file, 2, ["return 1"], ["if self.x:", "    return 1", "return 2"]))).toEqual([
      "        if self.x:",
      "            return 1",
      "        return 2",
    ]);
  });

  test('"" against two tabs, model tabs: deeper lines in tabs', () => {
    const file = ["func f() {", "\tif a {", "\t\tx()", "\t}", "}"];
    expect(fitted(fit(file, 2, ["x()"], ["if y {", "\tz()", "}"]))).toEqual(["\t\tif y {", "\t\t\tz()", "\t\t}"]);
  });
});

describe("fitIndentation: refuses instead of guessing", () => {
  test("4 spaces matched to 8 with no step to tell the unit: column 0 may be top level or one level in; both readings offered", () => {
    const file = ["def f(x):", "\tif x:", "\t\treturn 1", "\treturn 0"];
    const r = fit(file, 2, ["    return 1"], ["    return 1", "print(x)"]);
    expect(r).toEqual({
      kind: "ambiguous",
      lines: [1],
      readings: [
        ["\t\treturn 1", "print(x)"],
        ["\t\treturn 1", "\tprint(x)"],
      ],
      pairs: [{ model: "    ", file: "\t\t" }],
    });
  });

  test("a flattened old_string (one model indentation for two file depths) has no reading at all", () => {
    const r = fit(PY, 1, ["if x:", "return 1"], ["if x:", "return 2"]);
    expect(r).toEqual({
      kind: "ambiguous",
      lines: [0, 1],
      readings: [],
      pairs: [
        { model: "", file: "    " },
        { model: "", file: "        " },
      ],
    });
  });

  test("a refusal is only for lines that need a reading: paired indentations are placed exactly", () => {
    const file = ["def f(x):", "\tif x:", "\t\treturn 1", "\treturn 0"];
    expect(fitted(fit(file, 2, ["    return 1"], ["    y = 1", "    return y"]))).toEqual(["\t\ty = 1", "\t\treturn y"]);
  });
});

describe("fitIndentation: style and exactness", () => {
  test("mixed file: the matched lines' style wins (a tab-indented function in a space-indented file)", () => {
    const file = ["def a():", "    return 1", "", "def b():", "\tif x:", "\t\treturn 2"];
    expect(fitted(fit(file, 4, ["    if x:", "        return 2"], ["    if x:", "        log()", "            deeper()", "        return 2"]))).toEqual([
      "\tif x:",
      "\t\tlog()",
      "\t\t\tdeeper()",
      "\t\treturn 2",
    ]);
  });

  test("mixed file: a space-indented region in a tab-indented file gets spaces", () => {
    const file = ["func a() {", "\tx()", "}", "func b() {", "    if y {", "        z()", "    }", "}"];
    expect(fitted(fit(file, 4, ["\tif y {", "\t\tz()", "\t}"], ["\tif y {", "\t\tz()", "\t\t\tw()", "\t}"]))).toEqual([
      "    if y {",
      "        z()",
      "            w()",
      "    }",
    ]);
  });

  test("mixed lines for one level (tab and 4 spaces): a new line at that level is placed, in the file's majority style", () => {
    const file = ["func a() {", "\tx := 1", "    y := 2", "    w := 0", "}"];
    const r = fit(file, 1, ["  x := 1", "  y := 2"], ["  x := 1", "  y := 2", "  z := 3"]);
    expect(fitted(r)).toEqual(["    x := 1", "    y := 2", "    z := 3"]);
  });

  test("blank and whitespace-only lines are kept exactly, and content after the indentation is never touched", () => {
    const r = fit(PY, 1, ["  if x:", "    return 1"], ["  if x:", "", "   \t ", "    return  1 \t", "\t"]);
    expect(fitted(r)).toEqual(["    if x:", "", "   \t ", "        return  1 \t", "\t"]);
  });

  test("indentation that already agrees is left alone, even on lines old_string never showed", () => {
    expect(fitted(fitIndentation(["    a  b"], ["    a b"], ["  c", "      d"]))).toEqual(["  c", "      d"]);
  });

  test("JSDoc alignment: the one-space rest under a level is kept", () => {
    const file = ["class A {", "  /**", "   * doc", "   */", "  m() {}", "}"];
    const r = fit(
      file,
      1,
      ["    /**", "     * doc", "     */", "    m() {}"],
      ["    /**", "     * doc", "     * more", "     */", "    m() {", "        return 1;", "    }"],
    );
    expect(fitted(r)).toEqual(["  /**", "   * doc", "   * more", "   */", "  m() {", "    return 1;", "  }"]);
  });
});

describe("fitIndentation: properties", () => {
  const indent = fc.constantFrom("", "  ", "    ", "\t", "\t\t", "        ");
  const word = fc.string({ unit: fc.constantFrom("a", "b", "c"), minLength: 1, maxLength: 3 });
  const line = fc.tuple(indent, word).map(([i, w]) => i + w);

  test("fitted: every line keeps its content, blank lines are byte-identical, and old_string's own lines come back as the file's", () => {
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 6 }),
        fc.array(indent, { minLength: 6, maxLength: 6 }),
        fc.array(fc.oneof(line, fc.constant("")), { maxLength: 6 }),
        (file, modelIndents, extra) => {
          const needle = file.map((l, i) => modelIndents[i] + l.slice(indentOf(l).length));
          const r = fitIndentation(needle, file, [...needle, ...extra], file);
          if (r.kind === "too-large") throw new Error("no size limit was given");
          if (r.kind !== "fitted") {
            expect(r.lines.length).toBeGreaterThan(0);
            return;
          }
          const sent = [...needle, ...extra];
          r.lines.forEach((out, i) => {
            if (sent[i].trim() === "") expect(out).toBe(sent[i]);
            else expect(out.slice(indentOf(out).length)).toBe(sent[i].slice(indentOf(sent[i]).length));
          });
          // A model indentation paired with one file indentation always reads as it.
          const pairs = new Map<string, Set<string>>();
          for (let k = 0; k < needle.length; k++) pairs.set(indentOf(needle[k]), (pairs.get(indentOf(needle[k])) ?? new Set()).add(indentOf(file[k])));
          for (let k = 0; k < needle.length; k++) if (pairs.get(indentOf(needle[k]))?.size === 1) expect(r.lines[k]).toBe(file[k]);
        },
      ),
      { numRuns: 500 },
    );
  });

  /** A block structure as levels: each line at most one level deeper than the one before. */
  const levels = (min: number, max: number) =>
    fc.array(fc.constantFrom(-2, -1, 0, 0, 1, 1), { minLength: min, maxLength: max }).map((steps) => {
      const out: number[] = [];
      let level = 0;
      for (const s of steps) {
        level = Math.max(0, level + s);
        out.push(level);
      }
      return out;
    });
  const unit = fc.constantFrom("  ", "    ", "\t");

  test("never a wrong placement: when it fits, every line is where the structure puts it in the file's style", () => {
    let fittedCount = 0;
    fc.assert(
      fc.property(
        levels(1, 5),
        levels(1, 6),
        unit,
        unit,
        fc.integer({ min: 0, max: 2 }),
        fc.integer({ min: -2, max: 2 }),
        (old, rep, fileUnit, modelUnit, fileShift, modelShift) => {
          if ([...old, ...rep].some((l) => l + modelShift < 0)) return;
          if (fileUnit === modelUnit && modelShift === fileShift) return; // nothing to fit
          const render = (u: string, level: number, text: string) => u.repeat(level) + text;
          // The file: the blocks around the match, one level at a time (so it shows its own unit), then the matched lines.
          const outer = Array.from({ length: old[0] + fileShift }, (_, k) => render(fileUnit, k, `block${k}:`));
          const matched = old.map((l, i) => render(fileUnit, l + fileShift, `old${i}`));
          const needle = old.map((l, i) => render(modelUnit, l + modelShift, `old${i}`));
          const replacement = rep.map((l, j) => render(modelUnit, l + modelShift, `new${j}`));
          // Indentation that already agrees is kept as sent (as on the exact rung): nothing is fitted.
          if (needle.every((n, i) => indentOf(n) === indentOf(matched[i]))) return;
          const r = fitIndentation(needle, matched, replacement, [...outer, ...matched, "tail:", render(fileUnit, 1, "tail1")]);
          if (r.kind === "too-large") throw new Error("no size limit was given");
          if (r.kind === "fitted") {
            fittedCount++;
            expect(r.lines).toEqual(rep.map((l, j) => render(fileUnit, l + fileShift, `new${j}`)));
          } else {
            // Each reading offered is a complete placement, and the true one is among them.
            const truth = rep.map((l, j) => render(fileUnit, l + fileShift, `new${j}`));
            if (r.readings.length > 0) expect(r.readings).toContainEqual(truth);
          }
        },
      ),
      { numRuns: 3000 },
    );
    expect(fittedCount).toBeGreaterThan(1000); // it is not safe by refusing everything
  });
});

describe("findWhitespaceInsensitive: line comparisons bounded by file + needle", () => {
  /** The old search: the needle compared at every window (quadratic in lines). */
  function naiveStarts(lines: readonly string[], needle: readonly string[]): number[] {
    const want = needle.map(normalizeWhitespace);
    if (!want.some((l) => l !== "")) return [];
    const starts: number[] = [];
    for (let s = 0; s + want.length <= lines.length; s++) if (want.every((w, i) => normalizeWhitespace(lines[s + i]) === w)) starts.push(s);
    return starts;
  }
  const line = fc.array(fc.constantFrom("x", "y", " ", "\t", "\u00a0", "\uFEFF"), { maxLength: 4 }).map((a) => a.join(""));

  test("finds every window the window-by-window comparison finds, overlapping ones included", () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), fc.array(line, { minLength: 1, maxLength: 4 }), (file, needle) => {
        expect(findWhitespaceInsensitive(file, needle)).toEqual(naiveStarts(file, needle));
      }),
      { numRuns: 5000 },
    );
    expect(findWhitespaceInsensitive(["x", " x", "x ", "y"], ["x", "x"])).toEqual([0, 1]);
  });

  test("the attack at small scale: 4000 lines of 'x' and old_string of 1000 'x' lines then 'y'", () => {
    const file = Array.from({ length: 4000 }, () => "x");
    const needle = [...Array.from({ length: 1000 }, () => "  x"), "y"];
    const work = { steps: 0 };
    expect(findWhitespaceInsensitive(file, needle, work)).toEqual([]);
    // Window by window: ~3e6 comparisons.
    expect(work.steps).toBeLessThanOrEqual(2 * (file.length + needle.length));
  });

  test("a U+FEFF is never whitespace: it does not match a line without it", () => {
    expect(findWhitespaceInsensitive(["\uFEFFx = 1"], ["x = 1"])).toEqual([]);
    expect(findWhitespaceInsensitive(["  \uFEFFx  = 1 "], ["\uFEFFx = 1"])).toEqual([0]);
  });
});

describe("fitIndentation: the size is known before any line is built", () => {
  // The attack at small scale: a "\t" per level read as a 100-space file unit.
  const FILE = ["x {", `${" ".repeat(100)}foo();`, `${" ".repeat(200)}bar();`, "}"];
  const NEW = [`${"\t".repeat(1000)}q`, "\tfoo();"];

  test("past maxBytes: too-large, with the size the lines would take", () => {
    // 1000 levels of 100 spaces, "q", a newline, and "foo();" at its file indentation.
    const size = 100_000 + 1 + 1 + 100 + 6;
    expect(fitIndentation(["\tfoo();"], FILE.slice(1, 2), NEW, FILE, { maxBytes: 64 * 1024 })).toEqual({ kind: "too-large", bytes: size });
    expect(fitIndentation(["\tfoo();"], FILE.slice(1, 2), NEW, FILE, { maxBytes: size - 1 })).toEqual({ kind: "too-large", bytes: size });
    const r = fitted(fitIndentation(["\tfoo();"], FILE.slice(1, 2), NEW, FILE, { maxBytes: size }));
    expect(r).toEqual([`${" ".repeat(100_000)}q`, `${" ".repeat(100)}foo();`]);
    expect(fitted(fitIndentation(["\tfoo();"], FILE.slice(1, 2), NEW, FILE))).toEqual(r);
  });

  test("lines far past what a string can hold are refused without being built", () => {
    // 200k levels of a 100k-space unit: 2e10 spaces. Building them would throw (a string holds at most 2^31 - 1).
    const file = ["x {", `${" ".repeat(100_000)}foo();`, `${" ".repeat(200_000)}bar();`, "}"];
    const r = fitIndentation(["\tfoo();"], file.slice(1, 2), [`${"\t".repeat(200_000)}q`], file, { maxBytes: 32 * 1024 * 1024 });
    expect(r).toEqual({ kind: "too-large", bytes: 200_000 * 100_000 + 1 });
  });

  test("a paired indentation repeated on many lines counts each time", () => {
    const r = fitIndentation(
      ["\tfoo();"],
      FILE.slice(1, 2),
      Array.from({ length: 1000 }, () => "\tz();"),
      FILE,
      { maxBytes: 100_000 },
    );
    expect(r).toEqual({ kind: "too-large", bytes: 1000 * 104 + 999 });
  });

  test("ambiguous: too-large only when every reading is; readings that do not fit together are left out", () => {
    const file = ["def f(x):", "\tif x:", "\t\treturn 1", "\treturn 0"];
    const both = [
      ["\t\treturn 1", "print(x)"],
      ["\t\treturn 1", "\tprint(x)"],
    ];
    const at = (maxBytes: number) => fitIndentation(["    return 1"], file.slice(2, 3), ["    return 1", "print(x)"], file, { maxBytes });
    // The smaller reading takes 19 characters, the other 20.
    expect(at(18)).toEqual({ kind: "too-large", bytes: 19 });
    expect(at(19)).toMatchObject({ kind: "ambiguous", lines: [1], readings: [] });
    expect(at(38)).toMatchObject({ kind: "ambiguous", lines: [1], readings: [] });
    expect(at(39)).toMatchObject({ kind: "ambiguous", lines: [1], readings: both });
  });

  test("ordinary fits are the same with a budget as without", () => {
    const cases: [readonly string[], number, string[], string[]][] = [
      [PY, 1, ["  if x:", "    return 1", "  return 0"], ["  if x:", "    return 1", "  return 0", "", "def g():", "  return 2"]],
      [GO, 3, ["  x := 2"], ["y := 0", "  x := 3"]],
    ];
    for (const [file, at, needle, replacement] of cases) {
      const unbounded = fit(file, at, needle, replacement);
      const size = fitted(unbounded).join("\n").length;
      expect(fitIndentation(needle, file.slice(at, at + needle.length), replacement, file, { maxBytes: size })).toEqual(unbounded);
      expect(fitIndentation(needle, file.slice(at, at + needle.length), replacement, file, { maxBytes: size - 1 })).toEqual({ kind: "too-large", bytes: size });
    }
  });
});

describe("applyStringEdit with maxBytes: what the ladder makes longer is checked first", () => {
  const FILE = ["x {", `${" ".repeat(100)}foo();`, `${" ".repeat(200)}bar();`, "}"];
  const NEW = `${"\t".repeat(1000)}q\n\tfoo();`;
  // The rest of the file, a newline after each line.
  const outside = 4 + 207 + 2;

  test("the indentation attack at small scale: too-large, with the lines it matched, nothing applied", () => {
    expect(applyStringEdit(FILE, "\tfoo();", NEW, { maxBytes: 64 * 1024 })).toEqual({
      kind: "too-large",
      bytes: outside + 100_108,
      range: { start: 1, end: 2 },
    });
    const ok = applyStringEdit(FILE, "\tfoo();", NEW, { maxBytes: outside + 100_108 });
    expect(ok.kind).toBe("ok");
    expect(applyStringEdit(FILE, "\tfoo();", NEW)).toEqual(ok);
  });

  test("an ordinary whitespace-insensitive edit is unchanged by the limit", () => {
    const file = ["func main() {", "\tif ok {", "\t\trun()", "\t}", "}"];
    const args = ["    if ok {\n        run()\n    }", "    if ok {\n        run()\n        log()\n    }"] as const;
    expect(applyStringEdit(file, ...args, { maxBytes: 1024 })).toEqual(applyStringEdit(file, ...args));
  });

  test("a continuation whose indented reading would pass the limit offers only the reading as written", () => {
    const file = ["def f():", `${" ".repeat(1000)}pass`];
    const newString = "x = 1\ny = 2\nz = 3";
    // The other line, the indentation, new_string, and the indentation again before its two later lines.
    const relative = 9 + 1000 + newString.length + 2 * 1000;
    const fits = applyStringEdit(file, "pass", newString, { maxBytes: relative });
    expect(fits).toMatchObject({ kind: "continuation-ambiguous", line: 1 });
    if (fits.kind !== "continuation-ambiguous") return;
    expect(fits.readings.length).toBe(2);
    expect(applyStringEdit(file, "pass", newString)).toEqual(fits);
    expect(applyStringEdit(file, "pass", newString, { maxBytes: relative - 1 })).toEqual({ ...fits, readings: [fits.readings[0]] });
  });

  test("editsAtMatches leaves out a place whose fitted edit would pass the limit", () => {
    const file = ["a {", `${" ".repeat(100)}foo();`, "}", "b {", `${" ".repeat(100)}foo();`, `${" ".repeat(200)}x();`, "}"];
    expect(editsAtMatches(file, "\tfoo();", NEW, 5, { maxBytes: 64 * 1024 })).toEqual([undefined, undefined]);
    const small = editsAtMatches(file, "\tfoo();", "\tfoo();\n\t\tbar();", 5, { maxBytes: 64 * 1024 });
    expect(small).toEqual(editsAtMatches(file, "\tfoo();", "\tfoo();\n\t\tbar();", 5));
    expect(small.every((e) => e !== undefined)).toBe(true);
  });
});
