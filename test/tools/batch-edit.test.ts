import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { batchEditTool } from "../../src/tools/batch-edit/run.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { validateArgs } from "../../src/pipeline/validate.ts";
import { makeContext, readText, seed } from "../helpers/tool-context.ts";
import { bytesOf, call, expectFail, expectFreshIds, expectOk, expectUntouched, idOf, markViewed, racingStorage, utf8 } from "../helpers/tool-mutation.ts";

type Op = Record<string, unknown>;
const batch = (ctx: ToolContext, path: string, operations: Op[]) => call(batchEditTool, { path, operations }, ctx);

async function viewed(files: Record<string, string | Uint8Array>, ctx = makeContext()) {
  const versions = await seed(ctx.storage, files);
  for (const path of Object.keys(files)) await markViewed(ctx, path);
  const snapshot = async (path: string) => ({ bytes: await bytesOf(ctx.storage, path), version: versions[path] });
  return { ctx, snapshot };
}

const TEXT = "alpha\nbeta\ngamma\ndelta\nepsilon\n";
const id = (n: number, text = TEXT) => idOf(text, n);

/** The ids a result's diff shows, by line content: what the model would copy for its next call. */
function idsIn(result: string): Map<string, string> {
  const ids = new Map<string, string>();
  for (const line of result.split("\n")) {
    const m = /^(?:\+ | {2})(\d+:[0-9a-f]{2})\|(.*)$/.exec(line);
    if (m) ids.set(m[2], m[1]);
  }
  return ids;
}

describe("batch_edit: applying", () => {
  test("replace, insert and delete in one call; one diff with fresh ids", async () => {
    const { ctx } = await viewed({ "a.txt": TEXT });
    const text = expectOk(
      await batch(ctx, "a.txt", [
        { operation: "replace", start: id(2), content: "BETA\n" },
        { operation: "insert", after: 0, content: "first" },
        { operation: "delete", start: id(4), end: id(5) },
        { operation: "insert", after: -1, content: "omega\n" },
      ]),
    );
    const after = "first\nalpha\nBETA\ngamma\nomega\n";
    expect(await readText(ctx.storage, "a.txt")).toBe(after);
    expect(text.split("\n")[0]).toBe("Applied 4 operations to `a.txt` (1 replace, 2 insert, 1 delete): 5 -> 5 lines.");
    expectFreshIds(text, after);
  });

  test("a chain of three batch_edits, each using only ids from the previous result, needs no view", async () => {
    const { ctx } = await viewed({ "a.txt": TEXT });
    const r1 = expectOk(await batch(ctx, "a.txt", [{ operation: "insert", after: id(1), content: "alpha.5\n" }]));
    const ids1 = idsIn(r1);
    const r2 = expectOk(await batch(ctx, "a.txt", [{ operation: "replace", start: ids1.get("beta")!, content: "beta2" }]));
    const ids2 = idsIn(r2);
    const r3 = expectOk(
      await batch(ctx, "a.txt", [
        { operation: "delete", start: ids2.get("alpha.5")! },
        { operation: "insert", after: ids2.get("gamma")!, content: "gamma.5" },
      ]),
    );
    expect(await readText(ctx.storage, "a.txt")).toBe("alpha\nbeta2\ngamma\ngamma.5\ndelta\nepsilon\n");
    expectFreshIds(r3, "alpha\nbeta2\ngamma\ngamma.5\ndelta\nepsilon\n");
  });

  test("ids of lines outside the diff follow the moved-ids note", async () => {
    const long = `${Array.from({ length: 30 }, (_, i) => `l${i + 1}`).join("\n")}\n`;
    const { ctx } = await viewed({ "a.txt": long });
    const text = expectOk(await batch(ctx, "a.txt", [{ operation: "insert", after: id(2, long), content: "x\ny" }]));
    expect(text).toContain("old lines 5-30 are now lines 7-32 (+2)");
    // The note's rule applied to an id from the original view works.
    const [, hash] = id(20, long).split(":");
    expectOk(await batch(ctx, "a.txt", [{ operation: "replace", start: `22:${hash}`, content: "L20" }]));
    expect((await readText(ctx.storage, "a.txt")).split("\n")[21]).toBe("L20");
  });

  test("a whole view line pasted as an id is accepted", async () => {
    const { ctx } = await viewed({ "a.txt": TEXT });
    expectOk(await batch(ctx, "a.txt", [{ operation: "replace", start: `${id(3)}|gamma`, content: "GAMMA" }]));
    expect(await readText(ctx.storage, "a.txt")).toBe(TEXT.replace("gamma", "GAMMA"));
  });

  test("an empty file takes inserts at 0 and -1", async () => {
    const { ctx } = await viewed({ "e.txt": "" });
    expectOk(await batch(ctx, "e.txt", [{ operation: "insert", after: 0, content: "one\ntwo\n" }]));
    expect(await readText(ctx.storage, "e.txt")).toBe("one\ntwo\n");
  });

  test("a change elsewhere since the view does not block it; the result says so", async () => {
    const { ctx } = await viewed({ "a.txt": TEXT });
    await seed(ctx.storage, { "a.txt": TEXT.replace("epsilon", "EPSILON") });
    const text = expectOk(await batch(ctx, "a.txt", [{ operation: "replace", start: id(1), content: "ALPHA" }]));
    expect(await readText(ctx.storage, "a.txt")).toBe("ALPHA\nbeta\ngamma\ndelta\nEPSILON\n");
    expect(text).toContain("had changed since your last view");
  });
});

