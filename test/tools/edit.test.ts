import { describe, expect, test } from "bun:test";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { editTool } from "../../src/tools/edit/run.ts";
import { MAX_ATTEMPTS } from "../../src/tools/support/mutate.ts";
import { writeTool } from "../../src/tools/write/run.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { makeContext, readText, seed } from "../helpers/tool-context.ts";
import { bytesOf, call, expectFail, expectFreshIds, expectOk, expectUntouched, idOf, markViewed, racingStorage, utf8 } from "../helpers/tool-mutation.ts";

const edit = (ctx: ToolContext, path: string, old_string: string, new_string: string, replace_all?: boolean) =>
  call(editTool, { path, old_string, new_string, ...(replace_all === undefined ? {} : { replace_all }) }, ctx);

/** A context with `files` seeded and all of them viewed by the session. */
async function viewedFiles(files: Record<string, string | Uint8Array>, ctx = makeContext()) {
  const versions = await seed(ctx.storage, files);
  for (const path of Object.keys(files)) await markViewed(ctx, path);
  const snapshot = async (path: string) => ({ bytes: await bytesOf(ctx.storage, path), version: versions[path] });
  return { ctx, versions, snapshot };
}

const CODE = "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 1;\n}\nconst q = 3;\n";

describe("edit: arguments and the observation policy", () => {
  test("an empty old_string is INVALID_ARGUMENT before anything else, pointing to write and batch_edit insert", async () => {
    const ctx = makeContext(); // not even viewed: the argument is wrong whatever the file
    const text = expectFail(await edit(ctx, "a.ts", "", "x"), "INVALID_ARGUMENT");
    expect(text).toStartWith("old_string is empty");
    expect(text).toContain('use write {"path": "a.ts", "content": "..."}');
    expect(text).toContain('"operation": "insert"');
  });

  test("an unseen file: FS_NOT_OBSERVED with the exact view call, nothing written", async () => {
    const ctx = makeContext();
    const versions = await seed(ctx.storage, { "a.ts": CODE });
    const text = expectFail(await edit(ctx, "a.ts", "const q = 3;", "const q = 4;"), "FS_NOT_OBSERVED");
    expect(text).toEndWith(' — read the file, then retry: view {"path": "a.ts"}');
    await expectUntouched(ctx.storage, "a.ts", { bytes: utf8(CODE), version: versions["a.ts"] });
  });

  test("a file seen missing: FS_NOT_FOUND pointing to write, without a stale remedy", async () => {
    const ctx = makeContext();
    await markViewed(ctx, "nope.ts");
    const text = expectFail(await edit(ctx, "nope.ts", "a", "b"), "FS_NOT_FOUND");
    expect(text).toContain("does not exist (as you found earlier)");
    expect(text).toContain('write: write {"path": "nope.ts"');
    expect(text).not.toContain("re-read");
  });

  test("never seen and not there: FS_NOT_FOUND (not FS_NOT_OBSERVED), absence recorded", async () => {
    const ctx = makeContext();
    const text = expectFail(await edit(ctx, "src/nope.ts", "a", "b"), "FS_NOT_FOUND");
    expect(text).toContain('view {"path": "src"} lists what exists there');
    expect(await ctx.observations.get("test-session", "src/nope.ts")).toEqual({ kind: "absent" });
  });

  test("a file seen missing and created since: FS_NOT_OBSERVED (its content was never seen)", async () => {
    const ctx = makeContext();
    await markViewed(ctx, "late.ts");
    await seed(ctx.storage, { "late.ts": "x\n" });
    expectFail(await edit(ctx, "late.ts", "x", "y"), "FS_NOT_OBSERVED");
    expect(await readText(ctx.storage, "late.ts")).toBe("x\n");
  });

  test("a directory and a non-text file are refused with their codes", async () => {
    const { ctx } = await viewedFiles({ "bin.dat": new Uint8Array([1, 0, 2]), "d/x.txt": "x" });
    expectFail(await edit(ctx, "bin.dat", "a", "b"), "FS_NOT_TEXT");
    expectFail(await edit(ctx, "d", "a", "b"), "FS_IS_DIRECTORY");
  });
});

