/**
 * What a refused batch_edit hands back, and that the call it hands back
 * works: the bytes on disk after following it are the intended ones.
 */
import { describe, expect, test } from "bun:test";
import { formatHash, lineHash } from "../../src/hash/fnv.ts";
import { batchEditTool } from "../../src/tools/batch-edit/run.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { makeContext, readText, seed } from "../helpers/tool-context.ts";
import { call, expectFail, expectOk, expectUntouched, idOf, markViewed, bytesOf } from "../helpers/tool-mutation.ts";
import { firstCall, suggestedOperations } from "../helpers/suggested-calls.ts";

type Op = Record<string, unknown>;
const batch = (ctx: ToolContext, path: string, operations: Op[]) => call(batchEditTool, { path, operations }, ctx);

async function viewed(files: Record<string, string>) {
  const ctx = makeContext();
  const versions = await seed(ctx.storage, files);
  for (const path of Object.keys(files)) await markViewed(ctx, path);
  return { ctx, versions };
}

const LINES = Array.from({ length: 12 }, (_, i) => `const v${i + 1} = ${i + 1};`);
const TEXT = `${LINES.join("\n")}\n`;
const id = (n: number, text = TEXT) => idOf(text, n);

/** A line that hashes like `line` but reads differently (a collision of the 8-bit hash). */
function collidingLine(line: string): string {
  const want = lineHash(line);
  for (let i = 0; ; i++) {
    const candidate = `// unrelated note ${i}`;
    if (lineHash(candidate) === want) return candidate;
  }
}

describe("stale-id cause", () => {
  test("a mistyped hash on a file as viewed: names line N and its real id; the corrected batch lands", async () => {
    const { ctx, versions } = await viewed({ "a.ts": TEXT });
    const real = id(5);
    const wrongHash = formatHash((Number.parseInt(real.split(":")[1], 16) + 1) & 0xff);
    const text = expectFail(await batch(ctx, "a.ts", [{ operation: "replace", start: `5:${wrongHash}`, content: "const v5 = 50;" }]), "EDIT_STALE_LINE_ID");
    expect(text).toContain(`start "5:${wrongHash}" does not match line 5: the file is exactly as you viewed it, and line 5 is ${real}`);
    expect(text).toContain("so the id was mistyped or copied from another line");
    expect(text).not.toContain("changed since");
    expect(text).toContain(`If you meant line 5 as shown, use "${real}".`);
    await expectUntouched(ctx.storage, "a.ts", { bytes: new TextEncoder().encode(TEXT), version: versions["a.ts"] });

    const retry = firstCall(text, "batch_edit");
    expect(retry).toEqual({ path: "a.ts", operations: [{ operation: "replace", start: real, content: "const v5 = 50;" }] });
    expectOk(await call(batchEditTool, retry, ctx));
    expect(await readText(ctx.storage, "a.ts")).toBe(TEXT.replace("const v5 = 5;", "const v5 = 50;"));
  });

  test("the same wrong id on a file that changed since the view says so instead", async () => {
    const { ctx } = await viewed({ "a.ts": TEXT });
    await seed(ctx.storage, { "a.ts": TEXT.replace("const v12 = 12;", "const v12 = 120;") });
    const text = expectFail(await batch(ctx, "a.ts", [{ operation: "replace", start: "5:00", content: "x" }]), "EDIT_STALE_LINE_ID");
    expect(text).toContain("(the file changed since your view)");
  });
});