describe("batch_edit: refusals write nothing", () => {
  test("a stale id: EDIT_STALE_LINE_ID with the current lines, the relocation and a view range", async () => {
    const { ctx } = await viewed({ "a.txt": TEXT });
    const shifted = `new1\nnew2\n${TEXT}`;
    const versions = await seed(ctx.storage, { "a.txt": shifted });
    const text = expectFail(await batch(ctx, "a.txt", [{ operation: "replace", start: id(3), content: "G" }]), "EDIT_STALE_LINE_ID");
    expect(text).toContain(`Lines 1-5 now:\n    ${id(1, shifted)}|new1`);
    expect(text).toContain(`Lines with hash ${id(3).split(":")[1]} near it now`);
    expect(text).toContain(`\n    ${id(5, shifted)}|gamma   (2 lines below)`);
    expect(text).toContain('view {"path": "a.txt", "start": 1, "end": 7}');
    await expectUntouched(ctx.storage, "a.txt", { bytes: utf8(shifted), version: versions["a.txt"] });
  });

  test("one bad operation among good ones: nothing is applied, the failure says which and why", async () => {
    const { ctx, snapshot } = await viewed({ "a.txt": TEXT });
    const before = await snapshot("a.txt");
    const text = expectFail(
      await batch(ctx, "a.txt", [
        { operation: "replace", start: id(1), content: "A" },
        { operation: "delete", start: 3 },
      ]),
      "INVALID_ARGUMENT",
    );
    expect(text).toStartWith("No operations were applied — 1 of 2 operations failed:\n\noperations[1] (delete 3) [INVALID_ARGUMENT]:");
    await expectUntouched(ctx.storage, "a.txt", before);
  });

  test("overlapping operations: EDIT_CONFLICT naming both", async () => {
    const { ctx, snapshot } = await viewed({ "a.txt": TEXT });
    const before = await snapshot("a.txt");
    const text = expectFail(
      await batch(ctx, "a.txt", [
        { operation: "replace", start: id(2), end: id(4), content: "x" },
        { operation: "delete", start: id(4), end: id(5) },
      ]),
      "EDIT_CONFLICT",
    );
    expect(text).toContain(
      `operations[1] (delete ${id(4)}-${id(5)}) [EDIT_CONFLICT]:\n- overlaps operations[0] (replace ${id(2)}-${id(4)}): both change line 4.`,
    );
    await expectUntouched(ctx.storage, "a.txt", before);
  });

  test("content repeating the neighbouring line: EDIT_DUPLICATED_LINE", async () => {
    const { ctx, snapshot } = await viewed({ "a.txt": TEXT });
    const before = await snapshot("a.txt");
    const text = expectFail(await batch(ctx, "a.txt", [{ operation: "replace", start: id(3), content: "beta\nGAMMA" }]), "EDIT_DUPLICATED_LINE");
    expect(text).toContain(`repeats line ${id(2)}, the line just before the range`);
    await expectUntouched(ctx.storage, "a.txt", before);
  });

  test("replacing lines with themselves: EDIT_NO_CHANGE", async () => {
    const { ctx, snapshot } = await viewed({ "a.txt": TEXT });
    const before = await snapshot("a.txt");
    expectFail(await batch(ctx, "a.txt", [{ operation: "replace", start: id(2), content: "beta" }]), "EDIT_NO_CHANGE");
    await expectUntouched(ctx.storage, "a.txt", before);
  });

  test("unseen: FS_NOT_OBSERVED; deleted after view: FS_NOT_FOUND", async () => {
    const memory = createMemoryStorage();
    const ctx = makeContext({ storage: memory });
    await seed(memory, { "a.txt": TEXT });
    expect(expectFail(await batch(ctx, "a.txt", [{ operation: "delete", start: id(1) }]), "FS_NOT_OBSERVED")).toEndWith(
      '— read the file, then retry: view {"path": "a.txt"}',
    );
    await markViewed(ctx, "a.txt");
    await memory.delete("a.txt");
    expect(expectFail(await batch(ctx, "a.txt", [{ operation: "delete", start: id(1) }]), "FS_NOT_FOUND")).toContain("it was deleted after you viewed it");
  });

  test("the schema takes 1 to 100 operations, each of the three forms", () => {
    const ops = (n: number) => Array.from({ length: n }, () => ({ operation: "delete", start: "1:aa" }));
    expect(v.safeParse(batchEditTool.schema, { path: "a", operations: ops(1) }).success).toBe(true);
    expect(v.safeParse(batchEditTool.schema, { path: "a", operations: ops(100) }).success).toBe(true);
    const none = validateArgs(batchEditTool, { path: "a", operations: [] });
    const tooMany = validateArgs(batchEditTool, { path: "a", operations: ops(101) });
    expect(none.ok || tooMany.ok).toBe(false);
    if (!none.ok) expect(none.result.content[0].text).toContain("give at least one operation");
    if (!tooMany.ok) expect(tooMany.result.content[0].text).toContain("at most 100 operations per call");
    const wrong = validateArgs(batchEditTool, { path: "a", operations: [{ operation: "replace", start: "1:aa" }] });
    expect(wrong.ok).toBe(false);
  });
});

