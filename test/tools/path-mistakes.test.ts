/**
 * Paths a model sends that do not mean what they say, end to end through the
 * tools on local and memory storage: a `file://` URL, a leading `~` or
 * `$VAR`, backslashes, and a name spelled with another Unicode
 * normalisation. Every refusal must leave the disk as it was, and the call
 * it offers, parsed from its text and sent as it stands, must work.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateArgs } from "../../src/pipeline/validate.ts";
import { resultText, type ToolResult } from "../../src/result.ts";
import { createLocalStorage } from "../../src/storage/local/mod.ts";
import { batchEditTool } from "../../src/tools/batch-edit/run.ts";
import { editTool } from "../../src/tools/edit/run.ts";
import type { ToolContext, ToolDef } from "../../src/tools/types.ts";
import { viewTool } from "../../src/tools/view/run.ts";
import { writeTool } from "../../src/tools/write/run.ts";
import { firstCall, suggestedCalls } from "../helpers/suggested-calls.ts";
import { makeContext, readText, seed } from "../helpers/tool-context.ts";

const TOOLS: Record<string, ToolDef> = { view: viewTool, write: writeTool, edit: editTool, batch_edit: batchEditTool } as never;

/** Validate like the pipeline, then run. */
async function send(ctx: ToolContext, tool: string, args: Record<string, unknown>): Promise<{ result: ToolResult; text: string }> {
  const def = TOOLS[tool];
  const checked = validateArgs(def, args);
  const result = checked.ok ? await def.run(checked.value as never, ctx) : checked.result;
  return { result, text: resultText(result) };
}

/** Send the one call of `tool` the text offers, exactly as written there. */
function follow(ctx: ToolContext, text: string, tool: string) {
  return send(ctx, tool, firstCall(text, tool));
}

/** Every entry under `dir` (relative path -> file bytes as text, or "/" for a directory). */
function tree(dir: string, prefix = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    const rel = prefix + name;
    if (statSync(full).isDirectory()) {
      out[`${rel}/`] = "/";
      Object.assign(out, tree(full, `${rel}/`));
    } else out[rel] = readFileSync(full, "latin1");
  }
  return out;
}

const NFC = "r\u00e9sum\u00e9";
const NFD = "re\u0301sume\u0301";

let base: string;
let counter = 0;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "tw-path-mistakes-"));
});
afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