describe("edit: applying", () => {
  test("replaces the unique match; the diff has 2 context lines, fresh ids for context/added, old ids for removed", async () => {
    const { ctx } = await viewedFiles({ "a.ts": CODE });
    const text = expectOk(await edit(ctx, "a.ts", "function b() {\n  return 1;", "function b() {\n  // two\n  return 2;"));
    const after = "function a() {\n  return 1;\n}\n\nfunction b() {\n  // two\n  return 2;\n}\nconst q = 3;\n";
    expect(await readText(ctx.storage, "a.ts")).toBe(after);
    expect(text).toBe(
      [
        "Edited `a.ts`: replaced 1 occurrence (line 5); 8 -> 9 lines.",
        "@@ -4,5 +4,6 @@",
        `  ${idOf(after, 4)}|`,
        `  ${idOf(after, 5)}|function b() {`,
        `- ${idOf(CODE, 6)}|  return 1;`,
        `+ ${idOf(after, 6)}|  // two`,
        `+ ${idOf(after, 7)}|  return 2;`,
        `  ${idOf(after, 8)}|}`,
        `  ${idOf(after, 9)}|const q = 3;`,
      ].join("\n"),
    );
    expectFreshIds(text, after);
  });

  test("records the new version: a whole-file write right after needs no new view", async () => {
    const { ctx } = await viewedFiles({ "a.ts": CODE });
    expectOk(await edit(ctx, "a.ts", "const q = 3;", "const q = 4;"));
    expectOk(await call(writeTool, { path: "a.ts", content: "replaced\n" }, ctx));
  });

  test("a change elsewhere since the view does not block it; the result says so in one line", async () => {
    const { ctx } = await viewedFiles({ "a.ts": CODE });
    await seed(ctx.storage, { "a.ts": `// header added by someone else\n${CODE}` });
    const text = expectOk(await edit(ctx, "a.ts", "const q = 3;", "const q = 4;"));
    expect(await readText(ctx.storage, "a.ts")).toBe(`// header added by someone else\n${CODE.replace("q = 3", "q = 4")}`);
    expect(text.split("\n").filter((l) => l.includes("had changed since your last view"))).toHaveLength(1);
  });

  test("replace_all replaces every occurrence and lists where", async () => {
    const { ctx } = await viewedFiles({ "a.ts": CODE });
    const text = expectOk(await edit(ctx, "a.ts", "return 1;", "return 0;", true));
    expect(text.split("\n")[0]).toBe("Edited `a.ts`: replaced 2 occurrences (lines 2, 6); 8 -> 8 lines.");
    expect(await readText(ctx.storage, "a.ts")).toBe(CODE.replaceAll("return 1;", "return 0;"));
  });

  test("$&, $$ and $1 in new_string are written literally", async () => {
    const { ctx } = await viewedFiles({ "a.ts": "price = 1;\n" });
    expectOk(await edit(ctx, "a.ts", "1", "$& $$ $1 $'"));
    expect(await readText(ctx.storage, "a.ts")).toBe("price = $& $$ $1 $';\n");
  });

  test("over-escaped old_string (literal \\n) is applied when unique, with a hint", async () => {
    const { ctx } = await viewedFiles({ "a.ts": CODE });
    const text = expectOk(await edit(ctx, "a.ts", "}\\nconst q = 3;", "}\\nconst q = 30;"));
    expect(await readText(ctx.storage, "a.ts")).toBe(CODE.replace("q = 3", "q = 30"));
    expect(text).toContain("Note: old_string had no exact match; it matched after reading its literal \\n / \\t");
  });

  test("whitespace-insensitive match: applied when unique, indentation fitted, with a hint", async () => {
    const { ctx } = await viewedFiles({ "a.ts": "if (x) {\n    go();\n}\n" });
    const text = expectOk(await edit(ctx, "a.ts", "if (x) {\n  go();\n}", "if (x) {\n  go();\n  stop();\n}"));
    expect(await readText(ctx.storage, "a.ts")).toBe("if (x) {\n    go();\n    stop();\n}\n");
    expect(text).toContain("when whitespace is ignored");
  });

  test("a lost race is retried on the new content: both changes survive", async () => {
    const memory = createMemoryStorage();
    await seed(memory, { "a.ts": CODE });
    const ctx = makeContext({
      storage: racingStorage(memory, async (path, n) => {
        if (n === 1) await memory.write(path, utf8(`// first!\n${CODE}`));
      }),
    });
    await markViewed(ctx, "a.ts");
    expectOk(await edit(ctx, "a.ts", "const q = 3;", "const q = 4;"));
    expect(await readText(ctx.storage, "a.ts")).toBe(`// first!\n${CODE.replace("q = 3", "q = 4")}`);
  });

  test("a lost race whose target is gone on the new content fails with the current content, writing nothing", async () => {
    const memory = createMemoryStorage();
    await seed(memory, { "a.ts": CODE });
    const ctx = makeContext({
      storage: racingStorage(memory, async (path, n) => {
        if (n === 1) await memory.write(path, utf8(CODE.replace("const q = 3;", "const q = 99;")));
      }),
    });
    await markViewed(ctx, "a.ts");
    const text = expectFail(await edit(ctx, "a.ts", "const q = 3;", "const q = 4;"), "EDIT_NO_MATCH");
    expect(text).toContain("|const q = 99;");
    expect(await readText(ctx.storage, "a.ts")).toBe(CODE.replace("const q = 3;", "const q = 99;"));
  });

  test("a call cancelled by the host (timeout) does not write on its retry", async () => {
    const memory = createMemoryStorage();
    await seed(memory, { "a.ts": CODE });
    const controller = new AbortController();
    const ctx = makeContext({
      signal: controller.signal,
      storage: racingStorage(memory, async (path, n) => {
        if (n === 1) {
          await memory.write(path, utf8(`// racer\n${CODE}`));
          controller.abort();
        }
      }),
    });
    await markViewed(ctx, "a.ts");
    expectFail(await edit(ctx, "a.ts", "const q = 3;", "const q = 4;"), "TIMEOUT");
    expect(await readText(ctx.storage, "a.ts")).toBe(`// racer\n${CODE}`);
  });

  test("losing every race gives up with FS_STALE_VERSION and the re-read remedy", async () => {
    const memory = createMemoryStorage();
    await seed(memory, { "a.ts": CODE });
    let n = 0;
    const ctx = makeContext({
      storage: racingStorage(memory, async (path) => {
        await memory.write(path, utf8(`// churn ${++n}\n${CODE}`));
      }),
      // No time budget beyond the minimum rounds, so the test does not wait it out.
      limits: { casRetryMs: 0 },
    });
    await markViewed(ctx, "a.ts");
    const text = expectFail(await edit(ctx, "a.ts", "const q = 3;", "const q = 4;"), "FS_STALE_VERSION");
    expect(text).toContain(`other writers won the race ${MAX_ATTEMPTS} times in a row`);
    expect(text).toEndWith('— re-read the file, then retry: view {"path": "a.ts"}');
    expect(await readText(ctx.storage, "a.ts")).not.toContain("q = 4");
  });
});

