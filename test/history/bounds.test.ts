/**
 * The history's bounds against the attacks that found them (docs/reliability.md):
 * a read-only token's views grew a hosted workspace's log without limit, and
 * one writer's churn erased everyone's undo history. Hosted workspaces on
 * local disk (as `serve --workspaces DIR`), in process, with small bounds;
 * and a state directory's segments read back by the real `toolwarden log`.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { localBackend } from "../../src/cli/hosting.ts";
import { openHistory, workspaceStateDir } from "../../src/cli/state.ts";
import { jsHasher } from "../../src/hash/js.ts";
import { objectEntryLog } from "../../src/history/entry-log.ts";
import { createStorageHistory, HISTORY_ITEM_BYTES } from "../../src/history/mod.ts";
import { segmentEntryLog } from "../../src/history/segment-log.ts";
import { createStateDirStorage, sha256Sync } from "../../src/history/state-dir.ts";
import { createApp } from "../../src/http/app.ts";
import { createMemoryLedger, createWorkspaceRegistry, hostedStorage } from "../../src/http/hosting/mod.ts";
import { createMemoryObservationStore } from "../../src/policy/memory.ts";
import { fileTools } from "../../src/tools/mod.ts";
import type { AuditEntry, HistoryBounds } from "../../src/history/types.ts";
import { newEntry } from "../helpers/audit-entry.ts";
import { runCli, tempDir } from "../helpers/cli.ts";

const dirs: { remove(): void }[] = [];
afterAll(() => {
  for (const dir of dirs) dir.remove();
});

const TOKENS = {
  victim: "victim-token-0123456789",
  evil: "evil-token-0123456789",
  reader: "reader-token-0123456789",
  auditor: "auditor-token-0123456789",
  admin: "admin-token-0123456789",
};

/** A hosting app over a local directory (one workspace, "ws"), with these history bounds. */
async function hosted(bounds: Partial<HistoryBounds>) {
  const dir = tempDir("tw-bounds-");
  dirs.push(dir);
  const registry = createWorkspaceRegistry({
    backend: await localBackend(dir.path),
    ledger: createMemoryLedger(),
    defaultQuota: { maxBytes: 1024 * 1024 * 1024, maxFiles: 10_000 },
    historyBounds: bounds,
  });
  await registry.create("ws", {});
  const app = createApp({
    tools: fileTools,
    auth: {
      mode: "bearer",
      tokens: [
        { token: TOKENS.victim, workspace: "ws", scopes: ["read", "write"], label: "victim" },
        { token: TOKENS.evil, workspace: "ws", scopes: ["read", "write"], label: "evil" },
        { token: TOKENS.reader, workspace: "ws", scopes: ["read"], label: "reader" },
        { token: TOKENS.auditor, workspace: "ws", scopes: ["audit"], label: "auditor" },
        { token: TOKENS.admin, workspace: "ws", scopes: ["admin"], label: "admin" },
      ],
    },
    storageFor: (ws) => hostedStorage(registry, ws),
    historyFor: (ws) => registry.history(ws),
    workspaces: registry,
    observations: createMemoryObservationStore(),
    hasher: jsHasher,
    version: "test",
  });
  const tool = async (token: string, name: string, args: unknown, session: string) => {
    const response = await app.request(`http://127.0.0.1/v1/tools/${name}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "x-session-id": session },
      body: JSON.stringify(args),
    });
    const reply = (await response.json()) as { isError: boolean; code?: string; content: { text: string }[] };
    if (reply.isError) throw new Error(`${name} failed: ${reply.code} ${reply.content[0]?.text}`);
    return reply;
  };
  const api = async (token: string, path: string, body?: unknown) => {
    const response = await app.request(`http://127.0.0.1${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  };
  const workspace = join(dir.path, "ws");
  return { tool, api, workspace, history: join(workspace, ".toolwarden", "history") };
}

/** Files and bytes under `dir`, by top folder. */
function onDisk(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const full = join(at, name);
      const stat = statSync(full);
      if (stat.isDirectory()) walk(full);
      else {
        files++;
        bytes += stat.size;
      }
    }
  };
  try {
    walk(dir);
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT") throw error;
  }
  return { files, bytes };
}

