/**
 * Pasted view artifacts (src/tools/support/pasted.ts): the verdict on its
 * own, then through edit and batch_edit, asserting the bytes on disk and
 * following each offered call as sent. write's cases are in write.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { lineHash } from "../../src/hash/fnv.ts";
import { batchEditTool } from "../../src/tools/batch-edit/run.ts";
import { editTool } from "../../src/tools/edit/run.ts";
import { checkPasted } from "../../src/tools/support/pasted.ts";
import { writeTool } from "../../src/tools/write/run.ts";
import { bomNote, finalNewlineNote } from "../../src/tools/write/style.ts";
import { makeContext, readText, seed } from "../helpers/tool-context.ts";
import { call, expectFail, expectOk, expectUntouched } from "../helpers/tool-mutation.ts";
import { id, row, view } from "../helpers/tool-view.ts";

const FILE = ["const a = 1;", "const b = 2;"];
const owns = (n: number, h: number) => FILE[n - 1] !== undefined && lineHash(FILE[n - 1]) === h;
const target = { path: "p.ts", fileLines: FILE, ownsId: owns };

describe("checkPasted", () => {
  test("a whole view with its header, ids current: stripped, header and all", () => {
    const verdict = checkPasted(`[p.ts: 2 lines]\n${row(1, FILE[0])}\n${row(2, FILE[1]).replace("= 2", "= 4")}\n`, target);
    expect(verdict.kind).toBe("strip");
    if (verdict.kind === "strip") expect(verdict.text).toBe("const a = 1;\nconst b = 4;\n");
  });

  test("a diff with a - row is never stripped, even when every id is current", () => {
    const verdict = checkPasted(`  ${row(1, FILE[0])}\n- ${row(2, FILE[1])}\n+ ${row(2, FILE[1])}\n`, target);
    expect(verdict).toMatchObject({ kind: "refuse", cleaned: "const a = 1;\nconst b = 2;\n" });
    expect(verdict).not.toHaveProperty("unclear");
  });

  test("a partial view: stripped for a region, refused for a whole file with the span it shows", () => {
    const text = `[p.ts: lines 1-1 of 2]\n${row(1, FILE[0])}\n`;
    expect(checkPasted(text, target).kind).toBe("strip");
    const whole = checkPasted(text, { ...target, wholeFile: true });
    expect(whole).toMatchObject({ kind: "refuse", cleaned: "const a = 1;\n", shown: { start: id(1, FILE[0]), end: id(1, FILE[0]) } });
    if (whole.kind === "refuse") expect(whole.unclear).toContain("shows only part of the file (lines 1-1 of 2)");
  });

  test("a partial view whose ids are not current: unclear, with no span to offer", () => {
    const whole = checkPasted(`[p.ts: lines 1-1 of 2]\n${row(1, "const a = 9;")}\n`, { ...target, wholeFile: true });
    expect(whole.kind).toBe("refuse");
    expect(whole).not.toHaveProperty("shown");
  });

  test("lines already in the file are its own: clean", () => {
    const lines = ["1:ab|documented view row", "x"];
    expect(checkPasted("1:ab|documented view row\n", { path: "doc.txt", fileLines: lines }).kind).toBe("clean");
  });
});

describe("write's notes on bytes no line diff shows", () => {
  test("finalNewlineNote: removed, added, unchanged, empty", () => {
    expect(finalNewlineNote({ eols: ["\n", "\n"] }, { eols: ["\n", ""] })).toContain("no longer ends with a newline");
    expect(finalNewlineNote({ eols: ["\r\n", ""] }, { eols: ["\r\n", "\r\n"] })).toContain("now ends with a newline");
    expect(finalNewlineNote({ eols: ["\n"] }, { eols: ["\n", "\n"] })).toBeUndefined();
    expect(finalNewlineNote({ eols: [] }, { eols: ["\n"] })).toBeUndefined();
    expect(finalNewlineNote({ eols: ["\n"] }, { eols: [] })).toBeUndefined();
  });

  test("bomNote: only when a BOM was added", () => {
    expect(bomNote({ bom: false }, { bom: true })).toContain("now starts with a UTF-8 byte-order mark");
    expect(bomNote({ bom: true }, { bom: true })).toBeUndefined();
    expect(bomNote({ bom: false }, { bom: false })).toBeUndefined();
  });
});

/** The call a message offers on its line starting with `tool `, parsed. */
function offered(text: string, tool: string): Record<string, unknown> {
  const line = text.split("\n").find((l) => l.startsWith(`${tool} {`));
  if (!line) throw new Error(`no ${tool} call offered in:\n${text}`);
  return JSON.parse(line.slice(tool.length + 1)) as Record<string, unknown>;
}

