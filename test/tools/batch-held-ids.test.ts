/**
 * Ids the session holds, checked against the file when another writer
 * changed it since: an id proves its line's content, not its place. After
 * an insert above, an equal `}` can sit at the id's number; after an edit
 * inside a range, its inner lines are not what the model saw. Both are
 * refused with the lines as they are now, and the call shown then lands.
 * Changes elsewhere (even next to the target) still do not block an edit.
 */
import { describe, expect, test } from "bun:test";
import { viewTool } from "../../src/tools/view/run.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { type Op, batch, otherWriter, viewed } from "../helpers/tool-batch.ts";
import { makeContext, readText, seed } from "../helpers/tool-context.ts";
import { bytesOf, call, expectFail, expectOk, expectUntouched, idOf } from "../helpers/tool-mutation.ts";

async function snapshot(ctx: ToolContext, path: string) {
  return { bytes: await bytesOf(ctx.storage, path), version: (await ctx.storage.stat(path))!.version! };
}

/** The operation a refusal offers ("If that is the line you meant, send this operation: {...}"). */
function offeredOp(text: string): Op | undefined {
  const m = /send this operation: (\{.*\})$/m.exec(text);
  return m ? JSON.parse(m[1]) : undefined;
}

const FUNCS = "function a() {\n  return 1;\n}\nfunction b() {\n  return 2;\n}\n";
const Z = "function z() {\n  return 0;\n}\n";

