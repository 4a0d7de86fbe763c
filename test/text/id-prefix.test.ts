/** Pasted tool output read back as file text (src/text/id-prefix.ts): pure, no file but the one a test gives. */
import { describe, expect, test } from "bun:test";
import { readPaste, stripIdPrefixes } from "../../src/text/id-prefix.ts";
import { id, row } from "../helpers/tool-view.ts";

describe("readPaste: a view", () => {
  test("no row: undefined", () => {
    expect(readPaste("const a = 1;\n")).toBeUndefined();
    expect(readPaste("a | b\n10:30 | meeting\n")).toBeUndefined();
    expect(readPaste("[p.ts: 2 lines]\nconst a = 1;\n")).toBeUndefined();
  });

  test("the header of a whole view goes with the rows", () => {
    const p = readPaste(`[p.ts: 2 lines]\n${row(1, "const a = 1;")}\n${row(2, "const b = 4;")}\n`)!;
    expect(p.cleaned).toBe("const a = 1;\nconst b = 4;\n");
    expect(p.meta).toEqual(["[p.ts: 2 lines]"]);
    expect(p.rows.map((r) => [r.line, r.mark])).toEqual([
      [1, ""],
      [2, ""],
    ]);
    expect(p.plain).toBe(0);
    expect(p.partial).toBeUndefined();
    expect(p.unclear).toBeUndefined();
  });

  test("every header shape view prints: traits, a path holding brackets, a range; notes and footers too", () => {
    const headers = [
      "[a.ts: 1 line]",
      "[src/pages/[id].tsx: 3 lines, CRLF line endings, UTF-8 BOM, no final newline]",
      "[a.ts: 3 lines, mixed line endings (2 CRLF, 1 LF)]",
      "[a.ts: lines 1-3 of 3]",
    ];
    for (const header of headers) expect(readPaste(`${header}\n${row(1, "x")}\n`)?.cleaned).toBe("x\n");
    const p = readPaste(
      [
        "[a.ts: lines 1-2 of 9]",
        "[note: start 0 was read as 1]",
        row(1, "x"),
        row(2, "y"),
        "[1 line longer than 2000 characters shown shortened; ids still cover the whole line]",
        '[cut at line 2 by the 2-line limit; 7 more lines to show. Continue: view {"path": "a.ts", "start": 3}]',
      ].join("\n"),
    )!;
    expect(p.meta.length).toBe(4);
    // The footer ended the text: the line before it had its newline.
    expect(p.cleaned).toBe("x\ny\n");
    expect(p.partial).toBe("lines 1-2 of 9");
  });

  test("a cut footer alone says the view is partial", () => {
    const p = readPaste(`${row(1, "x")}\n[cut at line 1 by the 1-line limit; 3 more lines to show. Continue: view {"path": "a.ts", "start": 2}]\n`)!;
    expect(p.cleaned).toBe("x\n");
    expect(p.partial).toBe("up to line 1, with 3 more not shown");
  });

  test("a line shaped like a header is kept when the text is not all paste, and the paste is unclear", () => {
    const text = `[p.ts: 2 lines]\n${row(1, "x")}\nmy own line\n`;
    const p = readPaste(text)!;
    expect(p.cleaned).toBe("[p.ts: 2 lines]\nx\nmy own line\n");
    expect(p.meta).toEqual([]);
    expect(p.plain).toBe(2);
    expect(p.unclear).toContain('("[p.ts: 2 lines]") sits among lines that are not rows');
  });

  test("CRLF text: each row keeps its \\r, a header's \\r goes with it", () => {
    const p = readPaste(`[p.ts: 1 line, CRLF line endings]\r\n${row(1, "x")}\r\n`)!;
    expect(p.cleaned).toBe("x\r\n");
  });

  test("strict rows are what the tools print; lenient ones allow other indentation and uppercase hex", () => {
    expect(readPaste(" 1:AB|x")).toBeUndefined();
    expect(readPaste(" 1:AB|x", { lenient: true })?.cleaned).toBe("x");
    expect(readPaste("\t1:ab|x", { lenient: true })?.cleaned).toBe("x");
  });
});

describe("readPaste: a result diff", () => {
  const diff = ["@@ -1,2 +1,2 @@", `  ${row(1, "const a = 1;")}`, `- ${row(2, "const b = 2;")}`, `+ ${row(2, "const b = 3;")}`];

  test("context and + rows are kept, - rows and hunk headers left out", () => {
    const p = readPaste(`${diff.join("\n")}\n`)!;
    expect(p.cleaned).toBe("const a = 1;\nconst b = 3;\n");
    expect(p.removed).toBe(1);
    expect(p.meta).toEqual(["@@ -1,2 +1,2 @@"]);
    expect(p.rows.map((r) => r.mark)).toEqual([" ", "-", "+"]);
    expect(p.unclear).toBeUndefined();
  });

  test("a - row last, without a newline after it: the line before keeps its newline", () => {
    expect(readPaste(`+ ${row(1, "a")}\n- ${row(2, "b")}`)!.cleaned).toBe("a\n");
  });

  test("- rows only: kept (they may be meant to come back), and unclear", () => {
    const p = readPaste(`- ${row(2, "const b = 2;")}\n`)!;
    expect(p.cleaned).toBe("const b = 2;\n");
    expect(p.removed).toBe(0);
    expect(p.unclear).toContain("no context or");
  });

  test("a diff mixed with lines that are not rows: - rows left out, and unclear", () => {
    const p = readPaste(`${diff.slice(1).join("\n")}\nconst c = 4;\n`)!;
    expect(p.cleaned).toBe("const a = 1;\nconst b = 3;\nconst c = 4;\n");
    expect(p.unclear).toContain("mixes the rows of a pasted diff with a line that is not rows");
  });

  test("+ rows beside lines of the model's own are clear", () => {
    expect(readPaste(`+ ${row(2, "b")}\nc\n`)?.unclear).toBeUndefined();
  });

  test("a diff that left lines out is unclear", () => {
    const capped = readPaste(`${diff.join("\n")}\n… 12 more diff lines not shown; view lines 3-9 to see the current text and ids\n`)!;
    expect(capped.unclear).toContain("leaves lines out");
    const elided = readPaste(
      `${diff.join("\n")}\n~ too large to diff: 3 old lines (3-5) replaced by 4 new lines (3-6); view the new lines to see them and their ids\n`,
    )!;
    expect(elided.unclear).toContain("leaves lines out");
  });
});

