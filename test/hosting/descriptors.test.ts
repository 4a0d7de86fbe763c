/**
 * A hosting server on local storage holds descriptors of each workspace's
 * directory (its files storage, its history): a platform that creates and
 * deletes workspaces all day must not run the process out of descriptors.
 * Real registry over the real local backend, descriptors counted in
 * /proc/self/fd.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { localBackend } from "../../src/cli/hosting.ts";
import type { NewAuditEntry } from "../../src/history/types.ts";
import { createMemoryLedger, createWorkspaceRegistry } from "../../src/http/hosting/mod.ts";
import { Cond } from "../../src/storage/types.ts";
import { tempDir } from "../helpers/cli.ts";
import { fdsUnder, settledFdsUnder } from "../helpers/fds.ts";

const dirs: { remove(): void }[] = [];
afterAll(() => {
  for (const d of dirs) d.remove();
});

const text = (s: string) => new TextEncoder().encode(s);

function entry(principal: string, path: string): NewAuditEntry {
  return { time: new Date().toISOString(), principal, session: "s", tool: "write", paths: [path], code: "OK", changes: [], bytes: 0, ms: 1 };
}

describe("descriptors of deleted workspaces", () => {
  test("creating and deleting workspaces again and again leaves no descriptor open, and a history read begun before the DELETE is not cut off", async () => {
    const dir = tempDir("tw-descriptors-");
    dirs.push(dir);
    const registry = createWorkspaceRegistry({
      backend: await localBackend(dir.path),
      ledger: createMemoryLedger(),
      defaultQuota: { maxBytes: 1 << 20, maxFiles: 100 },
    });
    // What a platform does with each tenant: create, the agent works (files and history), delete.
    const tenant = async (i: number) => {
      const ws = `ws${i % 3}`;
      await registry.create(ws, {});
      const files = await registry.storage(ws);
      await files.write(`src/f${i}.txt`, text(`${i}\n`), Cond.ifAbsent);
      expect((await files.list("", { recursive: true })).entries.map((e) => e.path)).toContain(`src/f${i}.txt`);
      const history = registry.history(ws)!;
      await history.append(entry(`tenant${i}`, `src/f${i}.txt`));
      // An inspector reading the log as the DELETE comes: each read of it either ran before its
      // descriptor was closed or is refused as deleted (read as nothing); none fails on a closed one.
      const reading = history.query({}).then(
        (page) => page.entries.map((e) => e.principal),
        (error: { code?: string }) => String(error.code),
      );
      expect(await registry.remove(ws)).toBe(true);
      expect([[`tenant${i}`], [], "FS_NOT_FOUND"]).toContainEqual(await reading);
    };
    await tenant(0);
    const before = fdsUnder(dir.path);
    for (let i = 1; i <= 30; i++) await tenant(i);
    // Three descriptors a tenant before (files, history, its pinned directory): 90 here.
    expect(await settledFdsUnder(dir.path, before)).toBeLessThanOrEqual(before);
  });
});