/** A fresh local workspace holding `files` (parents made), and a context over it. */
async function localWorkspace(files: Record<string, string> = {}): Promise<{ root: string; ctx: ToolContext }> {
  const root = join(base, `ws${++counter}`);
  mkdirSync(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return { root, ctx: makeContext({ storage: await createLocalStorage(root) }) };
}

describe("file:// URLs", () => {
  test("write to a URL inside the root writes that file, and no file: directory appears", async () => {
    const { root, ctx } = await localWorkspace();
    const out = await send(ctx, "write", { path: `file://${root}/n2.txt`, content: "two\n" });
    expect(out.result.isError).toBe(false);
    expect(out.text).toBe("Created `n2.txt` (1 line, 4 bytes).");
    expect(tree(root)).toEqual({ "n2.txt": "two\n" });
  });

  test("file://localhost and %-escapes name the same file", async () => {
    const { root, ctx } = await localWorkspace({ "my notes.md": "a\n" });
    const out = await send(ctx, "view", { path: `file://localhost${root}/my%20notes.md` });
    expect(out.text).toContain("[my notes.md: 1 line]");
  });

  test("a URL outside the root is refused like the path, nothing written, and the view it offers works", async () => {
    const { root, ctx } = await localWorkspace({ "a.txt": "a\n" });
    const before = tree(root);
    const out = await send(ctx, "write", { path: "file:///tmp/elsewhere/n.txt", content: "x" });
    expect(out.result.code).toBe("FS_INVALID_PATH");
    expect(out.text).toContain(`names \`/tmp/elsewhere/n.txt\`, which is absolute and outside the workspace root \`${root}\``);
    expect(tree(root)).toEqual(before);
    expect((await follow(ctx, out.text, "view")).result.isError).toBe(false);
  });

  test("this server's resource URI form (file:///{workspace path}) is refused on local storage, offering the path it means", async () => {
    const { root, ctx } = await localWorkspace({ "src/a.ts": "one\n" });
    const before = tree(root);
    const out = await send(ctx, "view", { path: "file:///src/a.ts", start: 1 });
    expect(out.result.code).toBe("FS_INVALID_PATH");
    const calls = suggestedCalls(out.text).filter((c) => c.args.path !== ".");
    expect(calls).toEqual([{ tool: "view", args: { path: "src/a.ts", start: 1 } }]);
    const followed = await send(ctx, "view", calls[0].args);
    expect(followed.text).toContain("[src/a.ts: 1 line]");
    expect(tree(root)).toEqual(before);
  });

  test("memory storage: a URL is read as its path, and a leading / is the workspace root", async () => {
    const ctx = makeContext();
    const out = await send(ctx, "write", { path: "file:///notes/n.txt", content: "n\n" });
    expect(out.text).toBe("Created `notes/n.txt` (1 line, 2 bytes).");
    expect(await readText(ctx.storage, "notes/n.txt")).toBe("n\n");
  });
});

describe("a leading ~ or $VAR", () => {
  for (const [path, rest] of [
    ["~/notes.txt", "notes.txt"],
    ["$HOME/n3.txt", "n3.txt"],
    ["${HOME}/sub/n4.txt", "sub/n4.txt"],
  ] as const) {
    test(`write ${path}: refused with nothing created; the offered write creates ${rest}`, async () => {
      const { root, ctx } = await localWorkspace({ "keep.txt": "k\n" });
      const before = tree(root);
      const out = await send(ctx, "write", { path, content: "remember\n" });
      expect(out.result.code).toBe("FS_INVALID_PATH");
      expect(out.text).toContain("Paths are relative to the workspace root");
      expect(tree(root)).toEqual(before);
      expect(firstCall(out.text, "write")).toEqual({ path: rest, content: "remember\n" });
      const followed = await follow(ctx, out.text, "write");
      expect(followed.result.isError).toBe(false);
      expect(tree(root)).toEqual({ ...before, ...(rest.includes("/") ? { "sub/": "/" } : {}), [rest]: "remember\n" });
    });
  }

  test("edit and batch_edit refuse too, and their offered calls edit the file meant", async () => {
    const { root, ctx } = await localWorkspace({ "a.txt": "alpha\nbeta\n" });
    await send(ctx, "view", { path: "a.txt" });
    const edit = await send(ctx, "edit", { path: "~/a.txt", old_string: "beta", new_string: "gamma" });
    expect(edit.result.code).toBe("FS_INVALID_PATH");
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("alpha\nbeta\n");
    expect((await follow(ctx, edit.text, "edit")).result.isError).toBe(false);
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("alpha\ngamma\n");

    const batch = await send(ctx, "batch_edit", { path: "$PWD/a.txt", operations: [{ operation: "insert", after: 0, content: "zero" }] });
    expect(batch.result.code).toBe("FS_INVALID_PATH");
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("alpha\ngamma\n");
    expect((await follow(ctx, batch.text, "batch_edit")).result.isError).toBe(false);
    expect(readFileSync(join(root, "a.txt"), "utf8")).toBe("zero\nalpha\ngamma\n");
    expect(tree(root)).toEqual({ "a.txt": "zero\nalpha\ngamma\n" });
  });

  test("a path that is only the prefix is refused without a guessed name", async () => {
    const { root, ctx } = await localWorkspace();
    const out = await send(ctx, "write", { path: "~", content: "x" });
    expect(out.result.code).toBe("FS_INVALID_PATH");
    expect(suggestedCalls(out.text)).toEqual([{ tool: "view", args: { path: "." } }]);
    expect(tree(root)).toEqual({});
  });

  test("when the workspace really has a ~ or $HOME entry, the path is that entry, as before", async () => {
    const { root, ctx } = await localWorkspace({ "~/old.txt": "o\n", "$HOME/h.txt": "h\n" });
    expect((await send(ctx, "write", { path: "~/notes.txt", content: "n\n" })).result.isError).toBe(false);
    expect((await send(ctx, "write", { path: "$HOME/n.txt", content: "m\n" })).result.isError).toBe(false);
    expect(readFileSync(join(root, "~/notes.txt"), "utf8")).toBe("n\n");
    expect(readFileSync(join(root, "$HOME/n.txt"), "utf8")).toBe("m\n");
    expect((await send(ctx, "view", { path: "~/old.txt" })).text).toContain("[~/old.txt: 1 line]");
  });

  test("view: not found, saying the prefix was not expanded, never offering write; the view without it works", async () => {
    const { ctx } = await localWorkspace({ "src/a.ts": "a\n" });
    const out = await send(ctx, "view", { path: "~/src/a.ts", start: 1 });
    expect(out.result.code).toBe("FS_NOT_FOUND");
    expect(out.text).not.toContain("`write` can create it");
    expect(out.text).toContain("toolwarden expands nothing in a path");
    expect(firstCall(out.text, "view")).toEqual({ path: "src/a.ts", start: 1 });
    expect((await follow(ctx, out.text, "view")).text).toContain("[src/a.ts: 1 line]");

    const neither = await send(ctx, "view", { path: "$HOME/nothing.txt" });
    expect(neither.result.code).toBe("FS_NOT_FOUND");
    expect(neither.text).not.toContain("can create it");
    expect(neither.text).toContain("`nothing.txt`, which does not exist either");
    expect(suggestedCalls(neither.text)).toEqual([{ tool: "view", args: { path: "." } }]);
  });

  test("view of a missing path under a ~ that exists is the plain not-found answer", async () => {
    const { ctx } = await localWorkspace({ "~/old.txt": "o\n" });
    const out = await send(ctx, "view", { path: "~/new.txt" });
    expect(out.text).toContain("`write` can create it");
  });
});

describe("backslashes", () => {
  test("view: refused with the call with forward slashes, which works", async () => {
    const { ctx } = await localWorkspace({ "src/scopes.ts": "s\n" });
    const out = await send(ctx, "view", { path: "src\\scopes.ts" });
    expect(out.result.code).toBe("FS_INVALID_PATH");
    expect(firstCall(out.text, "view")).toEqual({ path: "src/scopes.ts" });
    expect((await follow(ctx, out.text, "view")).text).toContain("[src/scopes.ts: 1 line]");
  });

  test("write: nothing created; the offered write creates the file with the bytes sent", async () => {
    const { root, ctx } = await localWorkspace({ "src/scopes.ts": "s\n" });
    const before = tree(root);
    const out = await send(ctx, "write", { path: "src\\new\\x.ts", content: "x\r\ny\n" });
    expect(out.result.code).toBe("FS_INVALID_PATH");
    expect(tree(root)).toEqual(before);
    expect((await follow(ctx, out.text, "write")).result.isError).toBe(false);
    expect(readFileSync(join(root, "src/new/x.ts"), "latin1")).toBe("x\r\ny\n");
  });

  test("the offered call has the other corrections too: a missing ~ dropped, a name respelled as on disk", async () => {
    const { ctx } = await localWorkspace({ [`${NFD}/cv.md`]: "cv\n" });
    const out = await send(ctx, "view", { path: `~\\${NFC}\\cv.md` });
    expect(out.result.code).toBe("FS_INVALID_PATH");
    expect(firstCall(out.text, "view")).toEqual({ path: `${NFD}/cv.md` });
    expect((await follow(ctx, out.text, "view")).text).toContain("1:");
  });
});

describe("Unicode normalisation", () => {
  test("view of the NFC spelling of an NFD directory: names it, says why, and the view it offers (escaped) works", async () => {
    const { ctx } = await localWorkspace({ [`${NFD}/cv.md`]: "curriculum\n" });
    const out = await send(ctx, "view", { path: `${NFC}/cv.md` });
    expect(out.result.code).toBe("FS_NOT_FOUND");
    expect(out.text).not.toContain("can create it");
    expect(out.text).toContain("only by Unicode normalisation");
    expect(out.text).toContain('view {"path":"re\\u0301sume\\u0301/cv.md"}');
    const followed = await follow(ctx, out.text, "view");
    expect(followed.result.isError).toBe(false);
    expect(followed.text).toContain("|curriculum");
  });

  test("the reverse (NFD asked, NFC on disk) says the names differ by normalisation too", async () => {
    const { ctx } = await localWorkspace({ "caf\u00e9dir/a.txt": "a\n" });
    const out = await send(ctx, "view", { path: "cafe\u0301dir" });
    expect(out.result.code).toBe("FS_NOT_FOUND");
    expect(out.text).toContain("only by Unicode normalisation");
    expect(out.text).not.toContain("Similar name");
    expect(firstCall(out.text, "view")).toEqual({ path: "caf\u00e9dir" });
    expect((await follow(ctx, out.text, "view")).text).toContain("a.txt");
  });

  test("every segment is respelled: an NFD file in an NFD directory, both asked for in NFC", async () => {
    const { ctx } = await localWorkspace({ [`${NFD}/cafe\u0301.md`]: "c\n" });
    const out = await send(ctx, "view", { path: `${NFC}/caf\u00e9.md` });
    expect(firstCall(out.text, "view")).toEqual({ path: `${NFD}/cafe\u0301.md` });
    expect((await follow(ctx, out.text, "view")).text).toContain("|c");
  });

  test("write refuses to create a look-alike directory or file; the offered write lands inside the existing one", async () => {
    const { root, ctx } = await localWorkspace({ [`${NFD}/cv.md`]: "cv\n" });
    const before = tree(root);
    const out = await send(ctx, "write", { path: `${NFC}/letter.md`, content: "dear\n" });
    expect(out.result.code).toBe("FS_INVALID_PATH");
    expect(out.text).toContain("does not create a second entry that looks the same");
    expect(tree(root)).toEqual(before);
    expect(firstCall(out.text, "write")).toEqual({ path: `${NFD}/letter.md`, content: "dear\n" });
    expect((await follow(ctx, out.text, "write")).result.isError).toBe(false);
    expect(tree(root)).toEqual({ ...before, [`${NFD}/letter.md`]: "dear\n" });
    expect(readdirSync(root)).toEqual([NFD]);
  });

  test("write of an NFC twin of an existing file: refused; the view then the write it offers replace that file", async () => {
    const { root, ctx } = await localWorkspace({ "cafe\u0301.txt": "old\n" });
    const before = tree(root);
    const out = await send(ctx, "write", { path: "caf\u00e9.txt", content: "new\n" });
    expect(out.result.code).toBe("FS_INVALID_PATH");
    expect(tree(root)).toEqual(before);
    expect((await follow(ctx, out.text, "view")).result.isError).toBe(false);
    expect((await follow(ctx, out.text, "write")).result.isError).toBe(false);
    expect(tree(root)).toEqual({ "cafe\u0301.txt": "new\n" });
  });

  test("edit of the NFC spelling: refused, and the offered edit changes the file on disk", async () => {
    const { root, ctx } = await localWorkspace({ [`${NFD}/cv.md`]: "cv\n" });
    await send(ctx, "view", { path: `${NFD}/cv.md` });
    const out = await send(ctx, "edit", { path: `${NFC}/cv.md`, old_string: "cv", new_string: "CV" });
    expect(out.result.code).toBe("FS_INVALID_PATH");
    expect((await follow(ctx, out.text, "edit")).result.isError).toBe(false);
    expect(tree(root)).toEqual({ [`${NFD}/`]: "/", [`${NFD}/cv.md`]: "CV\n" });
  });

  test("two twins: write refuses, names both spellings, and offers no guess", async () => {
    const { root, ctx } = await localWorkspace({ [`${NFD}/a`]: "1", [`${NFC}/b`]: "2" });
    const before = tree(root);
    const mixed = "r\u00e9sume\u0301";
    const out = await send(ctx, "write", { path: `${mixed}/c`, content: "3" });
    expect(out.result.code).toBe("FS_INVALID_PATH");
    expect(out.text).toContain('"re\\u0301sume\\u0301"');
    expect(out.text).toContain('"r\\u00e9sum\\u00e9"');
    expect(suggestedCalls(out.text).filter((c) => c.tool === "write")).toEqual([]);
    expect(tree(root)).toEqual(before);
  });

  test("a new non-ASCII name with no twin is created as before", async () => {
    const { root, ctx } = await localWorkspace({ "caf\u00e9.txt": "x" });
    expect((await send(ctx, "write", { path: `${NFC}/cv.md`, content: "cv\n" })).result.isError).toBe(false);
    expect(tree(root)).toEqual({ "caf\u00e9.txt": "x", [`${NFC}/`]: "/", [`${NFC}/cv.md`]: "cv\n" });
  });

  test("memory storage keeps the two spellings apart as well", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { [`${NFD}/cv.md`]: "cv\n" });
    const out = await send(ctx, "write", { path: `${NFC}/cv2.md`, content: "x" });
    expect(out.result.code).toBe("FS_INVALID_PATH");
    expect((await ctx.storage.list("")).entries.map((e) => e.name)).toEqual([NFD]);
    expect((await follow(ctx, out.text, "write")).result.isError).toBe(false);
    expect(await readText(ctx.storage, `${NFD}/cv2.md`)).toBe("x");
    const viewed = await send(ctx, "view", { path: `${NFC}/cv.md` });
    expect((await follow(ctx, viewed.text, "view")).text).toContain("|cv");
  });
});

