import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { formatHash, lineHash } from "../../src/hash/fnv.ts";
import { spliceLines } from "../../src/text/eol.ts";
import { applyLineEdits, type LineEdit, spliceLineEdits, textToLines } from "../../src/text/line-edits.ts";
import { joinLines, splitLines } from "../../src/text/lines.ts";
import { interpretEscapes } from "../../src/text/match-escapes.ts";
import { fitIndentation } from "../../src/text/match-fuzzy.ts";
import { applyStringEdit, type EditApplied, findMatch, MAX_LISTED_MATCHES, type StringEditResult } from "../../src/text/match.ts";
import { classifyDifference, closestWindows, lineSimilarity } from "../../src/text/similarity.ts";

const id = (lines: readonly string[], n: number) => `${n}:${formatHash(lineHash(lines[n - 1]))}`;

function applied(result: StringEditResult): EditApplied {
  if (result.kind !== "ok") throw new Error(`expected ok, got ${JSON.stringify(result)}`);
  return result;
}

/** The file text as every rung sees it: each line terminated. */
const terminated = (lines: readonly string[]) => lines.map((l) => `${l}\n`).join("");

describe("exact matches", () => {
  const file = ["import x from 'x';", "", "function add(a, b) {", "  return a + b;", "}", "export { add };"];

  test("a match inside a line replaces only that text; the edit is the whole line", () => {
    const r = applied(applyStringEdit(file, "a + b", "a - b"));
    expect(r.strategy).toBe("exact");
    expect(r.edits).toEqual([{ start: 3, end: 4, lines: ["  return a - b;"] }]);
    expect(r.lines).toEqual([...file.slice(0, 3), "  return a - b;", ...file.slice(4)]);
    expect(r.replacements).toBe(1);
    expect(r.matches).toEqual([{ line: 4, id: id(file, 4) }]);
    expect(r.hint).toBeUndefined();
  });

  test("a multi-line match keeps the prefix of its first line and the suffix of its last", () => {
    const r = applied(applyStringEdit(file, "(a, b) {\n  return", "(a, b, c) {\n  const s = a + b + c;\n  return"));
    expect(r.edits).toEqual([{ start: 2, end: 4, lines: ["function add(a, b, c) {", "  const s = a + b + c;", "  return a + b;"] }]);
    expect(r.lines.slice(5)).toEqual(file.slice(4));
  });

  test("several matches without replaceAll are ambiguous and listed by the id of their first line", () => {
    const r = findMatch(file, "add");
    expect(r).toEqual({
      kind: "ambiguous",
      strategy: "exact",
      total: 2,
      matches: [
        { line: 3, id: id(file, 3) },
        { line: 6, id: id(file, 6) },
      ],
    });
    expect(applyStringEdit(file, "add", "sum").kind).toBe("ambiguous");
  });

  test("replaceAll replaces every match; matches on one line become one edit", () => {
    const lines = ["a a", "b", "a"];
    const r = applied(applyStringEdit(lines, "a", "xy", { replaceAll: true }));
    expect(r.lines).toEqual(["xy xy", "b", "xy"]);
    expect(r.replacements).toBe(3);
    expect(r.edits).toEqual([
      { start: 0, end: 1, lines: ["xy xy"] },
      { start: 2, end: 3, lines: ["xy"] },
    ]);
    expect(r.matches.map((m) => m.line)).toEqual([1, 1, 3]);
  });

  test("replaceAll with a single match is fine", () => {
    expect(applied(applyStringEdit(file, "import", "// import", { replaceAll: true })).lines[0]).toBe("// import x from 'x';");
  });

  test("matches do not overlap and are taken left to right", () => {
    expect(findMatch(["aaaa"], "aa", { replaceAll: true })).toMatchObject({ kind: "found", spans: { length: 2 } });
    expect(applied(applyStringEdit(["aaa"], "aa", "b", { replaceAll: true })).lines).toEqual(["ba"]);
    // Across lines too: "a\na" occurs twice in "a\na\na\na" only when the first does not eat the second's start.
    expect(applied(applyStringEdit(["a", "a", "a", "a"], "a\na", "b", { replaceAll: true })).lines).toEqual(["b", "b"]);
  });

  test("replacement patterns in new_string stay literal", () => {
    const lines = ["price = 10;"];
    for (const special of ["$&", "$$", "$1", "$'", "$`", "$<name>"]) {
      const r = applied(applyStringEdit(lines, "10", `${special}5`));
      expect(r.lines).toEqual([`price = ${special}5;`]);
    }
    expect(applied(applyStringEdit(["a.b.c"], ".", "$&$&", { replaceAll: true })).lines).toEqual(["a$&$&b$&$&c"]);
  });

  test("old_string in CRLF matches the lines (terminators belong to the file, not the content)", () => {
    const r = applied(applyStringEdit(["one", "two", "three"], "one\r\ntwo", "1\r\n2"));
    expect(r.strategy).toBe("exact");
    expect(r.lines).toEqual(["1", "2", "three"]);
  });

  test("a trailing newline in old_string matches the last line, with or without a final newline in the file", () => {
    const lines = ["keep", "last"];
    expect(applied(applyStringEdit(lines, "last\n", "final\n")).lines).toEqual(["keep", "final"]);
    expect(applied(applyStringEdit(lines, "last\n", "")).lines).toEqual(["keep"]);
    expect(applied(applyStringEdit(lines, "keep\nlast\n", "")).lines).toEqual([]);
  });

  test("removing a line's terminator joins it with the next line", () => {
    expect(applied(applyStringEdit(["a", "b", "c"], "a\n", "x")).lines).toEqual(["xb", "c"]);
    const r = applied(applyStringEdit(["a", "b", "c"], "a\n", "x"));
    expect(r.edits).toEqual([{ start: 0, end: 2, lines: ["xb"] }]);
  });

  test("deleting a whole line with its newline removes it, not leaves it empty", () => {
    expect(applied(applyStringEdit(["a", "b", "c"], "b\n", "")).lines).toEqual(["a", "c"]);
    expect(applied(applyStringEdit(["a", "b", "c"], "b", "")).lines).toEqual(["a", "", "c"]);
  });

  test("inserting lines keeps the lines around them untouched", () => {
    const r = applied(applyStringEdit(["a", "b"], "a\n", "a\nnew 1\nnew 2\n"));
    expect(r.lines).toEqual(["a", "new 1", "new 2", "b"]);
    expect(r.edits).toEqual([{ start: 0, end: 1, lines: ["a", "new 1", "new 2"] }]);
  });
});