/** Every entry GET /v1/audit pages through, oldest first. */
async function everyEntry(api: (token: string, path: string) => Promise<Record<string, unknown>>, query = ""): Promise<AuditEntry[]> {
  const out: AuditEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = (await api(TOKENS.auditor, `/v1/audit?limit=7${query}${cursor ? `&cursor=${cursor}` : ""}`)) as { entries: AuditEntry[]; cursor?: string };
    out.push(...page.entries);
    cursor = page.cursor;
  } while (cursor);
  return out;
}

describe("a read-only token's views (finding A)", () => {
  const bounds = { maxEntries: 64, maxLogBytes: 256 * 1024 };
  const views = 300;

  test("keep the hosted log within its bounds in files and bytes, dropping the oldest; the audit API reads what is left", async () => {
    const { tool, api, history } = await hosted(bounds);
    const text = Array.from({ length: 800 }, (_, i) => `line ${i} of a file the reader views again and again`).join("\n");
    await tool(TOKENS.victim, "write", { path: "big.txt", content: `${text}\n` }, "seed");
    for (let i = 0; i < views; i++) await tool(TOKENS.reader, "view", { path: "big.txt" }, `v${i}`);

    // Each view's entry is ~17 KB (the result is cut at 16 KiB): the byte bound binds. A prune runs once an eighth
    // of a bound was added, so at most an eighth and one entry more; the workspace's own files are not counted.
    const log = onDisk(join(history, "audit"));
    expect(log.bytes).toBeLessThanOrEqual(bounds.maxLogBytes * (9 / 8) + 20_000);
    expect(log.files).toBeLessThanOrEqual(bounds.maxEntries + bounds.maxEntries / 8);
    // Before the bound: one file per call, 5.1 MB for these 300 views.
    expect(log.files).toBeLessThan(30);

    // What is left is the newest views (and the seeding write, kept by the file history), oldest first, through pages.
    const entries = await everyEntry(api);
    const sessions = entries.map((e) => e.session);
    expect(sessions[0]).toBe("seed");
    const kept = sessions.slice(1);
    expect(kept.length).toBeGreaterThan(5);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, k) => `v${views - kept.length + k}`));
    expect(entries.map((e) => e.id)).toEqual(entries.map((e) => e.id).sort());
    expect(((await api(TOKENS.auditor, "/v1/audit?session=v0")) as { entries: unknown[] }).entries).toEqual([]);
    // The seeding write's version is still there.
    const seeded = entries[0]!.changes[0]!.after!;
    const content = await api(TOKENS.auditor, `/v1/history?path=big.txt`);
    expect((content as { versions: { after: { version: string } }[] }).versions[0]!.after.version).toBe(seeded.version);
  });
});