describe("edit: failures say what to do, and write nothing", () => {
  test("several exact matches: EDIT_AMBIGUOUS lists every match by id and the three exits", async () => {
    const { ctx, snapshot } = await viewedFiles({ "a.ts": CODE });
    const before = await snapshot("a.ts");
    const text = expectFail(await edit(ctx, "a.ts", "  return 1;", "  return 2;"), "EDIT_AMBIGUOUS");
    expect(text).toBe(
      [
        "old_string matches 2 places in `a.ts`, and edit replaces only a unique match; nothing was changed. The matches:",
        `  ${idOf(CODE, 2)}|  return 1;`,
        `  ${idOf(CODE, 6)}|  return 1;`,
        "Either:",
        "- add surrounding lines to old_string until it matches only the place you mean;",
        '- pass "replace_all": true to replace all 2; or',
        `- use batch_edit with the id of the one you mean, e.g. {"path": "a.ts", "operations": [{"operation": "replace", "start": "${idOf(CODE, 2)}", "content": "..."}]}.`,
      ].join("\n"),
    );
    await expectUntouched(ctx.storage, "a.ts", before);
  });

  test("a multi-line ambiguous match names each range's last line too", async () => {
    const { ctx } = await viewedFiles({ "a.ts": CODE });
    const text = expectFail(await edit(ctx, "a.ts", "  return 1;\n}\n", "  return 2;\n}\n"), "EDIT_AMBIGUOUS");
    expect(text).toContain("each spans 2 lines");
    expect(text).toContain(`(through ${idOf(CODE, 7)})`);
    expect(text).toContain(`"start": "${idOf(CODE, 2)}", "end": "${idOf(CODE, 3)}"`);
  });

  test("whitespace-insensitive ambiguity offers only more context or batch_edit", async () => {
    const { ctx } = await viewedFiles({ "a.ts": "if (a) {\n    go();\n}\nif (a) {\n\tgo();\n}\n" });
    const text = expectFail(await edit(ctx, "a.ts", "if (a) {\n  go();\n}", "x"), "EDIT_AMBIGUOUS");
    expect(text).toContain("ignoring whitespace it matches 2 places");
    expect(text).not.toContain("replace_all");
    expect(text).toContain("batch_edit");
  });

  test("no match: closest windows with similarity, what differs, ids, and the best window's current text", async () => {
    const { ctx, snapshot } = await viewedFiles({ "a.ts": CODE });
    const before = await snapshot("a.ts");
    const text = expectFail(await edit(ctx, "a.ts", "function b() {\n  return 7;\n}", "x"), "EDIT_NO_MATCH");
    const lines = text.split("\n");
    expect(lines[1]).toBe("Closest places:");
    expect(lines[2]).toMatch(
      new RegExp(
        `^1\\. lines ${idOf(CODE, 5)}–${idOf(CODE, 7)} — \\d+% similar; the text differs, first at line 2 of old_string \\(file line ${idOf(CODE, 6)}\\); first different character: old_string line 2, column 10 has "7" \\(U\\+0037\\) where the file \\(line ${idOf(CODE, 6)}, column 10\\) has "1" \\(U\\+0031\\)$`,
      ),
    );
    expect(text).toContain(
      `Current text of the closest place (lines 5-7), with ids:\n${idOf(CODE, 5)}|function b() {\n${idOf(CODE, 6)}|  return 1;\n${idOf(CODE, 7)}|}`,
    );
    await expectUntouched(ctx.storage, "a.ts", before);
  });

  test("no match and nothing similar: says so and how to find the text", async () => {
    const { ctx } = await viewedFiles({ "a.ts": CODE });
    const text = expectFail(await edit(ctx, "a.ts", "zzzzqqqq", "x"), "EDIT_NO_MATCH");
    expect(text).toContain("Nothing in the file resembles it.");
    expect(text).toContain('view {"path": "a.ts", "content": ');
  });

  test("old_string equal to new_string: EDIT_NO_CHANGE, file untouched", async () => {
    const { ctx, snapshot } = await viewedFiles({ "a.ts": CODE });
    const before = await snapshot("a.ts");
    expect(expectFail(await edit(ctx, "a.ts", "const q = 3;", "const q = 3;"), "EDIT_NO_CHANGE")).toContain("old_string and new_string are identical");
    await expectUntouched(ctx.storage, "a.ts", before);
  });

  test("a replacement that leaves the file as it was: EDIT_NO_CHANGE, file untouched", async () => {
    // old_string matches only with its literal \n read; new_string (real newline) is that same text.
    const { ctx, snapshot } = await viewedFiles({ "a.ts": "a\nb\n" });
    const before = await snapshot("a.ts");
    const text = expectFail(await edit(ctx, "a.ts", "a\\nb", "a\nb"), "EDIT_NO_CHANGE");
    expect(text).toContain("leaves `a.ts` exactly as it is");
    await expectUntouched(ctx.storage, "a.ts", before);
  });
});