describe("arguments that cannot edit", () => {
  test("an empty old_string is invalid immediately, even on an empty file", () => {
    for (const lines of [[], ["a"], ["", ""]]) {
      expect(applyStringEdit(lines, "", "x")).toMatchObject({ kind: "invalid" });
      expect(findMatch(lines, "", { replaceAll: true })).toMatchObject({ kind: "invalid" });
    }
  });

  test("old_string equal to new_string is no-change, before any search", () => {
    expect(applyStringEdit(["a"], "a", "a")).toEqual({ kind: "no-change", reason: "same-strings" });
    expect(applyStringEdit(["a"], "missing", "missing")).toEqual({ kind: "no-change", reason: "same-strings" });
    expect(applyStringEdit(["a", "b"], "a\r\nb", "a\nb")).toEqual({ kind: "no-change", reason: "same-strings" });
  });

  test("a replacement that leaves the file as it was is no-change", () => {
    // Escaped old_string; new_string has real newlines so it is taken as written, and equals the match.
    expect(applyStringEdit(["a", "b"], "a\\nb", "a\nb")).toEqual({ kind: "no-change", reason: "same-result" });
    // Fuzzy: the fitted replacement is exactly the matched line.
    expect(applyStringEdit(["  a  b"], "a b", "a  b")).toEqual({ kind: "no-change", reason: "same-result" });
  });

  test("an empty file has nothing to match", () => {
    expect(applyStringEdit([], "a", "b")).toEqual({ kind: "no-match", candidates: [], whitespacePlaces: [], needle: "a" });
  });
});

