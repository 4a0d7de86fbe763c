/**
 * Ids a model took from its view, used again after its own edit moved the
 * lines (the commonest model slip with line ids): a stale one is corrected
 * by where the edit moved the line, and one that still verifies because
 * another line now has its number and hash is refused, never applied to
 * the wrong line. Also: on a file as viewed, an id whose number and hash
 * name different lines gets no "ready to send" guess.
 */
import { describe, expect, test } from "bun:test";
import { editTool } from "../../src/tools/edit/run.ts";
import { viewTool } from "../../src/tools/view/run.ts";
import { writeTool } from "../../src/tools/write/run.ts";
import { type Op, batch, viewed } from "../helpers/tool-batch.ts";
import { makeContext, readText, seed } from "../helpers/tool-context.ts";
import { bytesOf, call, expectFail, expectOk, expectUntouched, idOf } from "../helpers/tool-mutation.ts";

/** The batch a refusal offers as ready to send, parsed; undefined when it offers none. */
function offeredBatch(text: string): { path: string; operations: Op[] } | undefined {
  const m = /ready to send[^\n]*\n(?:batch_edit )(\{.*\})$/m.exec(text);
  return m ? JSON.parse(m[1]) : undefined;
}

/** The single operation a refusal offers for `meaning` ("If <meaning> ... send this operation: {...}"). */
function offeredOp(text: string, meaning: string): Op | undefined {
  for (const line of text.split("\n")) {
    const at = line.indexOf(`If ${meaning}`);
    if (at >= 0) return JSON.parse(line.slice(line.indexOf("send this operation: ") + "send this operation: ".length));
  }
  return undefined;
}

const SMALL = "const a = 1;\nconst b = 2;\nconst c = 3;\nconst d = 4;\nconst e = 5;\n";