async function viewed(path: string, content: string) {
  const ctx = makeContext();
  await seed(ctx.storage, { [path]: content });
  const shown = await view(ctx, { path });
  expectOk(shown.result);
  return { ctx, view: shown.text, before: await ctx.storage.read(path) };
}

describe("edit: old_string pasted with prefixes, the offered call carries a cleaned new_string", () => {
  test("new_string with a line of the model's own after prefixed rows: cleaned in the offered call, which lands", async () => {
    const { ctx, before } = await viewed("e.ts", "const a = 1;\nconst b = 2;\n");
    const old = `${row(1, "const a = 1;")}\n${row(2, "const b = 2;")}`;
    const next = `${row(1, "const a = 1;")}\n${row(2, "const b = 2;").replace("= 2", "= 3")}\nconst c = 4;`;
    const text = expectFail(await call(editTool, { path: "e.ts", old_string: old, new_string: next }, ctx), "EDIT_NO_MATCH");
    await expectUntouched(ctx.storage, "e.ts", before);
    const again = offered(text, "edit");
    expect(again).toEqual({ path: "e.ts", old_string: "const a = 1;\nconst b = 2;", new_string: "const a = 1;\nconst b = 3;\nconst c = 4;" });
    expectOk(await call(editTool, again, ctx));
    expect(await readText(ctx.storage, "e.ts")).toBe("const a = 1;\nconst b = 3;\nconst c = 4;\n");
  });

  test("a result diff pasted as both strings: the offered call keeps the lines the change left, and lands", async () => {
    const { ctx, before } = await viewed("e.ts", "const a = 1;\nconst b = 3;\n");
    const old = `  ${row(1, "const a = 1;")}\n- ${row(2, "const b = 2;")}\n+ ${row(2, "const b = 3;")}`;
    const next = `  ${row(1, "const a = 1;")}\n+ ${row(2, "const b = 5;")}`;
    const text = expectFail(await call(editTool, { path: "e.ts", old_string: old, new_string: next }, ctx), "EDIT_NO_MATCH");
    await expectUntouched(ctx.storage, "e.ts", before);
    const again = offered(text, "edit");
    expect(again).toEqual({ path: "e.ts", old_string: "const a = 1;\nconst b = 3;", new_string: "const a = 1;\nconst b = 5;" });
    expectOk(await call(editTool, again, ctx));
    expect(await readText(ctx.storage, "e.ts")).toBe("const a = 1;\nconst b = 5;\n");
  });
});