describe("escaped-literal recovery", () => {
  const file = ["if (x) {", "\treturn 1;", "}"];

  test("literal \\n and \\t are read as newline and tab when that gives a unique match", () => {
    const r = applied(applyStringEdit(file, "if (x) {\\n\\treturn 1;", "if (x) {\\n\\treturn 2;"));
    expect(r.strategy).toBe("escaped");
    expect(r.newStringInterpreted).toBe(true);
    expect(r.lines).toEqual(["if (x) {", "\treturn 2;", "}"]);
    expect(r.hint).toContain("literal \\n");
    expect(r.hint).toContain("new_string was read the same way");
  });

  test("a literal \\r\\n is read as one newline", () => {
    expect(applied(applyStringEdit(file, "{\\r\\n\\treturn", "{\\r\\n\\tyield")).lines).toEqual(["if (x) {", "\tyield 1;", "}"]);
  });

  test("new_string that already has real newlines is taken as written", () => {
    const r = applied(applyStringEdit(file, "return 1;\\n}", 'return "1\\n";\n}'));
    expect(r.newStringInterpreted).toBe(false);
    expect(r.lines).toEqual(["if (x) {", '\treturn "1\\n";', "}"]);
    expect(r.hint).not.toContain("new_string was read");
  });

  test("an exact match wins: escapes that exist literally in the file are not reinterpreted", () => {
    const code = ['printf("a\\n");', "next();"];
    const r = applied(applyStringEdit(code, 'printf("a\\n");', 'printf("b\\n");'));
    expect(r.strategy).toBe("exact");
    expect(r.lines).toEqual(['printf("b\\n");', "next();"]);
  });

  test("several matches after reading escapes are ambiguous unless replaceAll", () => {
    const lines = ["a", "b", "a", "b"];
    expect(applyStringEdit(lines, "a\\nb", "c")).toEqual({
      kind: "ambiguous",
      strategy: "escaped",
      total: 2,
      matches: [
        { line: 1, id: id(lines, 1) },
        { line: 3, id: id(lines, 3) },
      ],
    });
    const r = applied(applyStringEdit(lines, "a\\nb", "c", { replaceAll: true }));
    expect(r.strategy).toBe("escaped");
    expect(r.lines).toEqual(["c", "c"]);
  });

  test('only \\n, \\t and \\r\\n are read; \\\\n, \\" and other escapes stay as written', () => {
    expect(interpretEscapes("a\\nb\\tc")).toBe("a\nb\tc");
    expect(interpretEscapes("x\\r\\ny")).toBe("x\ny");
    expect(interpretEscapes("re = /\\\\n/")).toBe("re = /\\\\n/");
    expect(interpretEscapes('say \\"hi\\"\\n')).toBe('say \\"hi\\"\n');
    expect(interpretEscapes("a\\rb\\x\\")).toBe("a\\rb\\x\\");
    expect(interpretEscapes("\\\\\\n")).toBe("\\\\\n");
  });

  test("escape reading that still matches nothing falls through to diagnostics on the meant lines", () => {
    const r = findMatch(file, "if (x) {\\n\\treturn 3;");
    expect(r.kind).toBe("no-match");
    if (r.kind !== "no-match") return;
    expect(r.candidates[0]).toMatchObject({ start: 0, end: 2, differs: "content" });
  });
});