describe("readPaste: shortened lines", () => {
  const long = `${"x".repeat(25)}END`;
  const file = ["a", long, "b"];

  test("a row shown shortened gets its whole line back from the file, when its id and text fit", () => {
    const shown = `${id(2, long)}|${"x".repeat(10)}… [line truncated: 28 chars total]`;
    const p = readPaste(`${row(1, "a")}\n${shown}\n`, { fileLines: () => file })!;
    expect(p.cleaned).toBe(`a\n${long}\n`);
    expect(p.restored).toEqual([2]);
    expect(p.unclear).toBeUndefined();
  });

  test("a diff's window around a change fits too", () => {
    const shown = `- ${id(2, long)}|… [20 chars before not shown] xxxxxEN… [line truncated: 28 chars total]`;
    const p = readPaste(`  ${row(1, "a")}\n${shown}\n+ ${row(2, "y")}\n`, { fileLines: () => file })!;
    // A removed row is left out before any restoring.
    expect(p.cleaned).toBe("a\ny\n");
    const kept = readPaste(`  ${row(1, "a")}\n  ${id(2, long)}|… [20 chars before not shown] xxxxxEN… [line truncated: 28 chars total]\n`, {
      fileLines: () => file,
    })!;
    expect(kept.cleaned).toBe(`a\n${long}\n`);
  });

  test("without the file, with an edited visible part, or a wrong length or hash: unclear, never guessed", () => {
    const good = `${id(2, long)}|${"x".repeat(10)}… [line truncated: 28 chars total]`;
    expect(readPaste(good)!.unclear).toContain("line 2 was shown shortened");
    expect(readPaste(good.replace("|x", "|y"), { fileLines: () => file })!.unclear).toContain("shown shortened");
    expect(readPaste(good.replace("28 chars", "29 chars"), { fileLines: () => file })!.unclear).toContain("shown shortened");
    expect(readPaste(good.replace(/^2:/, "3:"), { fileLines: () => file })!.unclear).toContain("shown shortened");
  });
});

describe("stripIdPrefixes (edit's old_string and new_string)", () => {
  test("every line prefixed, some lines prefixed, diff rows: cleaned", () => {
    expect(stripIdPrefixes(`${row(1, "a")}\n${row(2, "  b")}`)).toBe("a\n  b");
    expect(stripIdPrefixes(`${row(1, "a")}\n${row(2, "b")}\nc`)).toBe("a\nb\nc");
    expect(stripIdPrefixes(`  ${row(1, "a")}\n- ${row(2, "b")}\n+ ${row(2, "B")}`)).toBe("a\nB");
    expect(stripIdPrefixes(`[p.ts: 2 lines]\n${row(1, "a")}\n${row(2, "b")}\n`)).toBe("a\nb\n");
  });

  test("no prefix, or a paste that cannot be cleaned without guessing: undefined", () => {
    expect(stripIdPrefixes("a\nb")).toBeUndefined();
    expect(stripIdPrefixes(`${id(2, "x".repeat(30))}|xxxxxxxxxx… [line truncated: 30 chars total]`)).toBeUndefined();
    expect(stripIdPrefixes(`- ${row(2, "b")}`)).toBeUndefined();
  });
});

describe("readPaste: views pasted one after another", () => {
  test("two ranged views that cover the file are not partial", () => {
    const text = [
      "[a.ts: lines 1-2 of 3]",
      row(1, "x"),
      row(2, "y"),
      '[cut at line 2 by the 2-line limit; 1 more line to show. Continue: view {"path": "a.ts", "start": 3}]',
      "[a.ts: lines 3-3 of 3]",
      row(3, "z"),
      "",
    ].join("\n");
    const p = readPaste(text)!;
    expect(p.cleaned).toBe("x\ny\nz\n");
    expect(p.partial).toBeUndefined();
    expect(readPaste(text.replace(`${row(3, "z")}\n`, ""))!.partial).toBe("lines 1-2 of 3");
  });
});

test("readPaste: a shortened row of CRLF text keeps its \\r after the whole line", () => {
  const long = "y".repeat(20);
  const p = readPaste(`${id(1, long)}|yyyyy… [line truncated: 20 chars total]\r\n`, { fileLines: () => [long] })!;
  expect(p.cleaned).toBe(`${long}\r\n`);
});