describe("docs/tools.md examples of these refusals", () => {
  const docs = readFileSync(new URL("../../docs/tools.md", import.meta.url), "utf8");
  const blocks = [...docs.matchAll(/^```\n([\s\S]*?)\n```$/gm)].map((m) => m[1]);
  const block = (start: string) => {
    const found = blocks.filter((b) => b.startsWith(start));
    if (found.length !== 1) throw new Error(`${found.length} blocks start with ${start}`);
    return found[0];
  };

  test("the ~ refusal", async () => {
    const ctx = makeContext();
    expect((await send(ctx, "write", { path: "~/notes.txt", content: "remember\n" })).text).toBe(block("The path `~/notes.txt`"));
  });
  test("the Unicode twin", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { [`${NFD}/cv.md`]: "cv\n" });
    expect((await send(ctx, "view", { path: `${NFC}/cv.md` })).text).toBe(block(`\`${NFC}/cv.md\``));
  });
  test("the backslash refusal", async () => {
    const ctx = makeContext();
    expect((await send(ctx, "view", { path: "src\\scopes.ts" })).text).toBe(block("The path `src\\scopes.ts`"));
  });
  test("the id with a malformed hash", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "src/server.ts": "a\nb\nc\n" });
    expect((await send(ctx, "view", { path: "src/server.ts", start: "3:zz" })).text).toBe(block('start "3:zz"'));
  });
});