describe("whitespace-insensitive whole-line match", () => {
  test("model spaces against file tabs: matched, and the replacement is re-indented with tabs", () => {
    const file = ["func main() {", "\tif ok {", "\t\trun()", "\t}", "}"];
    const r = applied(applyStringEdit(file, "    if ok {\n        run()\n    }", "    if ok {\n        run()\n        log()\n    }"));
    expect(r.strategy).toBe("fuzzy");
    expect(r.edits).toEqual([{ start: 1, end: 4, lines: ["\tif ok {", "\t\trun()", "\t\tlog()", "\t}"] }]);
    expect(r.lines[0]).toBe(file[0]);
    expect(r.lines[r.lines.length - 1]).toBe(file[4]);
    expect(r.hint).toContain("lines 2-4");
    expect(r.hint).toContain("whitespace is ignored");
  });

  test("dropped indentation is restored line by line, keeping relative nesting", () => {
    const file = ["class A {", "    method() {", "        if (x) {", "            y();", "        }", "    }", "}"];
    const r = applied(applyStringEdit(file, "if (x) {\n    y();\n}", "if (x) {\n    y();\n} else {\n    z();\n    if (w) {\n        v();\n    }\n}"));
    expect(r.strategy).toBe("fuzzy");
    expect(r.edits[0]).toEqual({
      start: 2,
      end: 5,
      lines: [
        "        if (x) {",
        "            y();",
        "        } else {",
        "            z();",
        "            if (w) {",
        "                v();",
        "            }",
        "        }",
      ],
    });
  });

  test("extra indentation in old_string is removed, and a line shallower than all is shifted by the same amount", () => {
    const file = ["  a:", "    b: 1"];
    const r = applied(applyStringEdit(file, "        a:\n          b: 1", "        a:\n          b: 2\n      c: 3"));
    expect(r.edits[0].lines).toEqual(["  a:", "    b: 2", "c: 3"]);
  });

  test("trailing spaces and inner whitespace runs do not prevent the match; other lines stay byte-identical", () => {
    const file = ["keep   this  ", "let  x =  1;   ", "keep\tthat "];
    const r = applied(applyStringEdit(file, "let x = 1;", "let x = 2;"));
    expect(r.strategy).toBe("fuzzy");
    expect(r.lines).toEqual(["keep   this  ", "let x = 2;", "keep\tthat "]);
    expect(r.edits).toEqual([{ start: 1, end: 2, lines: ["let x = 2;"] }]);
  });

  test("never writes normalised text: new_string's inner whitespace is kept as sent", () => {
    const r = applied(applyStringEdit(["\tx  =  1"], "x = 1", "x  =\t2"));
    expect(r.lines).toEqual(["\tx  =\t2"]);
  });

  test("more than one whitespace-insensitive match is refused, even with replaceAll", () => {
    const file = ["\tfoo();", "bar();", "  foo();"];
    for (const replaceAll of [false, true]) {
      expect(applyStringEdit(file, "foo();  ", "baz();", { replaceAll })).toEqual({
        kind: "ambiguous",
        strategy: "fuzzy",
        total: 2,
        matches: [
          { line: 1, id: id(file, 1) },
          { line: 3, id: id(file, 3) },
        ],
      });
    }
  });

  test("blank lines must match blank lines; an old_string of only blank lines never fuzzy-matches", () => {
    const file = ["a", "", "b", "  ", "c"];
    expect(applied(applyStringEdit(file, "  a\n\n  b", "A\n\nB")).lines).toEqual(["A", "", "B", "  ", "c"]);
    expect(findMatch(file, "a\nb").kind).toBe("no-match");
    expect(findMatch(["x", "   ", "", "y"], "\t\n\t").kind).toBe("no-match");
  });

  test("a deleted fuzzy match removes exactly its lines", () => {
    expect(applied(applyStringEdit(["a", "  b  ", "  c", "d"], "b\nc", "")).lines).toEqual(["a", "d"]);
  });

  test("fitIndentation leaves the replacement alone when the indentation already agrees", () => {
    expect(fitIndentation(["  a  b"], ["  a b"], ["  c", "d"])).toEqual({ kind: "fitted", lines: ["  c", "d"] });
  });

  test("fitIndentation converts extra indentation from tabs to the file's spaces", () => {
    expect(fitIndentation(["\tif x:"], ["    if x:"], ["\tif x:", "\t\tpass", "", "\t\t\treturn"])).toEqual({
      kind: "fitted",
      lines: ["    if x:", "        pass", "", "            return"],
    });
  });
});

