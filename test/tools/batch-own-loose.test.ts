/**
 * Ids from before the session's own edit, after another writer changed the
 * file too. The own edit moved the viewed lines; the other writer's change
 * means where they are now is no longer known exactly. An old id that still
 * verifies at its number (a lone `}` now there) must be refused, not applied
 * to whichever line sits there now; no correction may be offered ready to
 * send from a guess; ids the session was shown since still land.
 */
import { describe, expect, test } from "bun:test";
import { batchEditTool } from "../../src/tools/batch-edit/run.ts";
import { viewTool } from "../../src/tools/view/run.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { makeContext, readText, seed } from "../helpers/tool-context.ts";
import { bytesOf, call, expectFail, expectOk, expectUntouched, idOf } from "../helpers/tool-mutation.ts";

type Op = Record<string, unknown>;
const batch = (ctx: ToolContext, path: string, operations: Op[]) => call(batchEditTool, { path, operations }, ctx);

const MODULE = "// top\nfunction load() {\n  return 1;\n}\n\nfunction pick() {\n  return 2;\n}\n\nconst V = 1;\n";
const BLOCKS = Array.from(
  { length: 6 },
  (_, k) => `export function f${k + 1}(x) {\n  if (x == null) {\n    return null;\n  }\n  return x * ${k + 1};\n}\n`,
).join("\n");

async function viewed(path: string, text: string): Promise<ToolContext> {
  const ctx = makeContext();
  await seed(ctx.storage, { [path]: text });
  expectOk(await call(viewTool, { path }, ctx));
  return ctx;
}

async function snapshot(ctx: ToolContext, path: string) {
  return { bytes: await bytesOf(ctx.storage, path), version: (await ctx.storage.stat(path))!.version! };
}

/** Another writer (not this session) changes one line of the file. */
async function otherWriterChanges(ctx: ToolContext, path: string, from: string, to: string): Promise<void> {
  const text = await readText(ctx.storage, path);
  expect(text).toContain(from);
  await seed(ctx.storage, { [path]: text.replace(from, to) });
}

/** BLOCKS viewed whole, then the session's own insert of a same-shaped f0 block (7 lines) after f1: f4's `return null;` goes from 24 to 31. */
async function blocksWithF0(): Promise<ToolContext> {
  const ctx = await viewed("b.ts", BLOCKS);
  const f0 = "export function f0(x) {\n  if (x == null) {\n    return null;\n  }\n  return x * 0;\n}\n\n";
  expectOk(await batch(ctx, "b.ts", [{ operation: "insert", after: idOf(BLOCKS, 7), content: f0 }]));
  return ctx;
}

const INSERT_TOP = { operation: "insert", after: "1:00", content: "// a\n// b\n// c\n// d" };