describe("batch_edit: ids from before the session's own edit", () => {
  test("stale ids after the session's own insert are corrected by the move, and the offered batch lands on the lines viewed", async () => {
    const ctx = await viewed("small.ts", SMALL);
    expectOk(await batch(ctx, "small.ts", [{ operation: "insert", after: 0, content: "// header" }]));
    const before = { bytes: await bytesOf(ctx.storage, "small.ts"), version: (await ctx.storage.stat("small.ts"))!.version! };
    // The model names lines by the ids it viewed: 3:.. is `const c`, 5:.. is `const e` (now lines 4 and 6).
    const text = expectFail(
      await batch(ctx, "small.ts", [
        { operation: "replace", start: idOf(SMALL, 3), content: "const c = 30;" },
        { operation: "replace", start: idOf(SMALL, 5), content: "const e = 50;" },
      ]),
      "EDIT_STALE_LINE_ID",
    );
    await expectUntouched(ctx.storage, "small.ts", before);
    expect(text).toContain("from before your own edit");
    const offer = offeredBatch(text);
    expect(offer).toBeDefined();
    expectOk(await batch(ctx, "small.ts", offer!.operations));
    expect(await readText(ctx.storage, "small.ts")).toBe("// header\nconst a = 1;\nconst b = 2;\nconst c = 30;\nconst d = 4;\nconst e = 50;\n");
  });

  test("one stale id alone is corrected too: the move is known, not guessed", async () => {
    const ctx = await viewed("small.ts", SMALL);
    expectOk(await batch(ctx, "small.ts", [{ operation: "insert", after: 0, content: "// one\n// two" }]));
    const text = expectFail(await batch(ctx, "small.ts", [{ operation: "delete", start: idOf(SMALL, 4) }]), "EDIT_STALE_LINE_ID");
    const offer = offeredBatch(text)!;
    expect(offer.operations).toEqual([{ operation: "delete", start: idOf(`// one\n// two\n${SMALL}`, 6) }]);
    expectOk(await batch(ctx, "small.ts", offer.operations));
    expect(await readText(ctx.storage, "small.ts")).toBe("// one\n// two\nconst a = 1;\nconst b = 2;\nconst c = 3;\nconst e = 5;\n");
  });

  const FNS = "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n\nfunction c() {\n  return 3;\n}\n";

  test("an old id that still verifies on another line with the same hash is refused, not applied there", async () => {
    const ctx = await viewed("fns.js", FNS);
    expectOk(await batch(ctx, "fns.js", [{ operation: "insert", after: 0, content: "// 1\n// 2\n// 3\n// 4" }]));
    const now = await readText(ctx.storage, "fns.js");
    const before = { bytes: await bytesOf(ctx.storage, "fns.js"), version: (await ctx.storage.stat("fns.js"))!.version! };
    // 7:.. was b's `}` in the view; line 7 is now a's `}`, which has the same hash.
    const stale = idOf(FNS, 7);
    expect(idOf(now, 7)).toBe(stale);
    const text = expectFail(await batch(ctx, "fns.js", [{ operation: "insert", after: stale, content: "export { b };" }]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx.storage, "fns.js", before);
    expect(text).toContain("ambiguous");
    expect(text).toContain(`"${idOf(now, 11)}" for the first`);
    // The model names the line it viewed by its current id: it lands after b.
    expectOk(await batch(ctx, "fns.js", [{ operation: "insert", after: idOf(now, 11), content: "export { b };" }]));
    expect(await readText(ctx.storage, "fns.js")).toBe(`// 1\n// 2\n// 3\n// 4\n${FNS.replace("  return 2;\n}\n", "  return 2;\n}\nexport { b };\n")}`);
  });

  test("after the refusal showed both lines, the same id is taken as meant (no refusal loop)", async () => {
    const ctx = await viewed("fns.js", FNS);
    expectOk(await batch(ctx, "fns.js", [{ operation: "insert", after: 0, content: "// 1\n// 2\n// 3\n// 4" }]));
    const stale = idOf(FNS, 7);
    expectFail(await batch(ctx, "fns.js", [{ operation: "insert", after: stale, content: "export { a };" }]), "EDIT_STALE_LINE_ID");
    expectOk(await batch(ctx, "fns.js", [{ operation: "insert", after: stale, content: "export { a };" }]));
    expect(await readText(ctx.storage, "fns.js")).toBe(`// 1\n// 2\n// 3\n// 4\n${FNS.replace("  return 1;\n}\n", "  return 1;\n}\nexport { a };\n")}`);
  });

  test("ids the edit's result showed are current, and a fresh view ends the doubt", async () => {
    const ctx = await viewed("fns.js", FNS);
    const r = expectOk(await batch(ctx, "fns.js", [{ operation: "insert", after: 0, content: "// 1\n// 2\n// 3\n// 4" }]));
    const now = await readText(ctx.storage, "fns.js");
    // The diff showed lines 1-6 with their new ids; line 5 (`function a() {`) is named from it.
    expect(r).toContain(`${idOf(now, 5)}|function a() {`);
    expectOk(await batch(ctx, "fns.js", [{ operation: "replace", start: idOf(now, 5), content: "function a0() {" }]));
    // A whole view again: the old ids are gone from the session's record, line 7 is just line 7.
    expectOk(await call(viewTool, { path: "fns.js" }, ctx));
    const fresh = await readText(ctx.storage, "fns.js");
    expectOk(await batch(ctx, "fns.js", [{ operation: "insert", after: idOf(fresh, 7), content: "// after a" }]));
    expect((await readText(ctx.storage, "fns.js")).split("\n")[7]).toBe("// after a");
  });

  test("edits that move no line keep no record: a toggled line is checked as before", async () => {
    const ctx = await viewed("small.ts", SMALL);
    expectOk(await batch(ctx, "small.ts", [{ operation: "replace", start: idOf(SMALL, 2), content: "const b = 20;" }]));
    const obs = await ctx.observations.get(ctx.caller.session, "small.ts");
    expect(obs).toMatchObject({ kind: "present" });
    expect(obs && "own" in obs && obs.own).toBeFalsy();
  });
});

describe("batch_edit: a wrong id on a file as viewed", () => {
  test("a number and a hash that name different lines get both choices, no guessed batch, and either choice lands where it says", async () => {
    const ctx = await viewed("small.ts", SMALL);
    const before = { bytes: await bytesOf(ctx.storage, "small.ts"), version: (await ctx.storage.stat("small.ts"))!.version! };
    // "3:<hash of line 4>": an off-by-one number with the right hash.
    const sent = `3:${idOf(SMALL, 4).split(":")[1]}`;
    const text = expectFail(await batch(ctx, "small.ts", [{ operation: "replace", start: sent, content: "const d = 40;" }]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx.storage, "small.ts", before);
    expect(offeredBatch(text)).toBeUndefined();
    const byHash = offeredOp(text, idOf(SMALL, 4));
    const byNumber = offeredOp(text, "line 3 as shown");
    expect(byHash).toEqual({ operation: "replace", start: idOf(SMALL, 4), content: "const d = 40;" });
    expect(byNumber).toEqual({ operation: "replace", start: idOf(SMALL, 3), content: "const d = 40;" });
    expectOk(await batch(ctx, "small.ts", [byHash!]));
    expect(await readText(ctx.storage, "small.ts")).toBe(SMALL.replace("const d = 4;", "const d = 40;"));
  });
});

describe("batch_edit: pasted content that cannot be cleaned with certainty", () => {
  test("a shortened row that names no current line is refused with no operation offered, and nothing is written", async () => {
    const ctx = await viewed("small.ts", SMALL);
    const before = { bytes: await bytesOf(ctx.storage, "small.ts"), version: (await ctx.storage.stat("small.ts"))!.version! };
    const content = "1:00|const x = 'a very long line'… [line truncated: 900 chars total]\n2:00|const y = 2;";
    const text = expectFail(await batch(ctx, "small.ts", [{ operation: "replace", start: idOf(SMALL, 2), content }]), "INVALID_ARGUMENT");
    await expectUntouched(ctx.storage, "small.ts", before);
    expect(text).toContain("cannot be cleaned with certainty");
    expect(text).not.toContain("Send this operation instead");
  });
});

describe("write, then batch_edit with the ids viewed before it", () => {
  test("an old id that verifies on another line after the session's whole-file write is refused, not applied there", async () => {
    const FNS = "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n";
    const ctx = await viewed("fns.js", FNS);
    expectOk(await call(writeTool, { path: "fns.js", content: `// 1\n// 2\n// 3\n// 4\n${FNS}` }, ctx));
    const before = { bytes: await bytesOf(ctx.storage, "fns.js"), version: (await ctx.storage.stat("fns.js"))!.version! };
    const text = expectFail(await batch(ctx, "fns.js", [{ operation: "insert", after: idOf(FNS, 7), content: "export { b };" }]), "EDIT_STALE_LINE_ID");
    expect(text).toContain("ambiguous");
    await expectUntouched(ctx.storage, "fns.js", before);
  });
});

describe("after a partial view", () => {
  const FNS = "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n\nfunction c() {\n  return 3;\n}\n";

  test("the moves of the session's own edit are kept: an old id that verifies elsewhere is refused, a stale one corrected exactly", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "fns.js": FNS });
    expectOk(await call(viewTool, { path: "fns.js", start: 1, end: 8 }, ctx));
    expectOk(await call(editTool, { path: "fns.js", old_string: "function a() {\n", new_string: "// 1\n// 2\n// 3\n// 4\nfunction a() {\n" }, ctx));
    const before = { bytes: await bytesOf(ctx.storage, "fns.js"), version: (await ctx.storage.stat("fns.js"))!.version! };
    const ambiguous = expectFail(await batch(ctx, "fns.js", [{ operation: "insert", after: idOf(FNS, 7), content: "export { b };" }]), "EDIT_STALE_LINE_ID");
    expect(ambiguous).toContain("ambiguous");
    await expectUntouched(ctx.storage, "fns.js", before);
    const stale = expectFail(await batch(ctx, "fns.js", [{ operation: "replace", start: idOf(FNS, 6), content: "  return 20;" }]), "EDIT_STALE_LINE_ID");
    expect(stale).not.toContain("exactly as you viewed it");
    const offer = offeredBatch(stale)!;
    expectOk(await batch(ctx, "fns.js", offer.operations));
    expect(await readText(ctx.storage, "fns.js")).toBe(`// 1\n// 2\n// 3\n// 4\n${FNS.replace("return 2;", "return 20;")}`);
  });

  test("moves no longer followed: a wrong id is not called a typo of an unchanged file, and no guessed batch is offered", async () => {
    const ctx = makeContext();
    const text = `${Array.from({ length: 400 }, (_, i) => `line ${i + 1}`).join("\n")}\n`;
    await seed(ctx.storage, { "many.txt": text });
    expectOk(await call(viewTool, { path: "many.txt" }, ctx));
    // 70 scattered inserts: more runs than the record keeps.
    const ops = Array.from({ length: 70 }, (_, k) => ({ operation: "insert", after: idOf(text, 5 * k + 3), content: `new ${k}` }));
    expectOk(await batch(ctx, "many.txt", ops));
    const obs = await ctx.observations.get(ctx.caller.session, "many.txt");
    expect(obs && "own" in obs && obs.own).toEqual({ kept: [], shown: [] });
    const refusal = expectFail(await batch(ctx, "many.txt", [{ operation: "replace", start: idOf(text, 310), content: "changed" }]), "EDIT_STALE_LINE_ID");
    expect(refusal).not.toContain("exactly as you viewed it");
    expect(offeredBatch(refusal)).toBeUndefined();
  });
});
