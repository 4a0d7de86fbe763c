/**
 * Directories of hosted workspaces on local storage are capped at the
 * quota's file count: a write whose missing parents would pass it is refused
 * with nothing made on disk (no directory either), whether an agent writes
 * it or an archive seeds it; writes that make the same directory at once
 * count it once; and the count starts from what the workspace holds.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { localBackend } from "../../src/cli/hosting.ts";
import { createMemoryLedger, createWorkspaceRegistry } from "../../src/http/hosting/mod.ts";
import { Cond } from "../../src/storage/types.ts";
import { writeTool } from "../../src/tools/write/run.ts";
import { tempDir } from "../helpers/cli.ts";
import { tarOf } from "../helpers/hosting-flow.ts";
import { makeContext } from "../helpers/tool-context.ts";
import { call } from "../helpers/tool-mutation.ts";

const dirs: { remove(): void }[] = [];
afterAll(() => {
  for (const d of dirs) d.remove();
});

const text = (s: string) => new TextEncoder().encode(s);

async function hosted(maxFiles: number, prepare?: (root: string) => void) {
  const dir = tempDir("tw-dir-cap-");
  dirs.push(dir);
  const registry = createWorkspaceRegistry({
    backend: await localBackend(dir.path),
    ledger: createMemoryLedger(),
    defaultQuota: { maxBytes: 1 << 20, maxFiles },
  });
  const root = join(dir.path, "ws");
  // What the workspace holds when it is created (adopted): counted then.
  prepare?.(root);
  await registry.create("ws", {});
  return { registry, root, storage: await registry.storage("ws") };
}

/** Every directory under `root` but the reserved `.toolwarden`, as relative paths. */
function directoriesOn(root: string): string[] {
  return (readdirSync(root, { recursive: true, withFileTypes: true }) as { name: string; parentPath: string; isDirectory(): boolean }[])
    .filter((e) => e.isDirectory())
    .map((e) => join(e.parentPath, e.name).slice(root.length + 1))
    .filter((p) => p !== ".toolwarden" && !p.startsWith(".toolwarden/"))
    .sort();
}

describe("the directory cap of hosted local workspaces", () => {
  test("a path whose missing parents pass the cap is refused, and not one directory is made", async () => {
    const { storage, root } = await hosted(5);
    const deep = storage.write("a/b/c/d/e/f/deep.txt", text("x\n"), Cond.ifAbsent);
    await expect(deep).rejects.toMatchObject({ code: "LIMIT_EXCEEDED" });
    await expect(deep).rejects.toThrow(
      'Workspace "ws" is over its quota: writing a/b/c/d/e/f/deep.txt would make 6 new directories (6 missing parents of the path) to the 0 in use, over the limit of 5 directories',
    );
    await expect(deep).rejects.toThrow("Nothing was written. To go on: write into a directory that exists (a shorter path)");
    expect(directoriesOn(root)).toEqual([]);
    // Up to the cap is allowed; files in directories that exist make none.
    await storage.write("a/b/c/d/e/ok.txt", text("x\n"), Cond.ifAbsent);
    await storage.write("a/b/two.txt", text("x\n"), Cond.ifAbsent);
    expect(directoriesOn(root)).toEqual(["a", "a/b", "a/b/c", "a/b/c/d", "a/b/c/d/e"]);
    await expect(storage.write("z/one.txt", text("x\n"), Cond.ifAbsent)).rejects.toThrow(
      "would make 1 new directory (1 missing parent of the path) to the 5 in use",
    );
    expect(existsSync(join(root, "z"))).toBe(false);
    // A file at the top makes no directory.
    await storage.write("top.txt", text("x\n"), Cond.ifAbsent);
  });

  test("the agent's write tool gets the refusal with its recovery, and the disk holds nothing new", async () => {
    const { storage, root } = await hosted(3);
    const ctx = { ...makeContext(), storage };
    const result = await call(writeTool, { path: "src/deep/er/still/notes.md", content: "hello\n" }, ctx);
    expect(result.isError).toBe(true);
    expect(result.code).toBe("LIMIT_EXCEEDED");
    const answer = result.content.map((c) => c.text).join("\n");
    expect(answer).toContain("would make 4 new directories");
    expect(answer).toContain("tell your user this workspace is full");
    expect(directoriesOn(root)).toEqual([]);
  });

  test("writes that make the same directory at the same time count it once", async () => {
    const { storage, root } = await hosted(3);
    await Promise.all(Array.from({ length: 12 }, (_, i) => storage.write(`shared/sub/f${i}.txt`, text(`${i}\n`), Cond.ifAbsent).catch((e) => e)));
    // 12 files fit no quota of 3 files: 3 landed, and their two directories count twice in all.
    expect(readdirSync(join(root, "shared", "sub")).length).toBe(3);
    expect(directoriesOn(root)).toEqual(["shared", "shared/sub"]);
    const landed = readdirSync(join(root, "shared", "sub"));
    for (const name of landed) await storage.delete(`shared/sub/${name}`);
    // Room for one directory more (2 of 3), not two.
    await storage.write("one/x.txt", text("x\n"), Cond.ifAbsent);
    await expect(storage.write("two/x.txt", text("x\n"), Cond.ifAbsent)).rejects.toThrow("to the 3 in use, over the limit of 3 directories");
  });

  test("the count starts from the directories an adopted workspace holds", async () => {
    const { storage, root } = await hosted(4, (r) => mkdirSync(join(r, "p", "q", "r"), { recursive: true }));
    await storage.write("p/q/r/in.txt", text("x\n"), Cond.ifAbsent);
    await storage.write("s/in.txt", text("x\n"), Cond.ifAbsent);
    await expect(storage.write("t/in.txt", text("x\n"), Cond.ifAbsent)).rejects.toThrow("to the 4 in use, over the limit of 4 directories");
    expect(existsSync(join(root, "t"))).toBe(false);
  });

  test("a write refused for its bytes makes no directory and is not counted", async () => {
    const { storage, root } = await hosted(3);
    await expect(storage.write("big/dir/file.bin", new Uint8Array(2 << 20), Cond.ifAbsent)).rejects.toThrow("over the limit of 1048576 bytes");
    expect(directoriesOn(root)).toEqual([]);
    await storage.write("a/b/c/fits.txt", text("x\n"), Cond.ifAbsent);
    expect(directoriesOn(root)).toEqual(["a", "a/b", "a/b/c"]);
  });

  test("an archive that would pass the cap seeds nothing", async () => {
    const dir = tempDir("tw-dir-cap-import-");
    dirs.push(dir);
    const registry = createWorkspaceRegistry({
      backend: await localBackend(dir.path),
      ledger: createMemoryLedger(),
      defaultQuota: { maxBytes: 1 << 20, maxFiles: 4 },
    });
    const archive = await tarOf({ "README.md": "hi\n", "x/y/z/w/v/deep.txt": "deep\n" });
    const body = new Blob([archive as BlobPart]).stream();
    await expect(registry.create("seeded", { archive: { body, gzip: true } })).rejects.toThrow("over the limit of 4 directories");
    expect(existsSync(join(dir.path, "seeded", "x"))).toBe(false);
    expect(await registry.info("seeded")).toBeUndefined();
  });
});
