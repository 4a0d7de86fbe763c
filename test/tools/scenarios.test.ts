/**
 * Replays of the failures these tools exist for, through the real `view`:
 * each scenario is what an agent does, what changes under it, and what it
 * must see. Every failure path asserts the stored bytes did not change.
 */
import { describe, expect, test } from "bun:test";
import { resultText } from "../../src/result.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { batchEditTool, editTool, viewTool, writeTool } from "../../src/tools/mod.ts";
import { asSession, makeContext, readText, seed } from "../helpers/tool-context.ts";
import { bytesOf, call, expectFail, expectOk, expectUntouched, utf8 } from "../helpers/tool-mutation.ts";

const view = async (ctx: ToolContext, path: string, extra: Record<string, unknown> = {}) => resultText(await call(viewTool, { path, ...extra }, ctx));
const edit = (ctx: ToolContext, path: string, old_string: string, new_string: string, extra: Record<string, unknown> = {}) =>
  call(editTool, { path, old_string, new_string, ...extra }, ctx);
const batch = (ctx: ToolContext, path: string, operations: Record<string, unknown>[]) => call(batchEditTool, { path, operations }, ctx);
const write = (ctx: ToolContext, path: string, content: string) => call(writeTool, { path, content }, ctx);

/** The id a view (or diff, or error) shows in front of `content`. */
function idFor(output: string, content: string): string {
  for (const line of output.split("\n")) {
    const m = /(\d+:[0-9a-f]{2})\|(.*)$/.exec(line);
    if (m && m[2] === content) return m[1];
  }
  throw new Error(`no id for ${JSON.stringify(content)} in:\n${output}`);
}

async function snapshot(ctx: ToolContext, path: string) {
  const read = await ctx.storage.read(path);
  return { bytes: read.bytes, version: read.version };
}

const SERVICE = [
  "import { db } from './db';",
  "",
  "export async function load(id) {",
  "  const row = await db.get(id);",
  "  return row;",
  "}",
  "",
  "export async function save(row) {",
  "  await db.put(row);",
  "}",
  "",
].join("\n");

describe("scenario: a formatter shifted the lines between view and batch_edit", () => {
  test("the stale id fails with where the line went; a retry with the fresh id lands on the right line", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "svc.ts": SERVICE });
    const seen = await view(ctx, "svc.ts");
    const target = idFor(seen, "  return row;");

    // A formatter on save adds a header and a blank line: everything moves down 3.
    const formatted = `// @ts-check\n// formatted\n\n${SERVICE}`;
    await seed(ctx.storage, { "svc.ts": formatted });
    const before = await snapshot(ctx, "svc.ts");

    const stale = expectFail(await batch(ctx, "svc.ts", [{ operation: "replace", start: target, content: "  return row ?? null;" }]), "EDIT_STALE_LINE_ID");
    await expectUntouched(ctx.storage, "svc.ts", before);
    // The error itself carries the relocation and the current lines with fresh ids.
    const moved = /^ +(\d+:[0-9a-f]{2})\| {2}return row; {3}\(3 lines below\)$/m.exec(stale);
    expect(moved).not.toBeNull();
    expect(stale).toMatch(/view \{"path": "svc\.ts", "start": \d+, "end": \d+\}/);

    // Retry with the id from the error alone, no view in between.
    expectOk(await batch(ctx, "svc.ts", [{ operation: "replace", start: moved![1], content: "  return row ?? null;" }]));
    expect(await readText(ctx.storage, "svc.ts")).toBe(formatted.replace("  return row;", "  return row ?? null;"));
  });
});

describe("scenario: a second agent edits the same file", () => {
  test("a content-proven edit still lands on the right line; a whole-file write of the old version is refused and nothing is lost", async () => {
    const base = makeContext();
    await seed(base.storage, { "svc.ts": SERVICE });
    const alice = asSession(base, "alice");
    const bob = asSession(base, "bob");
    const carol = asSession(base, "carol");
    await view(alice, "svc.ts");
    await view(carol, "svc.ts");

    // Bob inserts a function near the top.
    const bobSaw = await view(bob, "svc.ts");
    expectOk(await batch(bob, "svc.ts", [{ operation: "insert", after: idFor(bobSaw, ""), content: "const cache = new Map();\n" }]));
    const afterBob = await readText(base.storage, "svc.ts");

    // Alice edits by content: lands on save(), not on whatever now sits at save's old line.
    const text = expectOk(await edit(alice, "svc.ts", "  await db.put(row);", "  await db.put(row, { durable: true });"));
    expect(text).toContain("had changed since your last view");
    const afterAlice = await readText(base.storage, "svc.ts");
    expect(afterAlice).toBe(afterBob.replace("  await db.put(row);", "  await db.put(row, { durable: true });"));
    expect(afterAlice).toContain("const cache = new Map();");

    // Alice has still not seen Bob's insert: a whole-file write from her copy would drop it, so it is refused.
    const aliceCopy = SERVICE.replace("  await db.put(row);", "  await db.put(row, { durable: true });").replace("load", "fetch");
    expectFail(await write(alice, "svc.ts", aliceCopy), "FS_STALE_VERSION");
    expect(await readText(base.storage, "svc.ts")).toBe(afterAlice);

    // Carol viewed before both edits and writes the whole file from her copy: refused, both edits kept.
    const before = await snapshot(base, "svc.ts");
    const refused = expectFail(await write(carol, "svc.ts", SERVICE.replace("load", "fetch")), "FS_STALE_VERSION");
    expect(refused).toContain('Nothing was written, so their changes are intact — re-read the file, then retry: view {"path": "svc.ts"}');
    await expectUntouched(base.storage, "svc.ts", before);
  });
});