describe("edit: pasted rows of lines beside the match widen the offered call", () => {
  const SRC = "const a = 1;\nconst b = 2;\nconst c = 3;\nconst d = 4;\n";
  const [A, B, C] = ["const a = 1;", "const b = 2;", "const c = 3;"];

  /** Refused, nothing written; the offered call sent as it is lands `expected`. */
  async function offeredLands(args: Record<string, unknown>, code: string, expected: string): Promise<Record<string, unknown>> {
    const { ctx, before } = await viewed("p.ts", SRC);
    const text = expectFail(await call(editTool, { path: "p.ts", ...args }, ctx), code);
    await expectUntouched(ctx.storage, "p.ts", before);
    const again = offered(text, "edit");
    expectOk(await call(editTool, again, ctx));
    expect(await readText(ctx.storage, "p.ts")).toBe(expected);
    return again;
  }

  test("a row of the line after the match: old_string grows to cover it, so it is not written twice", async () => {
    const args = { old_string: B, new_string: `${row(2, "const b = 22;")}\n${row(3, C)}` };
    const again = await offeredLands(args, "INVALID_ARGUMENT", "const a = 1;\nconst b = 22;\nconst c = 3;\nconst d = 4;\n");
    expect(again).toEqual({ path: "p.ts", old_string: `${B}\n${C}`, new_string: `const b = 22;\n${C}` });
  });

  test("a row of the line before the match, and a changed one after an old_string ending with its newline", async () => {
    const args = { old_string: `${B}\n`, new_string: `${row(1, A)}\n${id(2, B)}|const b = 22;\n${id(3, C)}|const c = 33;\n` };
    const again = await offeredLands(args, "INVALID_ARGUMENT", "const a = 1;\nconst b = 22;\nconst c = 33;\nconst d = 4;\n");
    expect(again.old_string).toBe(`${A}\n${B}\n${C}\n`);
  });

  test("a result diff pasted around the changed line: its context rows are replaced by themselves", async () => {
    const args = { old_string: B, new_string: `  ${row(1, A)}\n- ${row(2, B)}\n+ ${row(2, "const b = 5;")}\n  ${row(3, C)}` };
    await offeredLands(args, "INVALID_ARGUMENT", "const a = 1;\nconst b = 5;\nconst c = 3;\nconst d = 4;\n");
  });

  test("old_string pasted with prefixes too: the offered call is widened as well", async () => {
    const args = { old_string: row(2, B), new_string: `${row(2, "const b = 22;")}\n${row(3, C)}` };
    await offeredLands(args, "EDIT_NO_MATCH", "const a = 1;\nconst b = 22;\nconst c = 3;\nconst d = 4;\n");
  });

  test("a row of the matched line when old_string is only part of it: not stripped into it; the whole-line call lands", async () => {
    // Stripped, the row replaced "b = 2;" alone and wrote "const const b = 22;".
    const again = await offeredLands(
      { old_string: "b = 2;", new_string: `${id(2, B)}|const b = 22;` },
      "INVALID_ARGUMENT",
      "const a = 1;\nconst b = 22;\nconst c = 3;\nconst d = 4;\n",
    );
    expect(again).toEqual({ path: "p.ts", old_string: B, new_string: "const b = 22;" });
  });

  test("old_string and new_string pasted as two rows, the second a blank line ending the text: the offered call keeps one blank line", async () => {
    const src = "const a = 1;\n\nconst b = 2;\n\nconst c = 3;\n";
    const { ctx, before } = await viewed("q.ts", src);
    const args = { path: "q.ts", old_string: `${row(1, "const a = 1;")}\n${row(2, "")}`, new_string: `${row(1, "const a = 11;")}\n${row(2, "")}` };
    const text = expectFail(await call(editTool, args, ctx), "EDIT_NO_MATCH");
    await expectUntouched(ctx.storage, "q.ts", before);
    expectOk(await call(editTool, offered(text, "edit"), ctx));
    expect(await readText(ctx.storage, "q.ts")).toBe("const a = 11;\n\nconst b = 2;\n\nconst c = 3;\n");
  });

  test("a row repeating a line away from the match: no call is offered as ready, nothing written", async () => {
    const { ctx, before } = await viewed("p.ts", SRC);
    const args = { path: "p.ts", old_string: A, new_string: `${row(1, "const a = 11;")}\n${row(3, C)}` };
    const text = expectFail(await call(editTool, args, ctx), "INVALID_ARGUMENT");
    await expectUntouched(ctx.storage, "p.ts", before);
    expect(text).toContain(`its row ${id(3, C)} repeats a line of the file outside the text old_string matches`);
    expect(text.split("\n").some((l) => l.startsWith("edit {"))).toBe(false);
    // A lone row of the line before, carrying the match's new text, is read as a wrong id: that line is kept.
    const lone = { old_string: B, new_string: `${id(1, A)}|const b = 22;` };
    await offeredLands(lone, "INVALID_ARGUMENT", "const a = 1;\nconst b = 22;\nconst c = 3;\nconst d = 4;\n");
  });
});

