/**
 * A stale id with several lines of its hash near it: the operation offered
 * ready to send goes to the one the lines the session was shown around the
 * id fit (the shift they moved by), not to the nearest or the first; when
 * what was held does not tell them apart, none is offered, and every
 * candidate is listed with its id, so the model names the one it means.
 */
import { describe, expect, test } from "bun:test";
import { type Op, batch, otherWriter, viewed } from "../helpers/tool-batch.ts";
import { readText } from "../helpers/tool-context.ts";
import { expectFail, expectOk, expectUntouched, idOf } from "../helpers/tool-mutation.ts";

/** The operation a refusal offers ("send this operation: {...}"). */
function offeredOp(text: string): Op | undefined {
  const m = /send this operation: (\{.*\})$/m.exec(text);
  return m ? JSON.parse(m[1]) : undefined;
}

const TWO = "import x from 'y';\n\nfunction a() {\n  return 1;\n}\n\nfunction b() {\n  return 1;\n}\n";
const HEADED = `// header\n// more\n${TWO}`;

describe("batch_edit: which line a stale id moved to, by what the session was shown around it", () => {
  test("two functions of one shape, a line inserted in the second: one held line more fitting the farther copy never gets it offered", async () => {
    const body = (name: string) => [`function ${name}() {`, "  if (a) {", "    b();", "  }", "}"];
    const viewedLines = ["import x from 'x';", "", ...body("f"), "", ...body("g"), ""];
    const text0 = viewedLines.join("\n");
    const ctx = await viewed("f.ts", text0);
    // Another writer: a header on top, and a comment as the first line of g's body.
    const now = ["// header", ...viewedLines.slice(0, 9), "  // g body", ...viewedLines.slice(9)].join("\n");
    const before = await otherWriter(ctx, "f.ts", now);
    // 12:.. is g's inner `  }` as viewed: now at 14; f's is at 7.
    expect([now.split("\n")[13], now.split("\n")[6]]).toEqual(["  }", "  }"]);
    const text = expectFail(await batch(ctx, "f.ts", [{ operation: "replace", start: idOf(text0, 12), content: "  } // g" }]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx.storage, "f.ts", before);
    const op = offeredOp(text);
    // Offered at all, only on g's brace: never on f's.
    if (op) expect(op.start).toBe(idOf(now, 14));
    expect(text).toContain(idOf(now, 14));
  });

  test("two equal lines equally far: the one whose held neighbours fit is offered, and the offered call edits it", async () => {
    const ctx = await viewed("a.ts", TWO);
    await otherWriter(ctx, "a.ts", HEADED);
    // 8:.. is `return 1;` in b() as viewed; lines 6 (in a()) and 10 (in b()) both read so now.
    const text = expectFail(await batch(ctx, "a.ts", [{ operation: "replace", start: idOf(TWO, 8), content: "  return 2;" }]), "EDIT_STALE_LINE_ID");
    expect(text).toContain(`now around ${idOf(HEADED, 10)}`);
    const op = offeredOp(text);
    expect(op).toEqual({ operation: "replace", start: idOf(HEADED, 10), content: "  return 2;" });
    expectOk(await batch(ctx, "a.ts", [op!]));
    expect(await readText(ctx.storage, "a.ts")).toBe(HEADED.replace("function b() {\n  return 1;", "function b() {\n  return 2;"));
  });

  test("nothing held around the id tells two equally far lines apart: no operation is offered; both are listed, and one sent by its id lands", async () => {
    // Only line 8 was shown (a ranged view of one line).
    const ctx = await viewed("a.ts", TWO, { start: 8, end: 8 });
    const before = await otherWriter(ctx, "a.ts", HEADED);
    const text = expectFail(await batch(ctx, "a.ts", [{ operation: "replace", start: idOf(TWO, 8), content: "  return 2;" }]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx.storage, "a.ts", before);
    expect(offeredOp(text)).toBeUndefined();
    expect(text).toContain(`${idOf(HEADED, 6)}|  return 1;`);
    expect(text).toContain(`${idOf(HEADED, 10)}|  return 1;`);
    expect(text).toContain("does not tell which of these is the line you read");
    expectOk(await batch(ctx, "a.ts", [{ operation: "replace", start: idOf(HEADED, 10), content: "  return 2;" }]));
    expect(await readText(ctx.storage, "a.ts")).toBe(HEADED.replace("function b() {\n  return 1;", "function b() {\n  return 2;"));
  });

  test("a copy removed by another writer: the line left reads as what was shown at its own number, so deleting it is not offered", async () => {
    const src = "import { a } from './a';\nimport { b } from './b';\nimport { b } from './b';\nimport { c } from './c';\n\nexport default [a, b, c];\n";
    const ctx = await viewed("m.ts", src);
    const before = await otherWriter(ctx, "m.ts", src.replace("import { b } from './b';\n", ""));
    // 3:.. is the second copy as viewed; line 2 now reads the same, and was shown so at line 2.
    const text = expectFail(await batch(ctx, "m.ts", [{ operation: "delete", start: idOf(src, 3) }]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx.storage, "m.ts", before);
    expect(offeredOp(text)).toBeUndefined();
    expect(text).not.toContain("Corrected batch");
  });
});