describe("scenario: the file was deleted after the view", () => {
  test("edit -> FS_NOT_FOUND (absence recorded); again -> FS_NOT_FOUND without stale advice; write -> creates", async () => {
    const memory = createMemoryStorage();
    const ctx = makeContext({ storage: memory });
    await seed(memory, { "gone.ts": SERVICE });
    await view(ctx, "gone.ts");
    await memory.delete("gone.ts");

    const first = expectFail(await edit(ctx, "gone.ts", "return row;", "return null;"), "FS_NOT_FOUND");
    expect(first).toContain("it was deleted after you viewed it");
    expect(await ctx.observations.get("test-session", "gone.ts")).toEqual({ kind: "absent" });

    const second = expectFail(await edit(ctx, "gone.ts", "return row;", "return null;"), "FS_NOT_FOUND");
    expect(second).not.toContain("re-read");
    expect(second).not.toContain("deleted after you viewed it");
    expect(await ctx.storage.stat("gone.ts")).toBeNull();

    expect(expectOk(await write(ctx, "gone.ts", "export {};\n"))).toStartWith("Created `gone.ts`");
    expect(await readText(ctx.storage, "gone.ts")).toBe("export {};\n");
  });
});

describe("scenario: double-escaped newlines in old_string", () => {
  test("the literal \\n is read as a newline when that makes the match unique, and the hint says so", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "svc.ts": SERVICE });
    await view(ctx, "svc.ts");
    const text = expectOk(
      await edit(ctx, "svc.ts", "  const row = await db.get(id);\\n  return row;", "  const row = await db.get(id);\\n  return row ?? null;"),
    );
    expect(text).toContain("literal \\n / \\t");
    expect(await readText(ctx.storage, "svc.ts")).toBe(SERVICE.replace("  return row;", "  return row ?? null;"));
  });
});

describe("scenario: CRLF and mixed files through all three tools (bytes)", () => {
  test("a CRLF file stays CRLF after edit, batch_edit and write", async () => {
    const ctx = makeContext();
    const crlf = SERVICE.replaceAll("\n", "\r\n");
    await seed(ctx.storage, { "win.ts": crlf });
    const seen = await view(ctx, "win.ts");

    expectOk(await edit(ctx, "win.ts", "  return row;", "  if (!row) throw new Error('missing');\n  return row;"));
    let expected = crlf.replace("  return row;\r\n", "  if (!row) throw new Error('missing');\r\n  return row;\r\n");
    expect(await bytesOf(ctx.storage, "win.ts")).toEqual(utf8(expected));

    expectOk(
      await batch(ctx, "win.ts", [{ operation: "insert", after: idFor(seen, "import { db } from './db';"), content: "import { log } from './log';\n" }]),
    );
    expected = expected.replace("'./db';\r\n", "'./db';\r\nimport { log } from './log';\r\n");
    expect(await bytesOf(ctx.storage, "win.ts")).toEqual(utf8(expected));

    const lf = expected.replaceAll("\r\n", "\n").replace("export async function save", "export async function store");
    expectOk(await write(ctx, "win.ts", lf));
    expect(await bytesOf(ctx.storage, "win.ts")).toEqual(utf8(lf.replaceAll("\n", "\r\n")));
  });

  test("a mixed file stays mixed exactly where untouched", async () => {
    const ctx = makeContext();
    const mixed = "one\r\ntwo\nthree\r\nfour\nfive\r\n";
    await seed(ctx.storage, { "mixed.txt": mixed });
    const seen = await view(ctx, "mixed.txt");
    expectOk(await edit(ctx, "mixed.txt", "two", "TWO"));
    expect(await bytesOf(ctx.storage, "mixed.txt")).toEqual(utf8("one\r\nTWO\nthree\r\nfour\nfive\r\n"));
    expectOk(await batch(ctx, "mixed.txt", [{ operation: "replace", start: idFor(seen, "four"), content: "FOUR\nFOUR.5" }]));
    // dominant is CRLF (3 of 5): FOUR keeps line 4's LF, the added line gets CRLF.
    expect(await bytesOf(ctx.storage, "mixed.txt")).toEqual(utf8("one\r\nTWO\nthree\r\nFOUR\nFOUR.5\r\nfive\r\n"));
    expectOk(await write(ctx, "mixed.txt", "one\nTWO\nthree\nFOUR\nFOUR.5\nfive\nsix\n"));
    expect(await bytesOf(ctx.storage, "mixed.txt")).toEqual(utf8("one\r\nTWO\nthree\r\nFOUR\nFOUR.5\r\nfive\r\nsix\r\n"));
  });
});

