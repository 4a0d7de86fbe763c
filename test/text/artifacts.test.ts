/** Pure detection behind issue 12's byte classes: view prefixes, code fences, escape places, the BOM in edit strings. */
import { describe, expect, test } from "bun:test";
import { fenceWrapped, findViewPrefixes, isMarkdownPath } from "../../src/text/artifacts.ts";
import { applyStringEditWithBom } from "../../src/text/match-bom.ts";
import { escapePlaces } from "../../src/text/match-escapes.ts";
import { applyStringEdit } from "../../src/text/match.ts";
import { normalizeWhitespace } from "../../src/text/match-fuzzy.ts";

describe("view prefixes", () => {
  test("view, search and diff row prefixes are found and removed; other text is not", () => {
    const found = findViewPrefixes("1:ab|const a;\n> 2:0c|b\n+ 3:ff|c\n  4:12|d\nplain | text\n");
    expect(found?.prefixed.map((p) => [p.line, p.hash])).toEqual([
      [1, 0xab],
      [2, 0x0c],
      [3, 0xff],
      [4, 0x12],
    ]);
    expect(found?.cleaned).toBe("const a;\nb\nc\nd\nplain | text\n");
    expect(findViewPrefixes("a | b\n10:30 | meeting\nx:ab|y")).toBeUndefined();
  });
});

describe("code fences", () => {
  test("a fence around all of the text is found, with what is inside", () => {
    expect(fenceWrapped("```ts\nconst a = 1;\n```\n")).toEqual({ inner: "const a = 1;\n", lang: "ts" });
    expect(fenceWrapped("~~~\nx\n~~~")).toEqual({ inner: "x", lang: "" });
  });
  test("text with a fence inside, or fences that do not wrap it, is not", () => {
    expect(fenceWrapped("const a = 1;\n```\n")).toBeUndefined();
    expect(fenceWrapped("```ts\na\n```\nprose\n```ts\nb\n```")).toBeUndefined();
    expect(fenceWrapped("```\n")).toBeUndefined();
  });
  test("markdown paths", () => {
    expect(isMarkdownPath("docs/a.md")).toBe(true);
    expect(isMarkdownPath("README.MDX")).toBe(true);
    expect(isMarkdownPath("src/a.ts")).toBe(false);
  });
});

describe("escape places", () => {
  test("escapes outside quoted literals are read; inside ones are counted and kept", () => {
    expect(escapePlaces('a();\\nlog("x\\ty");\\tb();')).toEqual({ outside: 2, inside: 1, outsideRead: 'a();\nlog("x\\ty");\tb();' });
  });
  test("backslash pairs start nothing and a quoted quote does not close the literal", () => {
    expect(escapePlaces('s = "a\\"b\\n"; t = \\\\n')).toEqual({ outside: 0, inside: 1, outsideRead: 's = "a\\"b\\n"; t = \\\\n' });
    expect(escapePlaces("`x\\n` + '\\t'")).toMatchObject({ outside: 0, inside: 2 });
  });
  test("the escape rung refuses when new_string has an escape inside a literal, with the corrected strings", () => {
    const r = applyStringEdit(["f() {", "\treturn a;"], "f() {\\n\\treturn a;", 'f() {\\n\\treturn "\\t";');
    expect(r).toEqual({ kind: "escape-ambiguous", oldRead: "f() {\n\treturn a;", newCorrected: 'f() {\n\treturn "\\t";', inside: 1 });
  });
});

describe("the BOM in edit strings", () => {
  test("U+FEFF is not whitespace to the fuzzy rung", () => {
    expect(normalizeWhitespace("\uFEFF  a   b ")).toBe("\uFEFF a b");
  });
  test("old_string and new_string starting with U+FEFF on a BOM file: matched at the start, line 1 gets no second BOM", () => {
    const r = applyStringEditWithBom(["import a;", "x"], true, "\uFEFFimport a;", "\uFEFFimport b;");
    expect(r.kind).toBe("ok");
    if (r.kind === "ok") expect(r.lines).toEqual(["import b;", "x"]);
  });
  test("a BOM in old_string never matches mid-file; a BOM in new_string is dropped in a BOM file", () => {
    expect(applyStringEditWithBom(["a", "x"], true, "\uFEFFx", "y").kind).toBe("no-match");
    const r = applyStringEditWithBom(["a", "x"], true, "x", "\uFEFFy");
    if (r.kind !== "ok") throw new Error(r.kind);
    expect(r.lines).toEqual(["a", "y"]);
  });
  test("without a BOM, U+FEFF is an ordinary character", () => {
    const r = applyStringEditWithBom(["\uFEFFa"], false, "\uFEFFa", "b");
    if (r.kind !== "ok") throw new Error(r.kind);
    expect(r.lines).toEqual(["b"]);
  });
});