describe("batch_edit: ids held by the session when another writer changed the file", () => {
  test("the lines around a line no other reads like changed: refused with that reason, not as repetitive code; a resend lands", async () => {
    const ctx = await viewed("a.txt", "top\nEND\n");
    await otherWriter(ctx, "a.txt", "top\nB1\nB0\nEND\n");
    const before = await snapshot(ctx, "a.txt");
    // Held: 2 was END; it is B1 now, and END fits two lines down, but "top" is not there: no shift explains it.
    const op = { operation: "insert", after: idOf("top\n", 1), content: "A0" };
    const text = expectFail(await batch(ctx, "a.txt", [op]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx.storage, "a.txt", before);
    expect(text).toContain("another writer changed the lines around it since you were shown them");
    expect(text).not.toContain("others that read the same");
    expectOk(await batch(ctx, "a.txt", [op]));
    expect(await readText(ctx.storage, "a.txt")).toBe("top\nA0\nB1\nB0\nEND\n");
  });

  test("an insert above puts an equal `}` at the id's number: refused, never applied there; the offered call lands on the brace viewed", async () => {
    const ctx = await viewed("c.ts", FUNCS);
    await otherWriter(ctx, "c.ts", Z + FUNCS);
    const before = await snapshot(ctx, "c.ts");
    // 3:.. is a()'s closing brace as viewed; line 3 is now z()'s, with the same hash.
    const text = expectFail(await batch(ctx, "c.ts", [{ operation: "replace", start: idOf(FUNCS, 3), content: "}; // end a" }]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx.storage, "c.ts", before);
    expect(text).toContain("added or removed lines above it");
    const op = offeredOp(text);
    expect(op).toEqual({ operation: "replace", start: idOf(Z + FUNCS, 6), content: "}; // end a" });
    expectOk(await batch(ctx, "c.ts", [op!]));
    expect(await readText(ctx.storage, "c.ts")).toBe(`${Z}function a() {\n  return 1;\n}; // end a\nfunction b() {\n  return 2;\n}\n`);
  });

  test("the same id sent again after the refusal names the line shown at that number: it lands there, as the model chose", async () => {
    const ctx = await viewed("c.ts", FUNCS);
    await otherWriter(ctx, "c.ts", Z + FUNCS);
    expectFail(await batch(ctx, "c.ts", [{ operation: "replace", start: idOf(FUNCS, 3), content: "} // z" }]), "EDIT_STALE_LINE_ID");
    expectOk(await batch(ctx, "c.ts", [{ operation: "replace", start: idOf(Z + FUNCS, 3), content: "} // z" }]));
    expect(await readText(ctx.storage, "c.ts")).toBe(`function z() {\n  return 0;\n} // z\n${FUNCS}`);
  });

  test("a range whose inner line another writer changed is refused, nothing written; resent after the refusal it lands over what was shown", async () => {
    const cfg = "[main]\n    a = 1\n    b = 2\n    c = 3\n";
    const fixed = "[main]\n    a = 1\n    b = 20  # security fix\n    c = 3\n";
    const ctx = await viewed("cfg.py", cfg);
    await otherWriter(ctx, "cfg.py", fixed);
    const before = await snapshot(ctx, "cfg.py");
    const op = { operation: "replace", start: idOf(cfg, 2), end: idOf(cfg, 4), content: "    a = 1\n    b = 2\n    c = 30" };
    const text = expectFail(await batch(ctx, "cfg.py", [op]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx.storage, "cfg.py", before);
    expect(text).toContain("line 3 is not what you were shown there");
    expect(text).toContain("b = 20  # security fix");
    expectOk(await batch(ctx, "cfg.py", [op]));
    expect(await readText(ctx.storage, "cfg.py")).toBe("[main]\n    a = 1\n    b = 2\n    c = 30\n");
  });

  test("a change next to the target, in place, does not block the edit (a change elsewhere never did)", async () => {
    const text = "one\ntwo\nthree\nfour\nfive\n";
    const ctx = await viewed("n.txt", text);
    await otherWriter(ctx, "n.txt", "one\nTWO!\nthree\nFOUR!\nfive\n");
    expectOk(await batch(ctx, "n.txt", [{ operation: "replace", start: idOf(text, 3), content: "3" }]));
    expect(await readText(ctx.storage, "n.txt")).toBe("one\nTWO!\n3\nFOUR!\nfive\n");
  });

  test("an insert far above a distinct line: the id no longer verifies (the stale-id path), as before", async () => {
    const text = "alpha\nbeta\ngamma\n";
    const ctx = await viewed("g.txt", text);
    await otherWriter(ctx, "g.txt", `new\n${text}`);
    expectFail(await batch(ctx, "g.txt", [{ operation: "replace", start: idOf(text, 2), content: "BETA" }]), "EDIT_STALE_LINE_ID");
  });

  test("the session's own inserts move what it holds: later ids from its view, corrected or current, still land", async () => {
    const ctx = await viewed("c.ts", FUNCS);
    // Another writer's change far from the edits makes every later call "changed since your view".
    await otherWriter(ctx, "c.ts", `${FUNCS}// tail\n`);
    const after = `${FUNCS}// tail\n`;
    expectOk(await batch(ctx, "c.ts", [{ operation: "insert", after: 0, content: "// one\n// two" }]));
    // a()'s brace is now line 5: the id the result implies (5:hh) lands.
    const now = `// one\n// two\n${after}`;
    expectOk(await batch(ctx, "c.ts", [{ operation: "replace", start: idOf(now, 6), content: "function b() { // b" }]));
    expect(await readText(ctx.storage, "c.ts")).toBe(`// one\n// two\nfunction a() {\n  return 1;\n}\nfunction b() { // b\n  return 2;\n}\n// tail\n`);
  });

  test("ids from a ranged view of one part are held too: a shifted brace in that part is refused", async () => {
    const long = `${Array.from({ length: 40 }, (_, i) => (i % 4 === 3 ? "}" : `line ${i + 1}`)).join("\n")}\n`;
    const ctx = await viewed("r.txt", long, { start: 20, end: 30 });
    const shifted = `x1\nx2\nx3\nx4\n${long}`;
    await otherWriter(ctx, "r.txt", shifted);
    const before = await snapshot(ctx, "r.txt");
    // Line 24 was `}` and is `}` again after the shift by 4 (the period of the pattern)... but its neighbours are not.
    expect(long.split("\n")[23]).toBe("}");
    expect(shifted.split("\n")[23]).toBe("}");
    const text = expectFail(await batch(ctx, "r.txt", [{ operation: "delete", start: idOf(long, 24) }]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx.storage, "r.txt", before);
    expect(offeredOp(text)).toEqual({ operation: "delete", start: idOf(shifted, 28) });
  });

  test("ids shown by a search hit are held too: after an insert above, the brace the search showed is not confused with another", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "c.ts": FUNCS });
    expectOk(await call(viewTool, { path: "c.ts", content: "return 1", context: 1 }, ctx));
    await otherWriter(ctx, "c.ts", Z + FUNCS);
    const before = await snapshot(ctx, "c.ts");
    const text = expectFail(await batch(ctx, "c.ts", [{ operation: "delete", start: idOf(FUNCS, 3) }]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx.storage, "c.ts", before);
    expect(offeredOp(text)).toEqual({ operation: "delete", start: idOf(Z + FUNCS, 6) });
  });

  test("repetitive code: a search hit's id in one of several same-shaped getters, another getter inserted above, is refused, never applied to the wrong one", async () => {
    const getter = (name: string) =>
      `export function get_${name}(id: string) {\n  const row = db.get("${name}", id);\n  if (!row) {\n    return null;\n  }\n  return row;\n}\n`;
    const text = ["user", "item", "cart"].map(getter).join("");
    const ctx = makeContext();
    await seed(ctx.storage, { "g.ts": text });
    expectOk(await call(viewTool, { path: "g.ts", content: "get_item", context: 0 }, ctx));
    expectOk(await call(viewTool, { path: "g.ts", content: "return null", context: 0 }, ctx));
    const now = getter("order") + text;
    await otherWriter(ctx, "g.ts", now);
    const before = await snapshot(ctx, "g.ts");
    // get_item's `return null;` was line 11; line 11 is now get_user's, with the same text.
    expect(text.split("\n")[10]).toBe(now.split("\n")[10]);
    expectFail(await batch(ctx, "g.ts", [{ operation: "replace", start: idOf(text, 11), content: "    return undefined;" }]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx.storage, "g.ts", before);
    // The refusal showed line 11 as it is now: sent again, it is taken as meant (no loop).
    expectOk(await batch(ctx, "g.ts", [{ operation: "replace", start: idOf(now, 11), content: "    return undefined;" }]));
    expect((await readText(ctx.storage, "g.ts")).split("\n")[10]).toBe("    return undefined;");
  });

  test("after an insert above, the corrected batch for a long range lands as offered (its lines count as shown)", async () => {
    const body = Array.from({ length: 17 }, (_, i) => `  step(${i});`).join("\n");
    const text = `function run() {\n${body}\n}\nconst x = 1;\nconst y = 2;\n`;
    const ctx = await viewed("r.ts", text);
    const now = `// header\n${text}`;
    await otherWriter(ctx, "r.ts", now);
    const refusal = expectFail(
      await batch(ctx, "r.ts", [
        { operation: "replace", start: idOf(text, 2), end: idOf(text, 18), content: "  steps();" },
        { operation: "replace", start: idOf(text, 21), content: "const y = 3;" },
      ]),
      "EDIT_STALE_LINE_ID",
    );
    const m = /ready to send[^\n]*\n(?:batch_edit )(\{.*\})$/m.exec(refusal);
    expect(m).not.toBeNull();
    expectOk(await batch(ctx, "r.ts", JSON.parse(m![1]).operations));
    expect(await readText(ctx.storage, "r.ts")).toBe("// header\nfunction run() {\n  steps();\n}\nconst x = 1;\nconst y = 3;\n");
  });

  test("ids from the session's own edit result are held: after another writer's insert above, one of them on an equal `}` is refused", async () => {
    const ctx = await viewed("c.ts", FUNCS);
    const edited = expectOk(await batch(ctx, "c.ts", [{ operation: "replace", start: idOf(FUNCS, 2), content: "  return 10;" }]));
    const after = FUNCS.replace("return 1;", "return 10;");
    // The result's diff showed 3:.. (a()'s brace) as context.
    expect(edited).toContain(idOf(after, 3));
    await otherWriter(ctx, "c.ts", Z + after);
    const before = await snapshot(ctx, "c.ts");
    expectFail(await batch(ctx, "c.ts", [{ operation: "replace", start: idOf(after, 3), content: "}; // a" }]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx.storage, "c.ts", before);
  });
});
