/**
 * A hosted workspace deleted while a tool call holds its storage: the call's
 * write finds nothing there, and must say the workspace is gone, not that
 * the file "does not exist" (which sends the agent to create it again).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { localBackend } from "../../src/cli/hosting.ts";
import { createMemoryLedger, createWorkspaceRegistry } from "../../src/http/hosting/mod.ts";
import { Cond } from "../../src/storage/types.ts";
import { writeTool } from "../../src/tools/write/run.ts";
import { tempDir } from "../helpers/cli.ts";
import { makeContext } from "../helpers/tool-context.ts";
import { call } from "../helpers/tool-mutation.ts";

const dirs: { remove(): void }[] = [];
afterAll(() => {
  for (const d of dirs) d.remove();
});

async function hostedWorkspace() {
  const dir = tempDir("tw-deleted-under-");
  dirs.push(dir);
  const registry = createWorkspaceRegistry({
    backend: await localBackend(dir.path),
    ledger: createMemoryLedger(),
    defaultQuota: { maxBytes: 1 << 20, maxFiles: 100 },
  });
  await registry.create("ws", {});
  return { registry, root: dir.path };
}

const text = (s: string) => new TextEncoder().encode(s);

describe("a workspace deleted under a call in flight", () => {
  test("the write says the workspace was deleted; nothing is written and nothing is left behind", async () => {
    const { registry, root } = await hostedWorkspace();
    // The storage a call took before the DELETE, as a call in flight holds it.
    const storage = await registry.storage("ws");
    await storage.write("kept.txt", text("one\n"), Cond.ifAbsent);
    expect(await registry.remove("ws")).toBe(true);
    const write = storage.write("src/new.txt", text("two\n"), Cond.ifAbsent);
    await expect(write).rejects.toMatchObject({ code: "FS_NOT_FOUND" });
    await expect(write).rejects.toThrow('workspace "ws" was deleted while this call ran: src/new.txt was not written');
    expect(existsSync(join(root, "ws", "src", "new.txt"))).toBe(false);
  });

  test("the write tool's answer to the agent says so", async () => {
    const { registry } = await hostedWorkspace();
    const ctx = { ...makeContext(), storage: await registry.storage("ws") };
    await registry.remove("ws");
    const result = await call(writeTool, { path: "notes.txt", content: "hello\n" }, ctx);
    expect(result.isError).toBe(true);
    const answer = result.content.map((c) => c.text).join("\n");
    expect(answer).toContain('workspace "ws" was deleted while this call ran');
    expect(answer).toContain("tell your user");
  });

  test("a file missing from a workspace that still exists is still plain not found", async () => {
    const { registry } = await hostedWorkspace();
    const storage = await registry.storage("ws");
    const stat = await storage.stat("nope/x.txt");
    expect(stat).toBeNull();
    await storage.write("a.txt", text("a\n"), Cond.ifAbsent);
    await expect(storage.write("b.txt", text("b\n"), Cond.ifVersion("not-a-version"))).rejects.toMatchObject({ code: "FS_STALE_VERSION" });
  });
});
