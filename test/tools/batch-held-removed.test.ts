/**
 * Another writer removed a line (or block) that read the same as the one an
 * operation names, at or just below it: the file is the same whichever copy
 * went, so a delete or replace sent now may do again what was already done
 * (a deduplicated import removed for good, a collapsed blank line gone, a
 * second block overwritten). Refused, nothing written, with the lines as
 * they are now; sent again after that it is taken as meant. A removal below
 * a line that reads otherwise, or an insert, still goes through.
 */
import { describe, expect, test } from "bun:test";
import { batch, otherWriter, viewed } from "../helpers/tool-batch.ts";
import { readText } from "../helpers/tool-context.ts";
import { expectFail, expectOk, expectUntouched, idOf } from "../helpers/tool-mutation.ts";

const IMPORTS = "import { a } from './a';\nimport { b } from './b';\nimport { b } from './b';\nimport { c } from './c';\n\nexport default [a, b, c];\n";
const DEDUPED = "import { a } from './a';\nimport { b } from './b';\nimport { c } from './c';\n\nexport default [a, b, c];\n";

describe("batch_edit: a line another writer already removed is not removed twice", () => {
  test("a duplicated import the other writer removed: deleting it is refused, the one left stays; sent again it is taken as meant", async () => {
    const ctx = await viewed("m.ts", IMPORTS);
    const before = await otherWriter(ctx, "m.ts", DEDUPED);
    const op = { operation: "delete", start: idOf(IMPORTS, 2) };
    const text = expectFail(await batch(ctx, "m.ts", [op]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx.storage, "m.ts", before);
    expect(text).toContain("another writer removed a line there since that read the same as line 2");
    // The lines as they are now, with their ids: the one copy left is there to see.
    expect(text).toContain(`${idOf(DEDUPED, 2)}|import { b } from './b';`);
    expect(text).toContain(`${idOf(DEDUPED, 3)}|import { c } from './c';`);
    // Shown now, the id names the line the model chose to delete after seeing it.
    expectOk(await batch(ctx, "m.ts", [op]));
    expect(await readText(ctx.storage, "m.ts")).toBe("import { a } from './a';\nimport { c } from './c';\n\nexport default [a, b, c];\n");
  });

  test("a doubled blank line a formatter collapsed: deleting one is refused, the separator stays", async () => {
    const src = "import a from 'a';\nimport b from 'b';\n\n\nexport function f() {\n  return a + b;\n}\n";
    const formatted = "import a from 'a';\nimport b from 'b';\n\nexport function f() {\n  return a + b;\n}\n";
    const ctx = await viewed("f.ts", src);
    const before = await otherWriter(ctx, "f.ts", formatted);
    expectFail(await batch(ctx, "f.ts", [{ operation: "delete", start: idOf(src, 3) }]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx.storage, "f.ts", before);
  });

  test("both sides delete the same `{ }` block: the range delete is refused, the other block stays", async () => {
    const src = "a\n{\n}\n{\n}\n{\n}\nz\n";
    const ctx = await viewed("r.txt", src);
    const before = await otherWriter(ctx, "r.txt", "a\n{\n}\n{\n}\nz\n");
    const text = expectFail(await batch(ctx, "r.txt", [{ operation: "delete", start: idOf(src, 2), end: idOf(src, 3) }]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx.storage, "r.txt", before);
    expect(text).toContain("removed 2 lines there since that read the same as the end of lines 2-3");
  });

  test("a range replace over blocks, two of them removed by the other writer: refused, the lines past its end are not overwritten", async () => {
    const src = "const a = 0;\n{\n}\n{\n}\n{\n}\nconst z = 9;\n";
    const ctx = await viewed("r.ts", src);
    const before = await otherWriter(ctx, "r.ts", "const a = 0;\n{\n}\n{\n}\nconst z = 9;\n");
    expectFail(await batch(ctx, "r.ts", [{ operation: "replace", start: idOf(src, 2), end: idOf(src, 5), content: "X" }]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx.storage, "r.ts", before);
  });

  test("a removal below a line that reads otherwise, and an insert next to the copy left, still go through; a delete of that copy does not", async () => {
    const src = "alpha\nbeta\nbeta\ngamma\ndelta\n";
    const ctx = await viewed("g.txt", src);
    await otherWriter(ctx, "g.txt", "alpha\nbeta\ngamma\ndelta\n");
    // alpha: the line removed below it read otherwise, so alpha is still alpha.
    expectOk(await batch(ctx, "g.txt", [{ operation: "replace", start: idOf(src, 1), content: "ALPHA" }]));
    // An insert after the copy left does not repeat the removal.
    expectOk(await batch(ctx, "g.txt", [{ operation: "insert", after: idOf(src, 2), content: "beta2" }]));
    expect(await readText(ctx.storage, "g.txt")).toBe("ALPHA\nbeta\nbeta2\ngamma\ndelta\n");
    // The same shape, a delete of the copy left: refused.
    const again = "x\ny\ny\nz\nw\n";
    const ctx2 = await viewed("h.txt", again);
    const before = await otherWriter(ctx2, "h.txt", "x\ny\nz\nw\n");
    expectFail(await batch(ctx2, "h.txt", [{ operation: "delete", start: idOf(again, 2) }]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx2.storage, "h.txt", before);
  });
});
