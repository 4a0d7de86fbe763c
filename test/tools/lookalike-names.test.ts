/**
 * A tool that changes files never creates a second entry that looks the
 * same as an existing one: whitespace at a name's ends, a zero-width
 * character, a no-break space for a space, as for NFC/NFD. The refusal is
 * FS_INVALID_PATH with the call using the existing name, which lands; disk
 * is checked entry by entry. A listing shows such characters escaped.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { validateArgs } from "../../src/pipeline/validate.ts";
import { resultText, type ToolResult } from "../../src/result.ts";
import { createLocalStorage } from "../../src/storage/local/mod.ts";
import { lookAlikeKey, lookAlikeTwins, showHidden } from "../../src/tools/support/lookalike-names.ts";
import { batchEditTool } from "../../src/tools/batch-edit/run.ts";
import { editTool } from "../../src/tools/edit/run.ts";
import type { ToolContext, ToolDef } from "../../src/tools/types.ts";
import { viewTool } from "../../src/tools/view/run.ts";
import { writeTool } from "../../src/tools/write/run.ts";
import { quotedPath } from "../../src/tools/support/paths.ts";
import { firstCall } from "../helpers/suggested-calls.ts";
import { makeContext } from "../helpers/tool-context.ts";

const TOOLS: Record<string, ToolDef> = { view: viewTool, write: writeTool, edit: editTool, batch_edit: batchEditTool } as never;

async function send(ctx: ToolContext, tool: string, args: Record<string, unknown>): Promise<{ result: ToolResult; text: string }> {
  const def = TOOLS[tool];
  const checked = validateArgs(def, args);
  const result = checked.ok ? await def.run(checked.value as never, ctx) : checked.result;
  return { result, text: resultText(result) };
}

/** Every entry under `dir` (relative path -> file text, or "/" for a directory). */
function tree(dir: string, prefix = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    const rel = prefix + name;
    if (statSync(full).isDirectory()) {
      out[`${rel}/`] = "/";
      Object.assign(out, tree(full, `${rel}/`));
    } else out[rel] = readFileSync(full, "utf8");
  }
  return out;
}

let base: string;
let counter = 0;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "tw-lookalike-"));
});
afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