describe("scenario: BOM and a missing final newline survive edits", () => {
  test("edit and batch_edit keep both", async () => {
    const ctx = makeContext();
    const bom = [0xef, 0xbb, 0xbf];
    await seed(ctx.storage, { "bom.cs": new Uint8Array([...bom, ...utf8("class A {\n  int x;\n}")]) });
    const seen = await view(ctx, "bom.cs");
    expectOk(await edit(ctx, "bom.cs", "int x;", "int y;"));
    expect(await bytesOf(ctx.storage, "bom.cs")).toEqual(new Uint8Array([...bom, ...utf8("class A {\n  int y;\n}")]));
    expectOk(await batch(ctx, "bom.cs", [{ operation: "insert", after: -1, content: "// end\n" }]));
    expect(await bytesOf(ctx.storage, "bom.cs")).toEqual(new Uint8Array([...bom, ...utf8("class A {\n  int y;\n}\n// end")]));
    expect(seen).toContain("|class A {");
  });
});

describe("scenario: duplicates in a large repetitive file", () => {
  test("edit refuses with every match's id; batch_edit with one of those ids edits exactly that one", async () => {
    const ctx = makeContext();
    const blocks = `${Array.from({ length: 60 }, (_, i) => `case ${i}:\n  handle();\n  break;`).join("\n")}\n`;
    await seed(ctx.storage, { "big.js": blocks });
    await view(ctx, "big.js", { start: 1, end: 10 });
    const before = await snapshot(ctx, "big.js");

    const ambiguous = expectFail(await edit(ctx, "big.js", "  handle();", "  handleFast();"), "EDIT_AMBIGUOUS");
    await expectUntouched(ctx.storage, "big.js", before);
    const listed = [...ambiguous.matchAll(/^ {2}(\d+:[0-9a-f]{2})\| {2}handle\(\);$/gm)].map((m) => m[1]);
    expect(listed).toHaveLength(50); // the listing cap; the rest are counted
    expect(ambiguous).toContain("… and 10 more not listed");
    expect(ambiguous).toContain('"replace_all": true to replace all 60');

    // The 42nd block's handle() is line 3*41+2 = 125: pick it from the list and edit by id.
    const chosen = listed.find((id) => id.startsWith("125:"))!;
    expectOk(await batch(ctx, "big.js", [{ operation: "replace", start: chosen, content: "  handleFast();" }]));
    const lines = (await readText(ctx.storage, "big.js")).split("\n");
    expect(lines.filter((l) => l === "  handleFast();")).toHaveLength(1);
    expect(lines[124]).toBe("  handleFast();");
    expect(lines[123]).toBe("case 41:");
  });
});

describe("scenario: replacement text with $ patterns is literal", () => {
  test("$& and $$ survive edit, batch_edit and write unexpanded", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "re.js": "const a = 1;\nconst b = 2;\n" });
    const seen = await view(ctx, "re.js");
    expectOk(await edit(ctx, "re.js", "const a = 1;", "const a = s.replace(/x/, '$&$$');"));
    expectOk(await batch(ctx, "re.js", [{ operation: "replace", start: idFor(seen, "const b = 2;"), content: "const b = '$1$`';" }]));
    expect(await readText(ctx.storage, "re.js")).toBe("const a = s.replace(/x/, '$&$$');\nconst b = '$1$`';\n");
    expectOk(await write(ctx, "re.js", "'$$'\n"));
    expect(await readText(ctx.storage, "re.js")).toBe("'$$'\n");
  });
});

describe("scenario: a no-op edit is not reported as success", () => {
  test("EDIT_NO_CHANGE and the file untouched, for edit and batch_edit", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "svc.ts": SERVICE });
    const seen = await view(ctx, "svc.ts");
    const before = await snapshot(ctx, "svc.ts");
    expectFail(await edit(ctx, "svc.ts", "return row;", "return row;"), "EDIT_NO_CHANGE");
    expectFail(await batch(ctx, "svc.ts", [{ operation: "replace", start: idFor(seen, "}"), content: "}" }]), "EDIT_NO_CHANGE");
    await expectUntouched(ctx.storage, "svc.ts", before);
  });
});
