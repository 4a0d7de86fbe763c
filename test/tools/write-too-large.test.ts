/**
 * A file over the size limit is viewed in ranges: a whole-file write over
 * it after a view of some lines would replace lines the session never saw,
 * as it is refused for any other file (found by playing the model: three
 * lines viewed, a 32 MiB file replaced).
 */
import { describe, expect, test } from "bun:test";
import { viewTool } from "../../src/tools/view/run.ts";
import { writeTool } from "../../src/tools/write/run.ts";
import { makeContext, readText, seed } from "../helpers/tool-context.ts";
import { bytesOf, call, expectFail, expectOk, expectUntouched } from "../helpers/tool-mutation.ts";

const BIG = `${Array.from({ length: 400 }, (_, i) => `line ${i + 1} of a file over the limit`).join("\n")}\n`;
const limits = { maxFileBytes: 4096, maxViewLines: 100 };

describe("write over a file too large to load", () => {
  test("after a ranged view of some lines: refused, nothing written, with the next view named", async () => {
    const ctx = makeContext({ limits });
    await seed(ctx.storage, { "huge.txt": BIG });
    expectOk(await call(viewTool, { path: "huge.txt", start: 1, end: 3 }, ctx));
    const before = { bytes: await bytesOf(ctx.storage, "huge.txt"), version: (await ctx.storage.stat("huge.txt"))!.version! };
    const text = expectFail(await call(writeTool, { path: "huge.txt", content: "small\n" }, ctx), "FS_NOT_OBSERVED");
    await expectUntouched(ctx.storage, "huge.txt", before);
    expect(text).toContain("only lines 1-3");
    expect(text).toContain('view {"path": "huge.txt", "start": 4, "end": 103}');
    expect(text).toContain("cannot load it either");
  });

  test("after views of every line (ranged views of one version add up) it is replaced, as before", async () => {
    const ctx = makeContext({ limits });
    await seed(ctx.storage, { "huge.txt": BIG });
    for (let start = 1; start <= 400; start += 100) expectOk(await call(viewTool, { path: "huge.txt", start, end: start + 99 }, ctx));
    expectOk(await call(writeTool, { path: "huge.txt", content: "small\n" }, ctx));
    expect(await readText(ctx.storage, "huge.txt")).toBe("small\n");
  });
});
