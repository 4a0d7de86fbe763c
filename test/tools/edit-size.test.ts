/**
 * An edit's result is bounded before it is built: a replace_all that would
 * multiply new_string past the file size limit is refused with nothing
 * written (an attacker's 3 MiB request had built a 300 MiB file, 1.6 GB of
 * server memory, before the quota refused it), and no content-proven
 * mutation writes a file the tools could not read back.
 */
import { describe, expect, test } from "bun:test";
import { batchEditTool } from "../../src/tools/batch-edit/run.ts";
import { editTool } from "../../src/tools/edit/run.ts";
import { makeContext, readText, seed } from "../helpers/tool-context.ts";
import { bytesOf, call, expectFail, expectOk, expectUntouched, idOf, markViewed } from "../helpers/tool-mutation.ts";

const LIMIT = 64 * 1024;

async function viewed(text: string) {
  const ctx = makeContext({ limits: { maxFileBytes: LIMIT } });
  const versions = await seed(ctx.storage, { "a.txt": text });
  await markViewed(ctx, "a.txt");
  return { ctx, before: { bytes: await bytesOf(ctx.storage, "a.txt"), version: versions["a.txt"] } };
}

describe("edit: the result's size is bounded before it is built", () => {
  test("replace_all of 100 places with a 1 KiB new_string (100 KiB) is refused, nothing written", async () => {
    const { ctx, before } = await viewed("@\n".repeat(100));
    const text = expectFail(await call(editTool, { path: "a.txt", old_string: "@", new_string: "Z".repeat(1024), replace_all: true }, ctx), "LIMIT_EXCEEDED");
    expect(text).toContain("file size limit");
    expect(text).toContain("Replace fewer places");
    await expectUntouched(ctx.storage, "a.txt", before);
  });

  test("the same with a smaller new_string fits and lands", async () => {
    const { ctx } = await viewed("@\n".repeat(100));
    expectOk(await call(editTool, { path: "a.txt", old_string: "@", new_string: "Z".repeat(100), replace_all: true }, ctx));
    expect(await readText(ctx.storage, "a.txt")).toBe(`${"Z".repeat(100)}\n`.repeat(100));
  });

  test("a batch_edit whose content would pass the limit is refused, nothing written", async () => {
    const text = "a\nb\n";
    const { ctx, before } = await viewed(text);
    const r = await call(batchEditTool, { path: "a.txt", operations: [{ operation: "replace", start: idOf(text, 1), content: "x".repeat(LIMIT) }] }, ctx);
    expect(expectFail(r, "LIMIT_EXCEEDED")).toContain("over the 0.1 MiB file size limit");
    await expectUntouched(ctx.storage, "a.txt", before);
  });
});

describe("edit: what the matching ladder makes longer is bounded too", () => {
  // The attack at small scale: each "\t" level of new_string read as the file's 100-space unit.
  const FILE = `x {\n${" ".repeat(100)}foo();\n${" ".repeat(200)}bar();\n}\n`;
  const NEW = `${"\t".repeat(1000)}q\n\tfoo();`;

  test("new_string's indentation fitted past the limit is refused before it is built, nothing written, with the call that works", async () => {
    const { ctx, before } = await viewed(FILE);
    const text = expectFail(await call(editTool, { path: "a.txt", old_string: "\tfoo();", new_string: NEW }, ctx), "LIMIT_EXCEEDED");
    expect(text).toContain("matched line 2 of `a.txt` only when whitespace is ignored");
    const at = /would make the file at least (\d+) bytes, over the 65536-byte file size limit \(maxFileBytes\)/.exec(text);
    // A lower bound of what the fitted edit would write: 1000 levels of the file's 100 spaces before "q".
    const written = FILE.length - "foo();\n".length + "q\n".length + 100_000 + "foo();\n".length;
    expect(Number(at?.[1])).toBeLessThanOrEqual(written);
    expect(Number(at?.[1])).toBeGreaterThan(100_000);
    expect(text).toContain("nothing was written");
    const exact = `"old_string": ${JSON.stringify(`${" ".repeat(100)}foo();`)}`;
    expect(text).toContain(exact);
    await expectUntouched(ctx.storage, "a.txt", before);
    // The way out it names: old_string as the file has it writes new_string as sent, with no indentation fitted.
    expectOk(await call(editTool, { path: "a.txt", old_string: JSON.parse(`{${exact}}`).old_string, new_string: NEW }, ctx));
    expect(await readText(ctx.storage, "a.txt")).toBe(`x {\n${NEW}\n${" ".repeat(200)}bar();\n}\n`);
  });

  test("the same edit with a small indentation still fits the file's indentation and lands", async () => {
    const { ctx } = await viewed(FILE);
    expectOk(await call(editTool, { path: "a.txt", old_string: "\tfoo();", new_string: "\t\tq();\n\tfoo();" }, ctx));
    expect(await readText(ctx.storage, "a.txt")).toBe(`x {\n${" ".repeat(200)}q();\n${" ".repeat(100)}foo();\n${" ".repeat(200)}bar();\n}\n`);
  });

  test("an ambiguous whitespace-insensitive match offers no fitted call past the limit, nothing written", async () => {
    const file = `a {\n${" ".repeat(100)}foo();\n}\nb {\n${" ".repeat(100)}foo();\n${" ".repeat(200)}x();\n}\n`;
    const { ctx, before } = await viewed(file);
    const text = expectFail(await call(editTool, { path: "a.txt", old_string: "\tfoo();", new_string: NEW }, ctx), "EDIT_AMBIGUOUS");
    expect(text).toContain("copy the exact text");
    await expectUntouched(ctx.storage, "a.txt", before);
  });

  test("a continuation whose indented reading would pass the limit is still refused as ambiguous, nothing written", async () => {
    const { ctx, before } = await viewed(`def f():\n${" ".repeat(20_000)}pass\n`);
    const r = await call(editTool, { path: "a.txt", old_string: "pass", new_string: "x\ny\nz\nw" }, ctx);
    expect(expectFail(r, "EDIT_AMBIGUOUS")).toContain("Nothing was changed");
    await expectUntouched(ctx.storage, "a.txt", before);
  });
});

describe("edit: a failed edit's diagnosis is bounded by the file, not file x old_string", () => {
  test("a long line of 'a' and old_string 'a' x 500 + 'e': the first different character is still named, nothing written", async () => {
    const { ctx, before } = await viewed(`${"a".repeat(50_000)}\n`);
    const text = expectFail(await call(editTool, { path: "a.txt", old_string: `${"a".repeat(500)}e`, new_string: "b" }, ctx), "EDIT_NO_MATCH");
    expect(text).toContain('old_string line 1, column 501 has "e" (U+0065)');
    expect(text).toContain("column 501) has");
    await expectUntouched(ctx.storage, "a.txt", before);
  });
});
