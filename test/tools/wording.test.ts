/**
 * Small wording fixes a model depends on: a long line's diff shows the part
 * that changed, and FS_IS_DIRECTORY says it once.
 */
import { describe, expect, test } from "bun:test";
import { batchEditTool } from "../../src/tools/batch-edit/run.ts";
import { editTool } from "../../src/tools/edit/run.ts";
import { writeTool } from "../../src/tools/write/run.ts";
import { resultText } from "../../src/result.ts";
import { makeContext, readText, seed } from "../helpers/tool-context.ts";
import { call, expectFail, expectOk, markViewed } from "../helpers/tool-mutation.ts";

describe("long-line diffs", () => {
  test("a change deep inside a 12000-char line is shown as a window around it, on both sides of the diff", async () => {
    const ctx = makeContext({ limits: { maxLineChars: 2000 } });
    const long = `const data = [${Array.from({ length: 2400 }, (_, i) => String(i).padStart(4, "0")).join(",")}];`;
    const file = `${long}\nexport default data;\n`;
    await seed(ctx.storage, { "data.js": file });
    await markViewed(ctx, "data.js");
    const text = expectOk(await call(editTool, { path: "data.js", old_string: "0900,0901", new_string: "0900,XXXX" }, ctx));
    expect(await readText(ctx.storage, "data.js")).toBe(file.replace("0900,0901", "0900,XXXX"));
    const minus = text.split("\n").find((l) => l.startsWith("- 1:"))!;
    const plus = text.split("\n").find((l) => l.startsWith("+ 1:"))!;
    expect(minus).toContain("0900,0901");
    expect(plus).toContain("0900,XXXX");
    expect(minus).toMatch(/\|… \[\d+ chars before not shown\] /);
    expect(minus).toContain(`… [line truncated: ${long.length} chars total]`);
    expect(plus.length).toBeLessThan(2200);
  });

  test("a change near the start of a long line keeps the usual cut", async () => {
    const ctx = makeContext({ limits: { maxLineChars: 2000 } });
    const long = `let x = ${"1".repeat(5000)};`;
    await seed(ctx.storage, { "x.js": `${long}\n` });
    await markViewed(ctx, "x.js");
    const text = expectOk(await call(editTool, { path: "x.js", old_string: "let x", new_string: "let y" }, ctx));
    expect(text).toContain("+ 1:");
    expect(text).not.toContain("chars before not shown");
  });
});

describe("FS_IS_DIRECTORY", () => {
  test("edit, batch_edit and write of a directory say it once, with the view call", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "src/a.ts": "a\n" });
    await markViewed(ctx, "src");
    const results = [
      await call(editTool, { path: "src", old_string: "a", new_string: "b" }, ctx),
      await call(batchEditTool, { path: "src", operations: [{ operation: "insert", after: 0, content: "x" }] }, ctx),
      await call(writeTool, { path: "src", content: "x" }, ctx),
    ];
    for (const r of results) {
      const text = expectFail(r, "FS_IS_DIRECTORY");
      expect(text.match(/is a directory/g)).toHaveLength(1);
      expect(text).toContain('view {"path": "src"}');
      expect(text).not.toContain("It is a directory");
    }
    expect(resultText(results[0])).toBe('`src` is a directory, not a file. To see what is in it: view {"path": "src"}; then name a file inside it.');
    expect(await readText(ctx.storage, "src/a.ts")).toBe("a\n");
  });
});
