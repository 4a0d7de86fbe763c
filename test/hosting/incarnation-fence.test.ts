/**
 * A hosted local workspace deleted while its calls and recordings are still
 * in flight, then created again under the same name: nothing of the old one
 * reaches the new one. The old storage and history (held by a call in flight,
 * a recording queued after the reply, an inspector stream) write into the
 * old tree or nowhere, and read only the old log; the new workspace starts
 * empty, on disk and in its log. Played with the objects a call holds, so no
 * timing decides it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { localBackend } from "../../src/cli/hosting.ts";
import type { NewAuditEntry } from "../../src/history/types.ts";
import { createMemoryLedger, createWorkspaceRegistry, prefixBackend } from "../../src/http/hosting/mod.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { prefixedStorage } from "../../src/storage/prefixed.ts";
import { writeTombstone } from "../../src/http/hosting/records.ts";
import { Cond } from "../../src/storage/types.ts";
import { tempDir } from "../helpers/cli.ts";

const dirs: { remove(): void }[] = [];
afterAll(() => {
  for (const d of dirs) d.remove();
});

const text = (s: string) => new TextEncoder().encode(s);

function entry(principal: string, path: string): NewAuditEntry {
  return { time: new Date().toISOString(), principal, session: "s", tool: "write", paths: [path], code: "OK", changes: [], bytes: 0, ms: 1 };
}

async function hosting() {
  const dir = tempDir("tw-incarnation-fence-");
  dirs.push(dir);
  const backend = await localBackend(dir.path);
  const registry = createWorkspaceRegistry({
    backend,
    ledger: createMemoryLedger(),
    defaultQuota: { maxBytes: 1 << 20, maxFiles: 100 },
  });
  return { registry, backend, root: dir.path };
}

describe("one incarnation of a workspace name never reaches the next", () => {
  test("a write and a recording in flight across a DELETE and a new PUT land in neither workspace", async () => {
    const { registry, root } = await hosting();
    await registry.create("ws", {});
    // What a call in flight holds: the old workspace's storage and history.
    const oldFiles = await registry.storage("ws");
    const oldHistory = registry.history("ws")!;
    await oldFiles.write("before.txt", text("old tenant\n"), Cond.ifAbsent);
    await oldHistory.append(entry("oldtenant", "before.txt"));

    expect(await registry.remove("ws")).toBe(true);
    await registry.create("ws", {});

    // The old call's write and its recording, after the new workspace exists.
    const late = oldFiles.write("late.txt", text("old secret\n"), Cond.ifAbsent);
    await expect(late).rejects.toMatchObject({ code: "FS_NOT_FOUND" });
    await expect(late).rejects.toThrow('workspace "ws" was deleted while this call ran');
    await oldHistory.append(entry("oldtenant", "late.txt")).catch(() => undefined);

    const newFiles = await registry.storage("ws");
    expect((await newFiles.list("", { recursive: true })).entries).toEqual([]);
    expect(readdirSync(join(root, "ws")).filter((name) => name !== ".toolwarden")).toEqual([]);
    const newLog = await registry.history("ws")!.query({});
    expect(newLog.entries.map((e) => e.principal)).toEqual([]);
    expect(existsSync(join(root, "ws", ".toolwarden", "history", "audit"))).toBe(false);
  });

  test("a reader of the old log (an inspector stream) never sees the new workspace's calls", async () => {
    const { registry } = await hosting();
    await registry.create("ws", {});
    await registry.storage("ws");
    // Opened before anything was recorded, as a stream opened early holds it.
    const oldHistory = registry.history("ws")!;
    expect((await oldHistory.query({})).entries).toEqual([]);

    await registry.remove("ws");
    await registry.create("ws", {});
    await registry.storage("ws");
    await registry.history("ws")!.append(entry("newtenant", "new-tenant-secret.txt"));

    expect((await registry.history("ws")!.query({})).entries.map((e) => e.principal)).toEqual(["newtenant"]);
    expect((await oldHistory.query({})).entries).toEqual([]);
  });

  test("a DELETE frees the name at once: the new workspace's files are never removed by the old removal", async () => {
    const { registry, root } = await hosting();
    await registry.create("ws", {});
    const files = await registry.storage("ws");
    for (let i = 0; i < 50; i++) await files.write(`d${i}/f.txt`, text(`${i}\n`), Cond.ifAbsent);
    // The removal and a new creation under the name, at the same time.
    const removing = registry.remove("ws");
    await new Promise((resolve) => setTimeout(resolve, 0));
    const creating = registry.create("ws", {}).catch((error: unknown) => error);
    await removing;
    const created = await creating;
    // The PUT came after the DELETE and created the name anew; or during it, and was told to wait; or
    // before it began, and found the old workspace, which the DELETE then removed.
    if (created instanceof Error) {
      expect(created.message).toContain("is being deleted by a DELETE still running; PUT again once it has answered");
      await registry.create("ws", {});
    } else if (!(created as { created: boolean }).created) {
      expect(await registry.info("ws")).toBeUndefined();
      await registry.create("ws", {});
    }
    const fresh = await registry.storage("ws");
    await fresh.write("kept.txt", text("new tenant\n"), Cond.ifAbsent);
    // Whatever order they ran in, the new workspace keeps its file and holds nothing of the old one.
    expect((await fresh.list("", { recursive: true })).entries.map((e) => e.path)).toEqual(["kept.txt"]);
    expect(readdirSync(join(root, ".toolwarden", "trash"))).toEqual([]);
  });

  test("a PUT while a DELETE of the name is still removing it is told to wait, and changes nothing", async () => {
    const { registry, backend } = await hosting();
    await registry.create("ws", {});
    // Where a running DELETE stands: its tombstone written, the record not yet gone.
    await writeTombstone(backend.records, "ws", { deletedAt: Date.now() + 1 });
    const put = registry.create("ws", { quota: { maxFiles: 5 } });
    await expect(put).rejects.toMatchObject({ code: "FS_ALREADY_EXISTS" });
    await expect(put).rejects.toThrow("workspace ws is being deleted by a DELETE still running; PUT again once it has answered");
    expect((await registry.info("ws"))?.quota.maxFiles).toBe(100);
  });
});

describe("on an object store (a bucket's prefixes, no descriptors to fence with)", () => {
  test("what a call in flight wrote after the DELETE is not adopted by the next workspace of the name", async () => {
    const bucket = createMemoryStorage();
    const registry = createWorkspaceRegistry({
      backend: prefixBackend((prefix) => prefixedStorage(bucket, prefix.replace(/\/$/, ""))),
      ledger: createMemoryLedger(),
      defaultQuota: { maxBytes: 1 << 20, maxFiles: 100 },
    });
    await registry.create("ws", {});
    const oldFiles = await registry.storage("ws");
    await oldFiles.write("before.txt", text("old tenant\n"), Cond.ifAbsent);
    await registry.remove("ws");
    // The old call's write lands after the removal: an object store takes it.
    await oldFiles.write("late.txt", text("old secret\n"), Cond.ifAbsent).catch(() => undefined);

    const created = await registry.create("ws", {});
    expect(created.info.usage).toEqual({ bytes: 0, files: 0 });
    expect(await bucket.stat("ws/late.txt")).toBeNull();
    expect(await bucket.stat("ws/before.txt")).toBeNull();
  });
});