describe("batch_edit: CAS retry re-verifies every id", () => {
  test("a race that changed other lines: the ids still verify and the edit lands with both changes", async () => {
    const memory = createMemoryStorage();
    await seed(memory, { "a.txt": TEXT });
    const ctx = makeContext({
      storage: racingStorage(memory, async (path, n) => {
        if (n === 1) await memory.write(path, utf8(TEXT.replace("epsilon", "EPSILON")));
      }),
    });
    await markViewed(ctx, "a.txt");
    expectOk(await batch(ctx, "a.txt", [{ operation: "replace", start: id(1), content: "ALPHA" }]));
    expect(await readText(ctx.storage, "a.txt")).toBe("ALPHA\nbeta\ngamma\ndelta\nEPSILON\n");
  });

  test("a race that shifted the target: EDIT_STALE_LINE_ID on the retry, the racer's content intact", async () => {
    const memory = createMemoryStorage();
    await seed(memory, { "a.txt": TEXT });
    const ctx = makeContext({
      storage: racingStorage(memory, async (path, n) => {
        if (n === 1) await memory.write(path, utf8(`inserted\n${TEXT}`));
      }),
    });
    await markViewed(ctx, "a.txt");
    const text = expectFail(await batch(ctx, "a.txt", [{ operation: "replace", start: id(2), content: "B" }]), "EDIT_STALE_LINE_ID");
    expect(text).toContain(`    ${id(3, `inserted\n${TEXT}`)}|beta   (1 line below)`);
    expect(await readText(ctx.storage, "a.txt")).toBe(`inserted\n${TEXT}`);
  });
});

describe("batch_edit: line endings, BOM, final newline (bytes)", () => {
  async function edited(before: string | Uint8Array, operations: (text: string) => Op[]): Promise<Uint8Array> {
    const { ctx } = await viewed({ f: before });
    const text = typeof before === "string" ? before : new TextDecoder().decode(before).replace(/^\ufeff/, "");
    expectOk(await batch(ctx, "f", operations(text)));
    return bytesOf(ctx.storage, "f");
  }

  test("CRLF stays CRLF for replaced, inserted and neighbouring lines", async () => {
    const out = await edited("a\r\nb\r\nc\r\n", (t) => [
      { operation: "replace", start: idOf(t, 2), content: "B1\nB2\n" },
      { operation: "insert", after: -1, content: "d" },
    ]);
    expect(out).toEqual(utf8("a\r\nB1\r\nB2\r\nc\r\nd\r\n"));
  });

  test("mixed endings stay exactly where untouched", async () => {
    const out = await edited("a\r\nb\nc\r\nd\r\n", (t) => [{ operation: "delete", start: idOf(t, 3) }]);
    expect(out).toEqual(utf8("a\r\nb\nd\r\n"));
  });

  test("a BOM stays, and a missing final newline stays missing after an append", async () => {
    const bom = [0xef, 0xbb, 0xbf];
    const out = await edited(new Uint8Array([...bom, ...utf8("a\nb")]), (_t) => [{ operation: "insert", after: -1, content: "c\n" }]);
    expect(out).toEqual(new Uint8Array([...bom, ...utf8("a\nb\nc")]));
  });

  test("deleting the last line of a file without a final newline keeps it without one", async () => {
    const out = await edited("a\r\nb\r\nc", (t) => [{ operation: "delete", start: idOf(t, 3) }]);
    expect(out).toEqual(utf8("a\r\nb"));
  });
});
