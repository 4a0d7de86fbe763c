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
