/**
 * A file whose line breaks are lone CRs (classic Mac): lines split on "\n",
 * so it is one line with "\r" inside it. edit and batch_edit refuse it
 * (FS_NOT_TEXT, nothing written) rather than write an ending it never had;
 * view says so; write, the way offered, writes content's endings as sent.
 */
import { describe, expect, test } from "bun:test";
import { batchEditTool } from "../../src/tools/batch-edit/run.ts";
import { editTool } from "../../src/tools/edit/run.ts";
import { writeTool } from "../../src/tools/write/run.ts";
import { makeContext, readText, seed } from "../helpers/tool-context.ts";
import { call, expectFail, expectOk, expectUntouched } from "../helpers/tool-mutation.ts";
import { view } from "../helpers/tool-view.ts";

const CR = "alpha\rbeta\rgamma\r";

async function viewed(content: string, path = "cr.txt") {
  const ctx = makeContext();
  await seed(ctx.storage, { [path]: content });
  const shown = await view(ctx, { path });
  expectOk(shown.result);
  return { ctx, text: shown.text, before: await ctx.storage.read(path) };
}

describe("a CR-only file", () => {
  test("view says its lines break with lone CRs and that write changes it", async () => {
    const { text } = await viewed(CR);
    expect(text).toContain('[note: this file breaks its lines with lone CRs ("\\r", classic Mac line endings)');
    expect(text).toContain("edit and batch_edit do not change such a file: replace it whole with write");
  });

  test("edit is refused with what to do, for any old_string; nothing written", async () => {
    const { ctx, before } = await viewed(CR);
    for (const [old_string, new_string] of [
      ["beta\n", "BETA\n"],
      ["beta", "BETA"],
      ["gamma\r", "gamma\rdelta\r"],
    ]) {
      const text = expectFail(await call(editTool, { path: "cr.txt", old_string, new_string }, ctx), "FS_NOT_TEXT");
      expect(text).toContain('`cr.txt` breaks its lines with lone CRs ("\\r", classic Mac line endings)');
      expect(text).toContain('write {"path": "cr.txt", "content": "..."}');
      await expectUntouched(ctx.storage, "cr.txt", before);
    }
  });

  test("batch_edit is refused: an insert at the end writes no \\r\\r\\n", async () => {
    const { ctx, before } = await viewed(CR);
    const operations = [{ operation: "insert", after: -1, content: "delta" }];
    expectFail(await call(batchEditTool, { path: "cr.txt", operations }, ctx), "FS_NOT_TEXT");
    await expectUntouched(ctx.storage, "cr.txt", before);
  });

  test("write keeps content's lone CRs as sent (no \\r read as half a CRLF), or converts with \\n", async () => {
    const { ctx } = await viewed(CR);
    const text = expectOk(await call(writeTool, { path: "cr.txt", content: "alpha\rBETA\rgamma\r" }, ctx));
    expect(text).toContain("content's line endings were written as sent.");
    expect(await readText(ctx.storage, "cr.txt")).toBe("alpha\rBETA\rgamma\r");
    const converted = expectOk(await call(writeTool, { path: "cr.txt", content: "alpha\nBETA\ngamma\n" }, ctx));
    expect(converted).toContain("so the file now has LF line endings.");
    expect(await readText(ctx.storage, "cr.txt")).toBe("alpha\nBETA\ngamma\n");
  });

  test("CR-only content is written as sent to a new file and over an LF file, never a mix of CR and LF", async () => {
    const { ctx } = await viewed("alpha\nbeta\n", "lf.txt");
    expectOk(await call(writeTool, { path: "new.txt", content: "x\ry\r" }, ctx));
    expect(await readText(ctx.storage, "new.txt")).toBe("x\ry\r");
    const text = expectOk(await call(writeTool, { path: "lf.txt", content: "a\rb\r" }, ctx));
    expect(text).toContain("content breaks its lines with lone CRs");
    expect(await readText(ctx.storage, "lf.txt")).toBe("a\rb\r");
  });
});