describe("one writer's churn (finding B)", () => {
  const maxBytes = 256 * 1024;

  test("the admin reverts the attacker's session and the victim's bytes are back on disk", async () => {
    const { tool, api, workspace, history } = await hosted({ maxBytes });
    const precious = "the victim's work, line 1\nline 2\n".repeat(40);
    await tool(TOKENS.victim, "write", { path: "precious.txt", content: precious }, "victim");

    // evil overwrites it...
    await tool(TOKENS.evil, "view", { path: "precious.txt" }, "evil");
    await tool(TOKENS.evil, "write", { path: "precious.txt", content: "gone\n" }, "evil");
    expect(readFileSync(join(workspace, "precious.txt"), "utf8")).toBe("gone\n");
    // ...then writes one file far over the whole budget and shrinks it back...
    await tool(TOKENS.evil, "write", { path: "huge.txt", content: `${"h".repeat(4 * maxBytes)}\n` }, "evil");
    await tool(TOKENS.evil, "view", { path: "huge.txt", start: 1, end: 1 }, "evil");
    await tool(TOKENS.evil, "write", { path: "huge.txt", content: "small\n" }, "evil");
    // ...and writes 2.5 times the budget in versions in a row.
    for (let i = 0; i < 40; i++) await tool(TOKENS.evil, "write", { path: `churn/${i}.txt`, content: `${String(i).repeat(16 * 1024)}\n` }, "evil");

    // The kept versions stay within the budget (an eighth more while a prune is due, and the last call's).
    const blobs = onDisk(join(history, "blobs"));
    expect(blobs.bytes).toBeLessThanOrEqual(maxBytes * (9 / 8) + 20 * 1024);
    expect(blobs.files * HISTORY_ITEM_BYTES + blobs.bytes).toBeLessThanOrEqual(maxBytes * (9 / 8) + 40 * 1024);

    const revert = (await api(TOKENS.admin, "/v1/revert", { session: "evil" })) as {
      ok: boolean;
      reverted: { path: string; action: string }[];
      conflicts: unknown[];
    };
    expect(revert.conflicts).toEqual([]);
    expect(revert.ok).toBe(true);
    expect(revert.reverted).toContainEqual({ path: "precious.txt", action: "restored" });
    expect(readFileSync(join(workspace, "precious.txt"), "utf8")).toBe(precious);
    // Everything evil created is gone again.
    expect(revert.reverted).toContainEqual({ path: "huge.txt", action: "deleted" });
    expect(readdirSync(join(workspace, "churn"))).toEqual([]);
  });
});

describe("a state directory's segments (serve DIR)", () => {
  test("views keep the segments within the log's bounds, full dead segments go at once, and `toolwarden log` reads what is left", async () => {
    const root = tempDir("tw-bounds-ws-");
    const state = tempDir("tw-bounds-state-");
    dirs.push(root, state);
    const real = realpathSync(root.path);
    // What `serve` opens (workspace.json and all), then the same store with small bounds and small segments.
    await openHistory(state.path, real);
    const dir = workspaceStateDir(state.path, real);
    const storage = createStateDirStorage(dir);
    const segmentBytes = 16 * 1024;
    const bounds = { maxEntries: 40, maxLogBytes: 32 * 1024 };
    const store = createStorageHistory(storage, {
      entries: segmentEntryLog(join(dir, "audit-log"), objectEntryLog(storage), { segmentBytes }),
      sha256: sha256Sync,
      bounds,
    });
    const blob = await store.putBlob(new TextEncoder().encode("v1\n"));
    await store.append(newEntry([{ path: "a.txt", before: null, after: { version: "v1", blob, size: 3 } }], new Date(), { tool: "write", session: "w" }));
    for (let i = 0; i < 2000; i++) await store.append(newEntry([], new Date(), { tool: "view", session: `v${i}`, result: "r".repeat(400) }));

    // ~700 bytes an entry: 1.4 MB appended in all; live, at most the bound and an eighth; on disk, a few segments more.
    const segments = onDisk(join(dir, "audit-log"));
    expect(segments.bytes).toBeLessThanOrEqual(bounds.maxLogBytes * (9 / 8) + 4 * segmentBytes);
    expect(segments.files).toBeLessThanOrEqual(8);

    const log = await runCli(["log", real, "--state", state.path, "--all", "--limit", "1000"]);
    expect(log.code).toBe(0);
    const lines = log.stdout.split("\n").filter((l) => / by p \(session /.test(l));
    const sessions = lines.map((l) => /session (\S+)\)/.exec(l)![1]);
    expect(sessions[0]).toBe("w");
    const views = sessions.slice(1);
    expect(views.length).toBeGreaterThan(20);
    expect(views).toEqual(Array.from({ length: views.length }, (_, k) => `v${2000 - views.length + k}`));
    const changes = await runCli(["log", real, "--state", state.path]);
    expect(changes.stdout).toContain("created  a.txt (3 B)");
  });
});