describe("no-match diagnostics", () => {
  const file = [
    "def load(path):",
    "    with open(path) as f:",
    "        return f.read()",
    "",
    "def save(path, data):",
    "    with open(path, 'w') as f:",
    "        f.write(data)",
    "",
    "def remove(path):",
    "    os.remove(path)",
  ];

  test("the closest windows come best first, with similarity, what differs and their ids", () => {
    const r = findMatch(file, "def save(path, text):\n    with open(path, 'w') as f:\n        f.write(text)");
    expect(r.kind).toBe("no-match");
    if (r.kind !== "no-match") return;
    const [best, ...rest] = r.candidates;
    expect(best).toMatchObject({ start: 4, end: 7, startId: id(file, 5), endId: id(file, 7), differs: "content" });
    expect(best.firstDifference).toEqual({ needleLine: 1, id: id(file, 5) });
    expect(best.percent).toBeGreaterThan(80);
    expect(best.percent).toBeLessThan(100);
    expect(best.percent).toBe(Math.round(best.similarity * 100));
    expect(r.candidates.length).toBeLessThanOrEqual(3);
    for (const c of rest) expect(c.similarity).toBeLessThanOrEqual(best.similarity);
    // Windows never overlap each other.
    for (let i = 0; i < r.candidates.length; i++) {
      for (let j = i + 1; j < r.candidates.length; j++) {
        const [a, b] = [r.candidates[i], r.candidates[j]];
        expect(a.end <= b.start || b.end <= a.start).toBe(true);
      }
    }
  });

  test("whitespace inserted inside a line is reported as a whitespace-only difference", () => {
    const r = findMatch(["x = a+b;", "y = 2;"], "x = a + b;");
    expect(r.kind).toBe("no-match");
    if (r.kind !== "no-match") return;
    expect(r.candidates[0]).toMatchObject({ start: 0, differs: "whitespace", startId: id(["x = a+b;"], 1) });
  });

  test("three difference kinds are told apart", () => {
    expect(classifyDifference(["  a", "b"], ["\ta", "b"])).toBe("indentation");
    expect(classifyDifference(["a + b"], ["a+b  "])).toBe("whitespace");
    expect(classifyDifference(["  a"], ["a+"])).toBe("content");
    expect(classifyDifference(["a"], ["a"])).toBe("none");
    expect(classifyDifference(["a"], ["a", "b"])).toBe("content");
  });

  test("closestWindows ranks three windows and labels indentation-only ones", () => {
    const lines = ["alpha beta", "noise 1", "    alpha beta", "noise 2", "alpha beta gamma delta", "noise 3"];
    const c = closestWindows(lines, ["alpha beta"]);
    expect(c.map((w) => w.start)).toEqual([0, 2, 4]);
    expect(c.map((w) => w.differs)).toEqual(["none", "indentation", "content"]);
    expect(c[0].percent).toBe(100);
    expect(c[1].percent).toBe(99); // equal after collapsing whitespace, but not identical
    expect(c[2].percent).toBeLessThan(c[1].percent);
    expect(c[2].startId).toBe(id(lines, 5));
  });

  test("nothing resembling old_string gives no candidates rather than noise", () => {
    expect(findMatch(file, "SELECT * FROM users WHERE id = 1")).toEqual({
      kind: "no-match",
      candidates: [],
      whitespacePlaces: [],
      needle: "SELECT * FROM users WHERE id = 1",
    });
  });

  test("line similarity is 1 for whitespace-only differences and falls with edits", () => {
    expect(lineSimilarity("  a  b", "a b")).toBe(1);
    expect(lineSimilarity("", "   ")).toBe(1);
    const near = lineSimilarity("return value;", "return valeu;");
    const far = lineSimilarity("return value;", "throw error;");
    expect(near).toBeGreaterThan(far);
    expect(near).toBeLessThan(1);
  });
});

describe("a large repetitive file", () => {
  const block = ["  if (ok) {", "    count++;", "  }"];
  const lines = Array.from({ length: 10_000 }, (_, i) => block[i % 3]);
  lines[5001] = "  if (done) {";

  test("an ambiguous match counts every occurrence and lists the first 50 ids", () => {
    const r = findMatch(lines, "count++;");
    expect(r.kind).toBe("ambiguous");
    if (r.kind !== "ambiguous") return;
    expect(r.total).toBe(3333);
    expect(r.matches.length).toBe(MAX_LISTED_MATCHES);
    expect(r.matches[0]).toEqual({ line: 2, id: id(lines, 2) });
    expect(r.matches[49]).toEqual({ line: 149, id: id(lines, 149) });
  });

  test("replaceAll edits every occurrence and nothing else", () => {
    const r = applied(applyStringEdit(lines, "count++;", "count += 1;", { replaceAll: true }));
    expect(r.replacements).toBe(3333);
    expect(r.edits.length).toBe(3333);
    r.lines.forEach((line, i) => {
      expect(line).toBe(i % 3 === 1 ? "    count += 1;" : lines[i]);
    });
  });

  test("a unique multi-line match is found among near-duplicates", () => {
    const r = applied(applyStringEdit(lines, "  if (done) {\n    count++;", "  if (done) {\n    count--;"));
    expect(r.edits).toEqual([{ start: 5001, end: 5003, lines: ["  if (done) {", "    count--;"] }]);
  });

  test("diagnostics find the near miss", () => {
    const r = findMatch(lines, "  if (done) {\n    count++\n  }");
    expect(r.kind).toBe("no-match");
    if (r.kind !== "no-match") return;
    expect(r.candidates[0]).toMatchObject({ start: 5001, end: 5004, differs: "content", firstDifference: { needleLine: 2 } });
  });
});