async function workspace(files: Record<string, string>): Promise<{ root: string; ctx: ToolContext }> {
  const root = join(base, `ws${++counter}`);
  mkdirSync(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return { root, ctx: makeContext({ storage: await createLocalStorage(root) }) };
}

const SERVER = "export const port = 1;\n";

describe("write refuses a look-alike of an existing name", () => {
  for (const [what, path] of [
    ["a trailing space", "src/server.ts "],
    ["a zero-width space", "src/server.ts\u200b"],
    ["a leading space on the directory", " src/server.ts"],
    ["a word joiner inside", "src/ser\u2060ver.ts"],
  ] as const) {
    test(`${what}: FS_INVALID_PATH, nothing created, and the offered call (the existing name) lands`, async () => {
      const { root, ctx } = await workspace({ "src/server.ts": SERVER });
      await send(ctx, "view", { path: "src/server.ts" });
      const out = await send(ctx, "write", { path, content: "export const port = 2;\n" });
      expect(out.result.code).toBe("FS_INVALID_PATH");
      expect(out.text).toContain("does not create a second entry that looks the same");
      expect(out.text).toContain("they look identical but are different names");
      expect(tree(root)).toEqual({ "src/": "/", "src/server.ts": SERVER });
      const offered = firstCall(out.text, "write");
      expect(offered.path).toBe("src/server.ts");
      expect((await send(ctx, "write", offered)).result.isError).toBe(false);
      expect(tree(root)).toEqual({ "src/": "/", "src/server.ts": "export const port = 2;\n" });
    });
  }

  test("a no-break space where the existing name has a space: refused, nothing created", async () => {
    const { root, ctx } = await workspace({ "my notes.md": "a\n" });
    const out = await send(ctx, "write", { path: "my\u00a0notes.md", content: "b\n" });
    expect(out.result.code).toBe("FS_INVALID_PATH");
    expect(out.text).toContain("U+00A0 no-break space");
    expect(tree(root)).toEqual({ "my notes.md": "a\n" });
  });

  test("edit of a look-alike path is refused with the call on the existing name, which lands", async () => {
    const { root, ctx } = await workspace({ "src/server.ts": SERVER });
    await send(ctx, "view", { path: "src/server.ts" });
    const out = await send(ctx, "edit", { path: "src/server.ts ", old_string: "1", new_string: "2" });
    expect(out.result.code).toBe("FS_INVALID_PATH");
    expect((await send(ctx, "edit", firstCall(out.text, "edit"))).result.isError).toBe(false);
    expect(tree(root)).toEqual({ "src/": "/", "src/server.ts": "export const port = 2;\n" });
  });

  test("a new name that looks like no existing one is still created", async () => {
    const { root, ctx } = await workspace({ "src/server.ts": SERVER });
    expect((await send(ctx, "write", { path: "src/client.ts", content: "c\n" })).result.isError).toBe(false);
    expect(tree(root)["src/client.ts"]).toBe("c\n");
  });
});

describe("listings escape invisible characters", () => {
  test("a name with a zero-width space made outside the API is shown escaped, with its path as JSON, which views it", async () => {
    const { ctx } = await workspace({ "src/server.ts": SERVER, "src/server.ts\u200b": "other\n" });
    const out = await send(ctx, "view", { path: "src" });
    expect(out.text).toContain("src/server.ts\\u{200b}  ");
    expect(out.text).toContain('its path as JSON: "src/server.ts\\u200b"');
    expect(out.text).not.toContain("server.ts\u200b");
    const viewed = await send(ctx, "view", { path: JSON.parse('"src/server.ts\\u200b"') });
    expect(viewed.text).toContain("|other");
  });
});

describe("a missing name whose similar name has an invisible character", () => {
  const ZW = "src/server.ts\u200b";

  test("edit shows the name as JSON and offers the exact call, which reaches that file", async () => {
    const { root, ctx } = await workspace({ [ZW]: "zw\n" });
    const out = await send(ctx, "edit", { path: "src/server.ts", old_string: "zw", new_string: "ZW" });
    expect(out.result.code).toBe("FS_NOT_FOUND");
    expect(out.text).not.toContain("\u200b");
    expect(out.text).toContain(
      'Similar name in the same directory: "src/server.ts\\u200b" (written as JSON: it has U+200B zero-width space, which does not show)',
    );
    const offered = firstCall(out.text, "edit");
    expect(offered).toEqual({ path: ZW, old_string: "zw", new_string: "ZW", replace_all: false });
    expect((await send(ctx, "view", { path: offered.path })).result.isError).toBe(false);
    expect((await send(ctx, "edit", offered)).result.isError).toBe(false);
    expect(tree(root)).toEqual({ "src/": "/", [ZW]: "ZW\n" });
  });

  test("batch_edit offers its exact call too, which reaches that file", async () => {
    const { root, ctx } = await workspace({ [ZW]: "zw\n" });
    const out = await send(ctx, "batch_edit", { path: "src/server.ts", operations: [{ operation: "insert", after: 0, content: "top" }] });
    expect(out.result.code).toBe("FS_NOT_FOUND");
    expect(out.text).not.toContain("\u200b");
    const offered = firstCall(out.text, "batch_edit");
    expect(offered.path).toBe(ZW);
    expect((await send(ctx, "view", { path: offered.path })).result.isError).toBe(false);
    expect((await send(ctx, "batch_edit", offered)).result.isError).toBe(false);
    expect(tree(root)).toEqual({ "src/": "/", [ZW]: "top\nzw\n" });
  });

  test("view shows it as JSON with the view of it; after that view, edit still names it", async () => {
    const { root, ctx } = await workspace({ [ZW]: "zw\n" });
    const shown = await send(ctx, "view", { path: "src/server.ts" });
    expect(shown.result.code).toBe("FS_NOT_FOUND");
    expect(shown.text).not.toContain("\u200b");
    expect(firstCall(shown.text, "view")).toEqual({ path: ZW });
    const out = await send(ctx, "edit", { path: "src/server.ts", old_string: "zw", new_string: "ZW" });
    expect(out.text).toContain("does not exist (as you found earlier)");
    expect(out.text).not.toContain("\u200b");
    expect(firstCall(out.text, "edit").path).toBe(ZW);
    expect(tree(root)).toEqual({ "src/": "/", [ZW]: "zw\n" });
  });
});

describe("quotedPath", () => {
  test("says what does not show: an invisible character by name, spaces at a name's end as such", () => {
    expect(quotedPath("a.ts\u200b")).toContain("U+200B zero-width space");
    expect(quotedPath("trail.txt ")).toBe('"trail.txt " (written as JSON: it has spaces at the start or end of a name, which do not show)');
    expect(quotedPath("plain.ts")).toBe("`plain.ts`");
  });
});

describe("lookAlikeKey", () => {
  test("reads NFC/NFD, invisible characters, odd spaces and end whitespace as one name", () => {
    expect(lookAlikeKey("re\u0301sume\u0301 ")).toBe("r\u00e9sum\u00e9");
    expect(lookAlikeKey("\u200bserver.ts\ufeff")).toBe("server.ts");
    expect(lookAlikeKey("my\u00a0notes.md")).toBe("my notes.md");
    expect(lookAlikeTwins("server.ts ", ["server.ts", "Server.ts", "server.js"])).toEqual(["server.ts"]);
    expect(lookAlikeTwins("server.ts", ["server.ts "])).toEqual([]); // a plain name is not looked up (see mayHaveTwins)
    expect(showHidden(" a\u200b/b ")).toBe("\\u{20}a\\u{200b}/b\\u{20}");
  });
});