describe("relocation by one shift", () => {
  test("two lines inserted above: one shift explains every stale id, and the corrected batch lands on the intended lines", async () => {
    const { ctx } = await viewed({ "a.ts": TEXT });
    const shifted = `import { x } from "./x";\n\n${TEXT}`;
    const version = (await seed(ctx.storage, { "a.ts": shifted }))["a.ts"];
    const ops = [
      { operation: "replace", start: id(3), content: "const v3 = 30;" },
      { operation: "delete", start: id(7), end: id(8) },
      { operation: "insert", after: id(10), content: "const v10b = 10.5;" },
    ];
    const text = expectFail(await batch(ctx, "a.ts", ops), "EDIT_STALE_LINE_ID");
    expect(text).toContain("fits the shift of +2 lines that explains every stale id in this batch");
    expect(text).toContain("Corrected batch, ready to send (every stale id moved by the same +2 lines");
    await expectUntouched(ctx.storage, "a.ts", { bytes: new TextEncoder().encode(shifted), version });

    const retry = firstCall(text, "batch_edit");
    expectOk(await call(batchEditTool, retry, ctx));
    const intended = shifted
      .replace("const v3 = 3;", "const v3 = 30;")
      .replace("const v7 = 7;\nconst v8 = 8;\n", "")
      .replace("const v10 = 10;\n", "const v10 = 10;\nconst v10b = 10.5;\n");
    expect(await readText(ctx.storage, "a.ts")).toBe(intended);
  });

  test("a same-hash line nearer than the real one is shown with its text and ranked down as not fitting the shift", async () => {
    const { ctx } = await viewed({ "a.ts": TEXT });
    // Line 6 becomes an unrelated line that hashes like line 5; everything moves down 3.
    const decoy = collidingLine(LINES[4]);
    const lines = [...LINES];
    lines[5] = decoy;
    const shifted = `a\nb\nc\n${lines.join("\n")}\n`;
    await seed(ctx.storage, { "a.ts": shifted });
    const text = expectFail(
      await batch(ctx, "a.ts", [{ operation: "replace", start: id(5), end: id(6), content: "const v5 = 55;\nconst v6 = 66;" }]),
      "EDIT_STALE_LINE_ID",
    );
    // start's line moved to 8; end's line was replaced by the decoy, so no one shift explains both ids.
    const startPart = text.slice(text.indexOf('start "'), text.indexOf('end "'));
    const fitting = startPart.indexOf(`8:${id(5).split(":")[1]}|const v5 = 5;`);
    expect(fitting).toBeGreaterThan(-1);
    expect(text).not.toContain("Corrected batch"); // end's line was changed (the decoy), so no shift explains both
  });

  test("a replayed range replace: the decoy of one id is ranked below the line that fits the batch's shift", async () => {
    const { ctx } = await viewed({ "a.ts": TEXT });
    const decoy = collidingLine(LINES[2]);
    // 4 lines inserted at the top, and a decoy of line 3 placed 1 line above line 3's old position.
    const shifted = `x1\n${decoy}\nx3\nx4\n${TEXT}`;
    await seed(ctx.storage, { "a.ts": shifted });
    const text = expectFail(
      await batch(ctx, "a.ts", [{ operation: "replace", start: id(3), end: id(9), content: "const replaced = true;" }]),
      "EDIT_STALE_LINE_ID",
    );
    const startPart = text.slice(text.indexOf('start "'), text.indexOf('end "'));
    const realRow = startPart.indexOf(`7:${id(3).split(":")[1]}|const v3 = 3;`);
    const decoyRow = startPart.lastIndexOf(`2:${id(3).split(":")[1]}|${decoy}`);
    expect(realRow).toBeGreaterThan(-1);
    expect(decoyRow).toBeGreaterThan(realRow);
    expect(startPart).toContain("does not fit the shift of the other stale ids: probably an unrelated line");
    const retry = firstCall(text, "batch_edit");
    expect(retry.operations).toEqual([{ operation: "replace", start: id(7, shifted), end: id(13, shifted), content: "const replaced = true;" }]);
    expectOk(await call(batchEditTool, retry, ctx));
    expect(await readText(ctx.storage, "a.ts")).toBe(
      `x1\n${decoy}\nx3\nx4\n${LINES.slice(0, 2).join("\n")}\nconst replaced = true;\n${LINES.slice(9).join("\n")}\n`,
    );
  });

  test("one stale id alone is not corrected blind: its candidates are shown with text and a conditional operation", async () => {
    const { ctx } = await viewed({ "a.ts": TEXT });
    const shifted = `top\n${TEXT}`;
    await seed(ctx.storage, { "a.ts": shifted });
    const text = expectFail(await batch(ctx, "a.ts", [{ operation: "delete", start: id(4) }]), "EDIT_STALE_LINE_ID");
    expect(text).not.toContain("Corrected batch");
    expect(text).toContain(`${id(5, shifted)}|const v4 = 4;   (1 line below)`);
    const [op] = suggestedOperations(text.slice(text.indexOf("If ")));
    expect(op).toEqual({ operation: "delete", start: id(5, shifted) });
    expectOk(await batch(ctx, "a.ts", [op]));
    expect(await readText(ctx.storage, "a.ts")).toBe(shifted.replace("const v4 = 4;\n", ""));
  });
});