describe("batch_edit: a pasted ranged view with its header", () => {
  test("the ids name the replaced range: stripped, header and footer too", async () => {
    const source = "one\ntwo\nthree\nfour\n";
    const ctx = makeContext();
    await seed(ctx.storage, { "r.txt": source });
    const shown = (await view(ctx, { path: "r.txt", start: 2, end: 3 })).text;
    expect(shown.split("\n")[0]).toBe("[r.txt: lines 2-3 of 4]");
    const content = shown.replace("|two", "|TWO");
    const operations = [{ operation: "replace", start: id(2, "two"), end: id(3, "three"), content }];
    const text = expectOk(await call(batchEditTool, { path: "r.txt", operations }, ctx));
    expect(text).toContain("what view prints around its lines");
    expect(await readText(ctx.storage, "r.txt")).toBe("one\nTWO\nthree\nfour\n");
  });

  test("a diff pasted into an insert: refused; the offered operation leaves the removed line out, and lands", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "r.txt": "one\n" });
    expectOk((await view(ctx, { path: "r.txt" })).result);
    const before = await ctx.storage.read("r.txt");
    const content = `- ${row(2, "old")}\n+ ${row(2, "new")}`;
    const text = expectFail(await call(batchEditTool, { path: "r.txt", operations: [{ operation: "insert", after: -1, content }] }, ctx), "INVALID_ARGUMENT");
    await expectUntouched(ctx.storage, "r.txt", before);
    const op = JSON.parse(text.slice(text.indexOf("Send this operation instead: ") + 29).split("\n")[0]);
    expect(op).toEqual({ operation: "insert", after: -1, content: "new" });
    expectOk(await call(batchEditTool, { path: "r.txt", operations: [op] }, ctx));
    expect(await readText(ctx.storage, "r.txt")).toBe("one\nnew\n");
  });
});

describe("docs/tools.md says what the tools say", () => {
  const docs = Bun.file(new URL("../../docs/tools.md", import.meta.url)).text();

  test("the diff-paste refusal example is the real text", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "src/app.ts": "const a = 1;\nconst b = 2;\n" });
    expectOk((await view(ctx, { path: "src/app.ts" })).result);
    const content = "@@ -1,2 +1,2 @@\n  1:8c|const a = 1;\n- 2:a1|const b = 2;\n+ 2:84|const b = 3;\n";
    const text = expectFail(await call(writeTool, { path: "src/app.ts", content }, ctx), "INVALID_ARGUMENT");
    expect(await docs).toContain(`\`\`\`\n${text}\n\`\`\``);
  });

  test("the final-newline note is the real text", async () => {
    const { ctx } = await viewed("fn.txt", "a\n");
    const note = expectOk(await call(writeTool, { path: "fn.txt", content: "a" }, ctx)).split("\n")[1];
    expect(await docs).toContain(`\`${note}\``);
  });
});