describe("diagnostics on a big file (cheap ranking path)", () => {
  const lines = Array.from({ length: 100_000 }, (_, i) => `const value${i} = compute(${i % 7}, "k${i}");`);

  test("a one-line typo is located among 100k lines", () => {
    const r = findMatch(lines, 'const valeu76543 = compute(3, "k76543");');
    expect(r.kind).toBe("no-match");
    if (r.kind !== "no-match") return;
    expect(r.candidates[0]).toMatchObject({ start: 76_543, startId: id(lines, 76_544), differs: "content" });
  });

  test("a multi-line near miss is located among 100k lines", () => {
    const needle = lines.slice(31_000, 31_060).map((l, i) => (i === 30 ? l.replace("const", "let") : l));
    const r = findMatch(lines, needle.join("\n"));
    expect(r.kind).toBe("no-match");
    if (r.kind !== "no-match") return;
    expect(r.candidates[0]).toMatchObject({ start: 31_000, end: 31_060, firstDifference: { needleLine: 31 } });
  });
});

describe("splicing the edits into the file's own line endings", () => {
  const spliced = (text: string, edits: readonly LineEdit[]) => {
    const out = spliceLineEdits(splitLines(text), edits);
    return joinLines(out.lines, out.eols);
  };
  const edit = (text: string, oldString: string, newString: string, replaceAll = false) =>
    spliced(text, applied(applyStringEdit(splitLines(text).lines, oldString, newString, { replaceAll })).edits);

  test("a CRLF file stays CRLF, and a mixed file keeps each untouched line's ending", () => {
    expect(edit("a\r\nb\r\nc\r\n", "b", "B1\nB2")).toBe("a\r\nB1\r\nB2\r\nc\r\n");
    // B1 reuses the "\n" of the line it replaces; the extra line takes the dominant "\r\n".
    expect(edit("a\r\nb\nc\r\nd\r\n", "b", "B1\nB2")).toBe("a\r\nB1\nB2\r\nc\r\nd\r\n");
    expect(edit("x\ny\r\nx\nz\r\n", "x", "w", true)).toBe("w\ny\r\nw\nz\r\n");
  });

  test("a missing final newline stays missing, a present one stays present", () => {
    expect(edit("a\nb", "b", "c")).toBe("a\nc");
    expect(edit("a\nb", "b", "c\nd")).toBe("a\nc\nd");
    expect(edit("a\nb", "\nb", "")).toBe("a");
    expect(edit("a\r\nb\r\n", "b\n", "")).toBe("a\r\n");
    expect(edit("a\r\nb\r\n", "a\n", "")).toBe("b\r\n");
  });

  test("an empty last line left without a terminator is dropped, and the applied edits say so", () => {
    const src = splitLines("a\n\nb");
    const r = applied(applyStringEdit(src.lines, "b", ""));
    const out = spliceLineEdits(src, r.edits);
    expect(joinLines(out.lines, out.eols)).toBe("a\n\n");
    expect(out.lines).toEqual(["a", ""]);
    expect(out.edits).toEqual([{ start: 2, end: 3, lines: [] }]);
    const moved = spliceLineEdits(src, [{ start: 2, end: 3, lines: [] }]);
    expect(joinLines(moved.lines, moved.eols)).toBe("a\n");
    expect(moved.edits).toEqual([{ start: 1, end: 3, lines: [] }]);
  });

  test("dropping that line merges only the edits it comes from; earlier touching edits stay as given", () => {
    const src = splitLines("a\nb\nc\nd\ne");
    const given: LineEdit[] = [
      { start: 0, end: 1, lines: ["A1", "A2"] },
      { start: 1, end: 2, lines: ["B"] },
      { start: 3, end: 4, lines: ["D", ""] },
      { start: 4, end: 5, lines: [] },
    ];
    const out = spliceLineEdits(src, given);
    expect(joinLines(out.lines, out.eols)).toBe("A1\nA2\nB\nc\nD\n");
    // The first two edits touch but feed nothing to the dropped line: the diff still shows them one by one.
    expect(out.edits).toEqual([given[0], given[1], { start: 3, end: 5, lines: ["D"] }]);
  });

  test("one edit splices exactly like spliceLines; several keep every untouched line byte-identical", () => {
    const eol = fc.constantFrom("\n", "\r\n");
    // Up to 30 lines at full length (fast-check's default size stops at 10), edits anywhere in them.
    const text = fc
      .tuple(fc.array(fc.tuple(fc.constantFrom("a", "b", "c", ""), eol), { minLength: 1, maxLength: 30, size: "max" }), fc.boolean())
      .map(([rows, final]) => {
        const t = rows.map(([l, e]) => l + e).join("");
        return final ? t : t.slice(0, t.endsWith("\r\n") ? -2 : -1);
      });
    const edits = fc.array(fc.tuple(fc.nat(32), fc.nat(3), fc.array(fc.constantFrom("x", "y", ""), { maxLength: 3 })), { maxLength: 6 });
    // Now and then one more edit that reaches the end of the file (where an empty unterminated line is dropped).
    const last = fc.option(fc.tuple(fc.nat(3), fc.array(fc.constantFrom("x", ""), { maxLength: 3 })));
    fc.assert(
      fc.property(text, edits, last, (t, picked, tail) => {
        const n0 = splitLines(t).lines.length;
        const raw = tail === null ? picked : [...picked.filter(([s]) => s < n0 - tail[0]), [n0 - tail[0], tail[0], tail[1]] as [number, number, string[]]];
        const src = splitLines(t);
        const n = src.lines.length;
        const list: LineEdit[] = [];
        let pos = 0;
        for (const [s, len, lines] of raw.sort((p, q) => p[0] - q[0])) {
          const start = Math.min(s, n);
          if (start < pos) continue;
          list.push({ start, end: Math.min(n, start + len), lines });
          pos = Math.min(n, start + len);
        }
        const out = spliceLineEdits(src, list);
        // What is written reads back as the same lines, and the applied edits describe it.
        expect(splitLines(joinLines(out.lines, out.eols))).toEqual({ lines: out.lines, eols: out.eols });
        expect(applyLineEdits(src.lines, out.edits)).toEqual(out.lines);
        if (list.length === 1) {
          const [e] = list;
          expect({ lines: out.lines, eols: out.eols }).toEqual(spliceLines(src, e.start, e.end - e.start, e.lines));
        }
        // Lines before the first edit keep their terminators (the last one only if it stays last).
        const first = list[0]?.start ?? n;
        for (let i = 0; i < Math.min(first, n - 1, out.lines.length - 1); i++) expect(out.eols[i]).toBe(src.eols[i]);
        const endsWithNewline = n === 0 || src.eols[n - 1] !== "";
        // Kept, unless an empty unterminated last line had to go (then the line before it ends the file, terminated).
        const dropped = out.lines.length !== applyLineEdits(src.lines, list).length;
        if (out.lines.length > 0 && !dropped) expect(out.eols[out.eols.length - 1] !== "").toBe(endsWithNewline);
        expect(out.eols.slice(0, -1).every((e) => e !== "")).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe("properties", () => {
  const line = fc.string({ unit: fc.constantFrom("a", "b", " ", "\t", "$", "&"), maxLength: 6 });
  const file = fc.array(line, { minLength: 1, maxLength: 20, size: "max" });
  const replacement = fc.string({ unit: fc.constantFrom("x", "a", "\n", "$", "&", " "), maxLength: 6 });

  /** A substring of the file's text (every line terminated) as old_string. */
  const fileAndNeedle = file.chain((lines) => {
    const text = terminated(lines);
    return fc.tuple(fc.nat(text.length - 1), fc.integer({ min: 1, max: 8 })).map(([start, len]) => ({ lines, needle: text.slice(start, start + len) }));
  });

  test("an edit equals replacing the text by index, and lines outside the edits are untouched", () => {
    fc.assert(
      fc.property(fileAndNeedle, replacement, fc.boolean(), ({ lines, needle }, newText, replaceAll) => {
        const text = terminated(lines);
        const count = text.split(needle).length - 1;
        // Uniqueness counts overlapping occurrences too ("aa" is twice in "aaa"); replace_all replaces the non-overlapping ones.
        let overlapping = 0;
        for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) overlapping++;
        const r = applyStringEdit(lines, needle, newText, { replaceAll });
        if (needle === newText) return expect(r.kind).toBe("no-change");
        if (overlapping > 1 && !replaceAll) return expect(r).toMatchObject({ kind: "ambiguous", total: overlapping });
        // A whole line's text after its indentation, replaced by several lines: indentation is not guessed.
        const [head, ...later] = newText.split("\n");
        const leftOut = lines.some((l) => l !== needle && l.trimStart() !== l && l.endsWith(needle) && l.slice(0, l.length - needle.length).trim() === "");
        if (!needle.includes("\n") && !/^\s/.test(needle) && head.trim() !== "" && later.some((t) => t.trim() !== "") && leftOut) {
          return expect(r.kind).toBe("continuation-ambiguous");
        }
        const expected = textToLines(text.split(needle).join(newText));
        // E.g. deleting the last line's terminator: the lines (and the file, whose final-newline state the caller keeps) stay the same.
        if (expected.length === lines.length && expected.every((l, i) => l === lines[i])) {
          return expect(r).toEqual({ kind: "no-change", reason: "same-result" });
        }
        const ok = applied(r);
        expect(ok.strategy).toBe("exact");
        expect(ok.replacements).toBe(count);
        // Index-based replacement (split/join never interprets "$" patterns).
        expect(ok.lines).toEqual(expected);
        expect(applyLineEdits(lines, ok.edits)).toEqual(ok.lines);
        // Untouched lines are the same strings at the same distance from the edits.
        const first = ok.edits[0];
        const last = ok.edits[ok.edits.length - 1];
        expect(ok.lines.slice(0, first.start)).toEqual(lines.slice(0, first.start));
        const tail = lines.length - last.end;
        expect(ok.lines.slice(ok.lines.length - tail)).toEqual(lines.slice(last.end));
        for (let i = 1; i < ok.edits.length; i++) expect(ok.edits[i].start).toBeGreaterThanOrEqual(ok.edits[i - 1].end);
      }),
      { numRuns: 500 },
    );
  });

  test("a fuzzy edit replaces exactly the matched lines", () => {
    const word = fc.string({ unit: fc.constantFrom("p", "q", "r"), minLength: 1, maxLength: 3 });
    const indented = fc.tuple(fc.constantFrom("", " ", "  ", "\t"), word, fc.constantFrom("", " ")).map((p) => p.join(""));
    fc.assert(
      fc.property(fc.array(indented, { minLength: 1, maxLength: 20, size: "max" }), fc.nat(), fc.integer({ min: 1, max: 3 }), (lines, at, len) => {
        const start = at % lines.length;
        const window = lines.slice(start, start + len);
        const needle = window.map((l) => `    ${l.trim()}   `).join("\n");
        const r = applyStringEdit(lines, needle, "NEW");
        if (r.kind !== "ok" || r.strategy !== "fuzzy") return;
        const [edit] = r.edits;
        expect(edit.end - edit.start).toBe(window.length);
        expect(r.lines.slice(0, edit.start)).toEqual(lines.slice(0, edit.start));
        expect(r.lines.slice(edit.start + 1)).toEqual(lines.slice(edit.end));
        expect(r.lines[edit.start].trim()).toBe("NEW");
      }),
      { numRuns: 300 },
    );
  });
});