describe("suggested calls carry only verified ids", () => {
  test("an empty replace with a wrong id does not suggest a delete with that id; the corrected batch deletes the right line", async () => {
    const { ctx } = await viewed({ "a.ts": TEXT });
    const text = expectFail(await batch(ctx, "a.ts", [{ operation: "replace", start: "4:00", content: "" }]), "EDIT_STALE_LINE_ID");
    expect(text).not.toContain('"start": "4:00"');
    expect(text).not.toContain('"start":"4:00"');
    const retry = firstCall(text, "batch_edit");
    expect(retry.operations).toEqual([{ operation: "delete", start: id(4) }]);
    expectOk(await call(batchEditTool, retry, ctx));
    expect(await readText(ctx.storage, "a.ts")).toBe(TEXT.replace("const v4 = 4;\n", ""));
  });

  test("an empty replace with proven ids suggests the delete with them", async () => {
    const { ctx } = await viewed({ "a.ts": TEXT });
    const text = expectFail(await batch(ctx, "a.ts", [{ operation: "replace", start: id(2), end: id(3), content: "" }]), "INVALID_ARGUMENT");
    expect(text).toContain(`content is empty. To remove the lines, use {"operation": "delete", "start": "${id(2)}", "end": "${id(3)}"}`);
  });

  test("a reversed range of proven ids suggests the swapped range", async () => {
    const { ctx } = await viewed({ "a.ts": TEXT });
    const text = expectFail(await batch(ctx, "a.ts", [{ operation: "delete", start: id(6), end: id(4) }]), "INVALID_ARGUMENT");
    expect(text).toContain(`Did you mean {"operation": "delete", "start": "${id(4)}", "end": "${id(6)}"}?`);
    expectOk(await call(batchEditTool, firstCall(text, "batch_edit"), ctx));
    expect(await readText(ctx.storage, "a.ts")).toBe(TEXT.replace("const v4 = 4;\nconst v5 = 5;\nconst v6 = 6;\n", ""));
  });

  test('a bare line number ("start": 6) is refused with that line\'s current id and the corrected operation', async () => {
    const { ctx, versions } = await viewed({ "a.ts": TEXT });
    const text = expectFail(
      await batch(ctx, "a.ts", [
        { operation: "replace", start: 6, content: "const v6 = 60;" },
        { operation: "insert", after: "9", content: "// after nine" },
      ]),
      "INVALID_ARGUMENT",
    );
    expect(text).toContain(`start: 6 is a bare line number.`);
    expect(text).toContain(`Line 6 is now:\n    ${id(6)}|const v6 = 6;\n  Use "${id(6)}".`);
    expect(text).toContain(`after: "9" is a bare line number.`);
    await expectUntouched(ctx.storage, "a.ts", { bytes: await bytesOf(ctx.storage, "a.ts"), version: versions["a.ts"] });
    const retry = firstCall(text, "batch_edit");
    expect(retry.operations).toEqual([
      { operation: "replace", start: id(6), content: "const v6 = 60;" },
      { operation: "insert", after: id(9), content: "// after nine" },
    ]);
    expectOk(await call(batchEditTool, retry, ctx));
    expect(await readText(ctx.storage, "a.ts")).toBe(
      TEXT.replace("const v6 = 6;", "const v6 = 60;").replace("const v9 = 9;\n", "const v9 = 9;\n// after nine\n"),
    );
  });

  test("a bare number past the end names the last line and offers no made-up id", async () => {
    const { ctx } = await viewed({ "a.ts": TEXT });
    const text = expectFail(await batch(ctx, "a.ts", [{ operation: "delete", start: 40 }]), "INVALID_ARGUMENT");
    expect(text).toContain(`The file has only 12 lines (the last is ${id(12)})`);
    expect(text).not.toContain("Corrected batch");
  });
});