describe("edit: line endings, BOM, final newline (bytes)", () => {
  async function edited(before: string | Uint8Array, oldString: string, newString: string): Promise<Uint8Array> {
    const { ctx } = await viewedFiles({ f: before });
    expectOk(await edit(ctx, "f", oldString, newString));
    return bytesOf(ctx.storage, "f");
  }

  test("a CRLF file stays CRLF, including the lines added", async () => {
    expect(await edited("a\r\nb\r\nc\r\n", "b\n", "B1\nB2\n")).toEqual(utf8("a\r\nB1\r\nB2\r\nc\r\n"));
    // old_string sent with CRLF matches too.
    expect(await edited("a\r\nb\r\nc\r\n", "a\r\nb", "x")).toEqual(utf8("x\r\nc\r\n"));
  });

  test("a mixed file stays mixed exactly where untouched", async () => {
    // Dominant CRLF (3 of 4): the LF line stays LF, the replaced line keeps its CRLF, the added one gets CRLF.
    expect(await edited("a\r\nb\nc\r\nd\r\n", "c", "C\nC2")).toEqual(utf8("a\r\nb\nC\r\nC2\r\nd\r\n"));
    // Dominant LF: an added line gets LF, the untouched CRLF line stays CRLF.
    expect(await edited("a\r\nb\nc\nd\n", "b", "B\nB2")).toEqual(utf8("a\r\nB\nB2\nc\nd\n"));
  });

  test("a BOM stays and a missing final newline stays missing", async () => {
    const bom = [0xef, 0xbb, 0xbf];
    expect(await edited(new Uint8Array([...bom, ...utf8("a\nb")]), "b", "c\nd")).toEqual(new Uint8Array([...bom, ...utf8("a\nc\nd")]));
  });
});
