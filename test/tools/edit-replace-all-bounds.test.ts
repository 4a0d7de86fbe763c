/**
 * replace_all and ambiguity on files with very many occurrences (found by
 * the attacker round: each occurrence cost ~300 bytes while the edit was
 * built, so one replace_all of a 4 MB file took the server to 1.4 GB). A
 * replace_all over the bound is refused before anything is built; an
 * ambiguous edit counts its places without building them all.
 */
import { describe, expect, test } from "bun:test";
import { MAX_REPLACE_ALL } from "../../src/text/match.ts";
import { editTool } from "../../src/tools/edit/run.ts";
import { makeContext, readText, seed } from "../helpers/tool-context.ts";
import { bytesOf, call, expectFail, expectOk, expectUntouched, markViewed } from "../helpers/tool-mutation.ts";

async function withFile(text: string) {
  const ctx = makeContext({ limits: { maxFileBytes: 64 << 20 } });
  await seed(ctx.storage, { "m.txt": text });
  await markViewed(ctx, "m.txt");
  return ctx;
}

describe("edit with very many occurrences", () => {
  test(`replace_all over ${MAX_REPLACE_ALL.toLocaleString("en-US")} occurrences is refused, nothing written, with the counts`, async () => {
    const ctx = await withFile(`${"x ".repeat(MAX_REPLACE_ALL + 1)}\n`);
    const before = { bytes: await bytesOf(ctx.storage, "m.txt"), version: (await ctx.storage.stat("m.txt"))!.version! };
    const text = expectFail(await call(editTool, { path: "m.txt", old_string: "x", new_string: "y", replace_all: true }, ctx), "INVALID_ARGUMENT");
    expect(text).toContain(`replace ${(MAX_REPLACE_ALL + 1).toLocaleString("en-US")} occurrences`);
    await expectUntouched(ctx.storage, "m.txt", before);
  });

  test("overlapping occurrences are counted both ways in that refusal", async () => {
    const ctx = await withFile(`${"a".repeat(2 * MAX_REPLACE_ALL + 3)}\n`);
    const text = expectFail(await call(editTool, { path: "m.txt", old_string: "aa", new_string: "b", replace_all: true }, ctx), "INVALID_ARGUMENT");
    expect(text).toContain(
      `replace ${(MAX_REPLACE_ALL + 1).toLocaleString("en-US")} occurrences of old_string (${(2 * MAX_REPLACE_ALL + 2).toLocaleString("en-US")} counting overlapping ones)`,
    );
  });

  test(`exactly ${MAX_REPLACE_ALL.toLocaleString("en-US")} are replaced`, async () => {
    const ctx = await withFile(`${"x ".repeat(MAX_REPLACE_ALL - 2)}\nx\nno\nx\n`);
    const text = expectOk(await call(editTool, { path: "m.txt", old_string: "x", new_string: "y", replace_all: true }, ctx));
    expect(text).toContain(`replaced ${MAX_REPLACE_ALL} occurrences (lines 1, …)`);
    expect(await readText(ctx.storage, "m.txt")).toBe(`${"y ".repeat(MAX_REPLACE_ALL - 2)}\ny\nno\ny\n`);
  });

  test("several occurrences on one line name that line once", async () => {
    const ctx = await withFile("a a a a\nb\na\n");
    const text = expectOk(await call(editTool, { path: "m.txt", old_string: "a", new_string: "c", replace_all: true }, ctx));
    expect(text).toContain("replaced 5 occurrences (lines 1, 3)");
    expect(await readText(ctx.storage, "m.txt")).toBe("c c c c\nb\nc\n");
  });

  test("an edit without replace_all on 300,000 places says how many, and lists the first ones", async () => {
    const ctx = await withFile(`${"x\n".repeat(300_000)}`);
    const text = expectFail(await call(editTool, { path: "m.txt", old_string: "x", new_string: "y" }, ctx), "EDIT_AMBIGUOUS");
    expect(text).toContain("300000");
    expect(await readText(ctx.storage, "m.txt")).toBe("x\n".repeat(300_000));
  });
});
