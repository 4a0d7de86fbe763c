import { describe, expect, test } from "bun:test";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { editTool } from "../../src/tools/edit/run.ts";
import { MAX_ATTEMPTS } from "../../src/tools/support/mutate.ts";
import { writeTool } from "../../src/tools/write/run.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { makeContext, readText, seed } from "../helpers/tool-context.ts";
import { bytesOf, call, expectFail, expectFreshIds, expectOk, expectUntouched, idOf, markViewed, racingStorage, utf8 } from "../helpers/tool-mutation.ts";
import { firstCall, suggestedCalls } from "../helpers/suggested-calls.ts";

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
  test("an empty old_string on a file with content is INVALID_ARGUMENT before anything else, pointing to write and batch_edit insert", async () => {
    const ctx = makeContext(); // not even viewed: the argument is wrong whatever the file
    await seed(ctx.storage, { "a.ts": CODE });
    const text = expectFail(await edit(ctx, "a.ts", "", "x"), "INVALID_ARGUMENT");
    expect(text).toStartWith("old_string is empty");
    expect(text).toContain('use write {"path": "a.ts", "content": "..."}');
    expect(text).toContain('"operation": "insert"');
    expect(await readText(ctx.storage, "a.ts")).toBe(CODE);
  });

  test("an empty old_string on a missing file offers the write of new_string, ready to send, and it creates exactly that", async () => {
    const ctx = makeContext();
    const content = 'print("héllo \\t \u{1F680}")\n\tindented\r\nlast "quoted" line';
    const text = expectFail(await edit(ctx, "src/new.py", "", content), "INVALID_ARGUMENT");
    expect(text).toBe(
      "old_string is empty: edit replaces existing text, so old_string must be the exact text to replace. " +
        `\`src/new.py\` does not exist; to create it with your new_string as its content, send:\nwrite ${JSON.stringify({ path: "src/new.py", content })}`,
    );
    expect(await ctx.storage.stat("src/new.py")).toBeNull();
    const offered = firstCall(text, "write");
    expect(offered).toEqual({ path: "src/new.py", content });
    expectOk(await call(writeTool, offered, ctx));
    expect(await bytesOf(ctx.storage, "src/new.py")).toEqual(utf8(content));
  });

  test("an empty old_string on an empty file offers the same write; sent after a view, it fills the file", async () => {
    const { ctx } = await viewedFiles({ "empty.txt": "" });
    const text = expectFail(await edit(ctx, "empty.txt", "", "one\ntwo\n"), "INVALID_ARGUMENT");
    expect(text).toContain('`empty.txt` is empty; to fill it with your new_string as its content, send:\nwrite {"path":"empty.txt","content":"one\\ntwo\\n"}');
    expectOk(await call(writeTool, firstCall(text, "write"), ctx));
    expect(await readText(ctx.storage, "empty.txt")).toBe("one\ntwo\n");
  });

  test("an empty old_string with a huge new_string on a missing file: the write is described, never offered with a placeholder", async () => {
    const ctx = makeContext();
    const big = "x = 1\n".repeat(3000);
    const text = expectFail(await edit(ctx, "big.py", "", big), "INVALID_ARGUMENT");
    expect(text).toEndWith(`send write {"path": "big.py", "content": <your new_string, ${big.length} characters>}.`);
    expect(suggestedCalls(text).filter((c) => c.tool === "write")).toEqual([]);
    expect(text.length).toBeLessThan(1000);
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
  test("several exact matches: EDIT_AMBIGUOUS lists every match by id and the three exits, each place's edit ready to send", async () => {
    const { ctx, snapshot } = await viewedFiles({ "a.ts": CODE });
    const before = await snapshot("a.ts");
    const text = expectFail(await edit(ctx, "a.ts", "  return 1;", "  return 2;"), "EDIT_AMBIGUOUS");
    expect(text).toBe(
      [
        "old_string matches 2 places in `a.ts`, and edit replaces only a unique match; nothing was changed. The matches:",
        `  ${idOf(CODE, 2)}|  return 1;`,
        `  ${idOf(CODE, 6)}|  return 1;`,
        "Either:",
        "- send the edit of the place you mean, with old_string widened by the lines around it until it matches only there (ready to send):",
        '  line 2: edit {"path":"a.ts","old_string":"function a() {\\n  return 1;\\n","new_string":"function a() {\\n  return 2;\\n"}',
        '  line 6: edit {"path":"a.ts","old_string":"function b() {\\n  return 1;\\n","new_string":"function b() {\\n  return 2;\\n"}',
        '- pass "replace_all": true to replace all 2; or',
        `- replace the lines of the one you mean by id with batch_edit: a "replace" operation with "start" its id (for line 2: "start": "${idOf(CODE, 2)}") and "content" the whole new text of that line.`,
      ].join("\n"),
    );
    expect(text).not.toContain('"..."');
    await expectUntouched(ctx.storage, "a.ts", before);
    // Sent as it is, the call for line 6 edits line 6 and nothing else.
    expectOk(await call(editTool, suggestedCalls(text)[1].args, ctx));
    expect(await readText(ctx.storage, "a.ts")).toBe(CODE.replace("function b() {\n  return 1;", "function b() {\n  return 2;"));
  });

  test("a multi-line ambiguous match names each range's last line too, and its ready call replaces that range", async () => {
    const { ctx } = await viewedFiles({ "a.ts": CODE });
    const text = expectFail(await edit(ctx, "a.ts", "  return 1;\n}\n", "  return 2;\n}\n"), "EDIT_AMBIGUOUS");
    expect(text).toContain("each spans 2 lines");
    expect(text).toContain(`(through ${idOf(CODE, 7)})`);
    expect(text).toContain(
      `"start" and "end" its first and last ids (for line 2: "start": "${idOf(CODE, 2)}", "end": "${idOf(CODE, 3)}") and "content" the whole new text of those lines`,
    );
    expectOk(await call(editTool, suggestedCalls(text)[0].args, ctx));
    expect(await readText(ctx.storage, "a.ts")).toBe(CODE.replace("  return 1;", "  return 2;"));
  });

  test("an ambiguous old_string inside lines: the ready calls carry whole lines, and the one sent changes only its place", async () => {
    const file = "let a = f(1, 2);\nlet b = f(1, 2);\n";
    const { ctx, snapshot } = await viewedFiles({ "a.js": file });
    const before = await snapshot("a.js");
    const text = expectFail(await edit(ctx, "a.js", "f(1, 2)", "g(1)"), "EDIT_AMBIGUOUS");
    await expectUntouched(ctx.storage, "a.js", before);
    const calls = suggestedCalls(text);
    expect(calls.map((c) => c.args)).toEqual([
      { path: "a.js", old_string: "let a = f(1, 2);\n", new_string: "let a = g(1);\n" },
      { path: "a.js", old_string: "let b = f(1, 2);\n", new_string: "let b = g(1);\n" },
    ]);
    expectOk(await call(editTool, calls[1].args, ctx));
    expect(await readText(ctx.storage, "a.js")).toBe("let a = f(1, 2);\nlet b = g(1);\n");
  });

  test("a ready call for the last line of a CRLF file without a final newline keeps both", async () => {
    const file = "a = 1\r\nb = 1\r\na = 1\r\nb = 1";
    const { ctx } = await viewedFiles({ "c.py": file });
    const text = expectFail(await edit(ctx, "c.py", "b = 1", "b = 2"), "EDIT_AMBIGUOUS");
    const calls = suggestedCalls(text);
    expect(calls[1].args).toEqual({ path: "c.py", old_string: "b = 1\na = 1\nb = 1\n", new_string: "b = 1\na = 1\nb = 2\n" });
    expectOk(await call(editTool, calls[1].args, ctx));
    expect(await bytesOf(ctx.storage, "c.py")).toEqual(utf8("a = 1\r\nb = 1\r\na = 1\r\nb = 2"));
  });

  test("repeated identical lines: each ready call is widened until the ladder itself picks that place", async () => {
    const file = "x\nx\nx\nx\n";
    const { ctx } = await viewedFiles({ "r.txt": file });
    const text = expectFail(await edit(ctx, "r.txt", "x\nx", "y\ny"), "EDIT_AMBIGUOUS");
    // Three places counting the overlapping ones (lines 1-2, 2-3, 3-4), each with its own call.
    const calls = suggestedCalls(text);
    expect(calls).toHaveLength(3);
    expectOk(await call(editTool, calls[2].args, ctx));
    expect(await readText(ctx.storage, "r.txt")).toBe("x\nx\ny\ny\n");
  });

  test("over-escaped and ambiguous: the ready calls carry the escapes read, and land", async () => {
    const file = "a();\nb();\nc();\na();\nb();\n";
    const { ctx } = await viewedFiles({ "e.js": file });
    const text = expectFail(await edit(ctx, "e.js", "a();\\nb();", "a();\\nd();"), "EDIT_AMBIGUOUS");
    expect(text).toContain("(after reading its literal \\n / \\t as newlines / tabs)");
    const calls = suggestedCalls(text);
    expect(calls[1].args).toEqual({ path: "e.js", old_string: "c();\na();\nb();\n", new_string: "c();\na();\nd();\n" });
    expectOk(await call(editTool, calls[1].args, ctx));
    expect(await readText(ctx.storage, "e.js")).toBe("a();\nb();\nc();\na();\nd();\n");
  });

  test("over-escaped, ambiguous, and an escape inside a quoted literal: no reading is sure, so no call is offered ready", async () => {
    const file = "a();\nb();\na();\nb();\n";
    const { ctx } = await viewedFiles({ "e.js": file });
    const text = expectFail(await edit(ctx, "e.js", "a();\\nb();", 'a();\\nlog("\\t");'), "EDIT_AMBIGUOUS");
    expect(suggestedCalls(text)).toEqual([]);
    expect(text).toContain("- add surrounding lines to old_string until it matches only the place you mean;");
  });

  test("whitespace-insensitive ambiguity: no replace_all; each place's call is fitted to its own indentation and lands", async () => {
    const file = "if (a) {\n    go();\n}\nif (a) {\n\tgo();\n}\n";
    const { ctx } = await viewedFiles({ "a.ts": file });
    const text = expectFail(await edit(ctx, "a.ts", "if (a) {\n  go();\n}", "if (a) {\n  go();\n  stop();\n}"), "EDIT_AMBIGUOUS");
    expect(text).toContain("ignoring whitespace it matches 2 places");
    expect(text).not.toContain("replace_all");
    expect(text).toContain("batch_edit");
    const calls = suggestedCalls(text);
    expect(calls.map((c) => c.args.new_string)).toEqual(["if (a) {\n    go();\n    stop();\n}\n", "if (a) {\n\tgo();\n\tstop();\n}\n"]);
    expectOk(await call(editTool, calls[1].args, ctx));
    expect(await readText(ctx.storage, "a.ts")).toBe("if (a) {\n    go();\n}\nif (a) {\n\tgo();\n\tstop();\n}\n");
  });

  test("many matches: ready calls for the first few, the rest named by id", async () => {
    const blocks = `${Array.from({ length: 12 }, (_, i) => `case ${i}:\n  handle();`).join("\n")}\n`;
    const { ctx } = await viewedFiles({ "big.js": blocks });
    const text = expectFail(await edit(ctx, "big.js", "  handle();", "  handleFast();"), "EDIT_AMBIGUOUS");
    expect(suggestedCalls(text)).toHaveLength(5);
    expect(text).toContain("; for the other 7, add surrounding lines to old_string the same way):");
    expectOk(await call(editTool, suggestedCalls(text)[4].args, ctx));
    expect(await readText(ctx.storage, "big.js")).toBe(blocks.replace("case 4:\n  handle();", "case 4:\n  handleFast();"));
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

describe("edit: a pasted new_string that cannot be cleaned with certainty", () => {
  test("a shortened row naming no current line gets no ready call, and nothing is written", async () => {
    const { ctx, snapshot } = await viewedFiles({ "a.ts": CODE });
    const before = await snapshot("a.ts");
    const newString = "1:00|const q = 'long'… [line truncated: 900 chars total]\n2:00|const r = 4;";
    const text = expectFail(await edit(ctx, "a.ts", "const q = 3;", newString), "INVALID_ARGUMENT");
    expect(text).toContain("no cleaned call is offered");
    expect(suggestedCalls(text).filter((c) => c.tool === "edit")).toEqual([]);
    await expectUntouched(ctx.storage, "a.ts", before);
  });
});