describe("edit: every call offered for pasted rows is proven to write them as whole lines", () => {
  /** Refused with `code`, nothing written; the offered call, sent as it is, makes the file `expected`. */
  async function lands(src: string, args: Record<string, unknown>, code: string, expected: string): Promise<void> {
    const { ctx, before } = await viewed("w.ts", src);
    const text = expectFail(await call(editTool, { path: "w.ts", ...args }, ctx), code);
    await expectUntouched(ctx.storage, "w.ts", before);
    expectOk(await call(editTool, offered(text, "edit"), ctx));
    expect(await readText(ctx.storage, "w.ts")).toBe(expected);
  }
  const SRC = "let x = 1;\nlet y = 2;\nreturn;\n";

  test("a row beside a part-line match: the widened call covers whole lines (it wrote `let y = 3; = 2;`)", async () => {
    await lands(
      SRC,
      { old_string: "let y", new_string: `${row(1, "let x = 1;")}\n${id(2, "let y = 2;")}|let y = 3;` },
      "INVALID_ARGUMENT",
      "let x = 1;\nlet y = 3;\nreturn;\n",
    );
    await lands(
      SRC,
      { old_string: "y = 2;", new_string: `${id(2, "let y = 2;")}|let y = 3;\n${row(3, "return;")}` },
      "INVALID_ARGUMENT",
      "let x = 1;\nlet y = 3;\nreturn;\n",
    );
  });

  test("old_string pasted too, matching part of a line: the ready call covers the whole line", async () => {
    await lands(
      SRC,
      { old_string: "2:00|let y", new_string: `${row(1, "let x = 1;")}\n${id(2, "let y = 2;")}|let y = 3;` },
      "EDIT_NO_MATCH",
      "let x = 1;\nlet y = 3;\nreturn;\n",
    );
  });

  test("a blank line's row ending new_string, old_string without its newline: no blank line is added", async () => {
    await lands("a\nb\n\nc\n", { old_string: "b", new_string: `${id(2, "b")}|B\n${row(3, "")}` }, "INVALID_ARGUMENT", "a\nB\n\nc\n");
  });

  test("an old_string pasted without its indentation: the rows keep the file's indentation, not twice", async () => {
    await lands(
      "f() {\n  const y = 2;\n}\n",
      { old_string: "const y = 2;\n}", new_string: `${id(2, "  const y = 2;")}|  const y = 3;\n${row(3, "}")}` },
      "INVALID_ARGUMENT",
      "f() {\n  const y = 3;\n}\n",
    );
  });

  test("a cleaned call that would match nothing is not offered as ready", async () => {
    const { ctx, before } = await viewed("w.ts", SRC);
    const text = expectFail(
      await call(editTool, { path: "w.ts", old_string: "let z = 9;", new_string: `${id(2, "let y = 2;")}|let y = 3;` }, ctx),
      "INVALID_ARGUMENT",
    );
    await expectUntouched(ctx.storage, "w.ts", before);
    expect(text.split("\n").some((l) => l.startsWith("edit {"))).toBe(false);
  });

  test("CRLF rows over CRLF lines are whole lines: stripped and written, endings kept", async () => {
    const { ctx } = await viewed("c.ts", "a = 1\r\nb = 2\r\nc = 3\r\n");
    expectOk(await call(editTool, { path: "c.ts", old_string: "b = 2\r\n", new_string: `${id(2, "b = 2")}|b = 20\r\n` }, ctx));
    expect(await readText(ctx.storage, "c.ts")).toBe("a = 1\r\nb = 20\r\nc = 3\r\n");
  });
});

describe("edit: rows the paste check must not read as clean", () => {
  test("rows joined by a literal \\n (escaped twice): refused, never written as one line with a prefix inside", async () => {
    const src = "x = 1\ny = 2\nz\n";
    const { ctx, before } = await viewed("e.ts", src);
    const sent = { path: "e.ts", old_string: "x = 1\ny = 2", new_string: `${id(1, "x = 1")}|x = 10\\n${id(2, "y = 2")}|y = 20` };
    const text = expectFail(await call(editTool, sent, ctx), "INVALID_ARGUMENT");
    expect(text).toContain('joined by a literal "\\n"');
    await expectUntouched(ctx.storage, "e.ts", before);
  });

  test("a file whose lines look like rows: the ready call keeps them, marked verbatim, and lands as meant", async () => {
    const { ctx, before } = await viewed("f.txt", "x\n1:ab|y\nz\n");
    const text = expectFail(
      await call(editTool, { path: "f.txt", old_string: `${id(2, "1:ab|y")}|1:ab|y`, new_string: `${id(2, "1:ab|y")}|1:ab|Y` }, ctx),
      "EDIT_NO_MATCH",
    );
    await expectUntouched(ctx.storage, "f.txt", before);
    const again = offered(text, "edit");
    expect(again).toEqual({ path: "f.txt", old_string: "1:ab|y", new_string: "1:ab|Y", verbatim: true });
    expectOk(await call(editTool, again, ctx));
    expect(await readText(ctx.storage, "f.txt")).toBe("x\n1:ab|Y\nz\n");
  });

  test("a changed row of a line away from the match, beside rows of the match: no call offered (it would insert that line)", async () => {
    const { ctx, before } = await viewed("g.txt", "a\nb\nc\nd\ne\nf\n");
    const text = expectFail(await call(editTool, { path: "g.txt", old_string: "b", new_string: `${id(2, "b")}|B\n${id(6, "f")}|F` }, ctx), "INVALID_ARGUMENT");
    await expectUntouched(ctx.storage, "g.txt", before);
    expect(text).toContain(`its row ${id(6, "f")} names a line away from the text old_string matches`);
    expect(text.split("\n").some((l) => l.startsWith("edit {"))).toBe(false);
  });
});