describe("batch_edit: an id from before the session's own edit, after another writer's change", () => {
  test("a brace id that still verifies at its number is refused, not applied to the other brace there now", async () => {
    const ctx = await viewed("m.ts", MODULE);
    expectOk(await batch(ctx, "m.ts", [{ ...INSERT_TOP, after: idOf(MODULE, 1) }]));
    await otherWriterChanges(ctx, "m.ts", "const V = 1;", "const V = 2;");
    const before = await snapshot(ctx, "m.ts");
    // 8:.. was pick()'s brace in the view; line 8 is now load()'s brace, with the same hash.
    const text = expectFail(await batch(ctx, "m.ts", [{ operation: "replace", start: idOf(MODULE, 8), content: "} // end pick" }]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx.storage, "m.ts", before);
    expect(text).toContain("moved the line you viewed as line 8 to line 12");
    expect(text).not.toContain("send this operation");
    // The view it offers shows where the brace went; its id from there lands on pick()'s brace.
    const now = await readText(ctx.storage, "m.ts");
    expect(text).toContain('view {"path": "m.ts", "start": 7, "end": 14}');
    // The pointer may be wrong after the other writer's change: a search by the line's text is offered too.
    expect(text).toContain('view {"path": "m.ts", "content": "<text of the line>"} finds it');
    expectOk(await call(viewTool, { path: "m.ts", start: 7, end: 14 }, ctx));
    expectOk(await batch(ctx, "m.ts", [{ operation: "replace", start: idOf(now, 12), content: "} // end pick" }]));
    expect(await readText(ctx.storage, "m.ts")).toBe(now.replace("  return 2;\n}\n", "  return 2;\n} // end pick\n"));
  });

  test("the same refusal whichever came first, the other writer or the session's edit", async () => {
    const ctx = await viewed("m.ts", MODULE);
    await otherWriterChanges(ctx, "m.ts", "const V = 1;", "const V = 2;");
    expectOk(await batch(ctx, "m.ts", [{ ...INSERT_TOP, after: idOf(MODULE, 1) }]));
    const before = await snapshot(ctx, "m.ts");
    expectFail(await batch(ctx, "m.ts", [{ operation: "insert", after: idOf(MODULE, 8), content: "// after pick" }]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx.storage, "m.ts", before);
  });

  test("a ranged view of the other writer's version elsewhere does not clear the doubt about older ids", async () => {
    const ctx = await viewed("m.ts", MODULE);
    expectOk(await batch(ctx, "m.ts", [{ ...INSERT_TOP, after: idOf(MODULE, 1) }]));
    await otherWriterChanges(ctx, "m.ts", "const V = 1;", "const V = 2;");
    expectOk(await call(viewTool, { path: "m.ts", start: 13, end: 14 }, ctx));
    const before = await snapshot(ctx, "m.ts");
    expectFail(await batch(ctx, "m.ts", [{ operation: "replace", start: idOf(MODULE, 8), content: "} // end pick" }]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx.storage, "m.ts", before);
  });

  test("the line at the number lands once the refusal showed it; an id the session's own edit showed lands", async () => {
    const ctx = await viewed("m.ts", MODULE);
    const result = expectOk(await batch(ctx, "m.ts", [{ ...INSERT_TOP, after: idOf(MODULE, 1) }]));
    const edited = await readText(ctx.storage, "m.ts");
    await otherWriterChanges(ctx, "m.ts", "const V = 1;", "const V = 2;");
    // Refused as above, then sent again as the refusal says: the model chose the brace at 8 now.
    expectFail(await batch(ctx, "m.ts", [{ operation: "replace", start: idOf(MODULE, 8), content: "} // end load" }]), "EDIT_STALE_LINE_ID");
    expectOk(await batch(ctx, "m.ts", [{ operation: "replace", start: idOf(MODULE, 8), content: "} // end load" }]));
    let now = await readText(ctx.storage, "m.ts");
    expect(now.split("\n")[7]).toBe("} // end load");
    // The first result showed line 6 (load's header) with its new id: that id is current to the session.
    expect(result).toContain(idOf(edited, 6));
    expectOk(await batch(ctx, "m.ts", [{ operation: "replace", start: idOf(edited, 6), content: "function loadAll() {" }]));
    now = await readText(ctx.storage, "m.ts");
    expect(now.split("\n").slice(5, 8)).toEqual(["function loadAll() {", "  return 1;", "} // end load"]);
  });

  test("a stale id in repeated code: the nearest line with its hash is not offered ready to send; the place the own edit put it is", async () => {
    const ctx = await viewed("b.ts", BLOCKS);
    // Four comment lines above f2, then another writer adds two lines at the top.
    expectOk(await batch(ctx, "b.ts", [{ operation: "insert", after: idOf(BLOCKS, 7), content: "// one\n// two\n// three\n// four" }]));
    const edited = await readText(ctx.storage, "b.ts");
    await seed(ctx.storage, { "b.ts": `// x\n// y\n${edited}` });
    const before = await snapshot(ctx, "b.ts");
    // f4's `return null;` was line 24 in the view: now 30 (24 + 4 + 2); 24 and 26 hold other lines.
    const text = expectFail(
      await batch(ctx, "b.ts", [{ operation: "replace", start: idOf(BLOCKS, 24), content: "    return undefined;" }]),
      "EDIT_STALE_LINE_ID",
    );
    await expectUntouched(ctx.storage, "b.ts", before);
    expect(text).not.toContain("send this operation");
    expect(text).toContain("that edit moved the line you viewed as line 24 to line 28");
    expect(text).toContain('view {"path": "b.ts", "start": 23, "end": 33}');
  });

  test("an operation with one id in doubt gets no corrected batch, even when its other id has a sure correction", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "b.ts": BLOCKS });
    expectOk(await call(viewTool, { path: "b.ts", start: 20, end: 28 }, ctx));
    // Seven lines inserted above: f4's if-block (viewed as 23-26) is now 30-33; 23:.. now names f3's `if` line.
    const f0 = "\nexport function f0(x) {\n  if (x == null) {\n    return null;\n  }\n  return x * 0;\n}";
    expectOk(await batch(ctx, "b.ts", [{ operation: "insert", after: idOf(BLOCKS, 6), content: f0 }]));
    const before = await snapshot(ctx, "b.ts");
    const text = expectFail(await batch(ctx, "b.ts", [{ operation: "delete", start: idOf(BLOCKS, 23), end: idOf(BLOCKS, 26) }]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx.storage, "b.ts", before);
    expect(text).toContain("is ambiguous");
    // Before: "Corrected batch, ready to send" kept the ambiguous start and moved only the end: an 11-line delete.
    expect(text).not.toContain("Corrected batch");
  });

  test("a ranged view of the other writer's version at the place the own edit put the line does not clear the doubt", async () => {
    const ctx = await blocksWithF0();
    // Another writer deletes f3's last line: f4's `return null;` (24 in the view, 31 after the own edit) is now 30.
    await otherWriterChanges(ctx, "b.ts", "  return x * 3;\n", "");
    expectOk(await call(viewTool, { path: "b.ts", start: 29, end: 40 }, ctx));
    const before = await snapshot(ctx, "b.ts");
    expectFail(await batch(ctx, "b.ts", [{ operation: "replace", start: idOf(BLOCKS, 24), content: "    return undefined;" }]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx.storage, "b.ts", before);
  });

  test("a stale id after such a view is not called mistyped, and no operation on another function is offered", async () => {
    const ctx = await blocksWithF0();
    await seed(ctx.storage, { "b.ts": `// a\n// b\n${await readText(ctx.storage, "b.ts")}` });
    expectOk(await call(viewTool, { path: "b.ts", start: 29, end: 40 }, ctx));
    const before = await snapshot(ctx, "b.ts");
    const text = expectFail(
      await batch(ctx, "b.ts", [{ operation: "replace", start: idOf(BLOCKS, 24), content: "    return undefined;" }]),
      "EDIT_STALE_LINE_ID",
    );
    await expectUntouched(ctx.storage, "b.ts", before);
    expect(text).not.toContain("exactly as you viewed");
    expect(text).not.toContain("send this operation");
    expect(text).not.toContain("Corrected batch");
  });
});

describe("batch_edit: ids from before the session's own edit, no other writer", () => {
  test("lines of a long own edit its result did not show are not taken as shown", async () => {
    const big = Array.from(
      { length: 60 },
      (_, k) => `export function f${k + 1}(x) {\n  if (x == null) {\n    return null;\n  }\n  return x * ${k + 1};\n}\n`,
    ).join("\n");
    const ctx = await viewed("big.ts", big);
    const more = Array.from(
      { length: 40 },
      (_, k) => `export function g${k + 1}(x) {\n  if (x == null) {\n    return null;\n  }\n  return x * ${k + 100};\n}\n`,
    ).join("\n");
    const result = expectOk(await batch(ctx, "big.ts", [{ operation: "insert", after: idOf(big, 7), content: more }]));
    expect(result).toContain("more diff lines not shown");
    const now = await readText(ctx.storage, "big.ts");
    expect(result).not.toContain(idOf(now, 255));
    const before = await snapshot(ctx, "big.ts");
    // 255 was f37's `return null;` in the view; the line at 255 now is a g-function's, never displayed.
    expectFail(await batch(ctx, "big.ts", [{ operation: "replace", start: idOf(big, 255), content: "    return undefined;" }]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx.storage, "big.ts", before);
  });

  test("edits that moved more lines than the record follows leave every id not shown since in doubt", async () => {
    const text = Array.from({ length: 70 }, (_, k) => `export function f${k + 1}(x) {\n  return null;\n}\n`).join("\n");
    const ctx = await viewed("u.ts", text);
    // 66 separate inserts of a same-shaped block in one batch: more runs of moved lines than the record keeps, and
    // every line moved by a whole block, so an old id of a `return null;` still verifies at its number.
    const operations = Array.from({ length: 66 }, (_, k) => ({
      operation: "insert",
      after: idOf(text, 4 * k + 4),
      content: `export function g${k}(x) {\n  return null;\n}\n\n`,
    }));
    expectOk(await batch(ctx, "u.ts", operations));
    const before = await snapshot(ctx, "u.ts");
    const last = 4 * 69 + 2; // f70's `return null;` in the view
    const msg = expectFail(await batch(ctx, "u.ts", [{ operation: "replace", start: idOf(text, last), content: "  return undefined;" }]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx.storage, "u.ts", before);
    expect(msg).toContain("moved more lines than are followed");
    // Sent again, the line shown at that number is the one meant.
    expectOk(await batch(ctx, "u.ts", [{ operation: "replace", start: idOf(text, last), content: "  return undefined;" }]));
  });
});
