/**
 * Session reverts against other writers and the quota (docs/history.md,
 * "The API"; play-host findings 1 and 3): another principal's edit made
 * between a session's changes is never undone by reverting the session,
 * and a file the quota refuses is a conflict of its own while the files
 * already reverted are reported and recorded. Hosted workspaces on local
 * disk (as `serve --workspaces DIR`), in process; bytes checked on disk.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { localBackend } from "../../src/cli/hosting.ts";
import { jsHasher } from "../../src/hash/js.ts";
import { planRevert } from "../../src/history/mod.ts";
import type { AuditEntry } from "../../src/history/types.ts";
import { createApp } from "../../src/http/app.ts";
import { createMemoryLedger, createWorkspaceRegistry, hostedStorage } from "../../src/http/hosting/mod.ts";
import { revertPage } from "../../src/http/ui/pages.ts";
import { createMemoryObservationStore } from "../../src/policy/memory.ts";
import { fileTools } from "../../src/tools/mod.ts";
import { auditEntry, fileState } from "../helpers/audit-entry.ts";
import { tempDir } from "../helpers/cli.ts";

const dirs: { remove(): void }[] = [];
afterAll(() => {
  for (const dir of dirs) dir.remove();
});

const TOKENS = { a: "agent-a-token-0123456789", b: "agent-b-token-0123456789", admin: "admin-token-0123456789", platform: "platform-token-0123456789" };

interface Conflict {
  path: string;
  code: string;
  reason: string;
  diff: string;
  diffOf?: string;
}
interface RevertReply {
  ok: boolean;
  change?: string;
  reverted: { path: string; action: string }[];
  conflicts: Conflict[];
}

/** A hosting app over a local directory with one workspace "ws" of this quota, two agents, its admin and a global admin. */
async function hosted(quota: { maxBytes: number; maxFiles: number }) {
  const dir = tempDir("tw-revert-il-");
  dirs.push(dir);
  const registry = createWorkspaceRegistry({ backend: await localBackend(dir.path), ledger: createMemoryLedger(), defaultQuota: quota });
  await registry.create("ws", {});
  const app = createApp({
    tools: fileTools,
    auth: {
      mode: "bearer",
      tokens: [
        { token: TOKENS.a, workspace: "ws", scopes: ["read", "write"], label: "agent-a" },
        { token: TOKENS.b, workspace: "ws", scopes: ["read", "write"], label: "agent-b" },
        { token: TOKENS.admin, workspace: "ws", scopes: ["admin"], label: "admin" },
        { token: TOKENS.platform, workspace: "*", scopes: ["admin"], label: "platform" },
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
  };
  const request = async (method: string, path: string, token = TOKENS.admin, body?: unknown) => {
    const response = await app.request(`http://127.0.0.1${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };
  const revert = async (body: unknown) => {
    const reply = await request("POST", "/v1/revert", TOKENS.admin, body);
    expect(reply.status).toBe(200);
    return reply.json as unknown as RevertReply;
  };
  const revertEntries = async () => ((await request("GET", "/v1/audit?changes=1&limit=1000")).json.entries as AuditEntry[]).filter((e) => e.tool === "revert");
  const read = (path: string) => {
    try {
      return readFileSync(join(dir.path, "ws", path), "utf8");
    } catch {
      return undefined;
    }
  };
  return { tool, request, revert, revertEntries, read };
}

/** The call a conflict's reason offers (`POST /v1/revert {...}`), as its body. */
function offeredCall(reason: string): unknown {
  const match = /POST \/v1\/revert (\{.*?\})(?:\.|,|$)/.exec(reason);
  if (!match) throw new Error(`no ready call in: ${reason}`);
  return JSON.parse(match[1]!);
}

describe("another principal's edit between a session's changes (finding 1)", () => {
  test("reverting the session leaves the file as it is, a conflict naming the other principal; the offered call undoes only the session's last run", async () => {
    const h = await hosted({ maxBytes: 1 << 20, maxFiles: 100 });
    await h.tool(TOKENS.b, "write", { path: "x.txt", content: "one\ntwo\nthree\n" }, "setup");
    await h.tool(TOKENS.a, "view", { path: "x.txt" }, "sA");
    await h.tool(TOKENS.a, "edit", { path: "x.txt", old_string: "one", new_string: "ONE (by A)" }, "sA");
    await h.tool(TOKENS.b, "view", { path: "x.txt" }, "sB");
    await h.tool(TOKENS.b, "edit", { path: "x.txt", old_string: "two", new_string: "TWO (by B)" }, "sB");
    await h.tool(TOKENS.a, "edit", { path: "x.txt", old_string: "three", new_string: "THREE (by A)" }, "sA");
    const before = "ONE (by A)\nTWO (by B)\nTHREE (by A)\n";
    expect(h.read("x.txt")).toBe(before);

    const reply = await h.revert({ session: "sA" });
    expect(reply.ok).toBe(false);
    expect(reply.reverted).toEqual([]);
    expect(reply.conflicts.length).toBe(1);
    const [conflict] = reply.conflicts;
    expect(conflict).toMatchObject({ path: "x.txt", code: "EDIT_CONFLICT" });
    expect(conflict!.reason).toContain("agent-b");
    expect(conflict!.diff).toContain("TWO (by B)");
    // The diff is the other writer's change between the session's, and says so (the UI labels it by this).
    expect(conflict!.diffOf).toBe("between");
    expect(revertPage(reply).toString()).toContain("What the other writer changed between the reverted changes:");
    expect(h.read("x.txt")).toBe(before);
    expect(await h.revertEntries()).toEqual([]);

    const lastRun = await h.revert(offeredCall(conflict!.reason));
    expect(lastRun).toMatchObject({ ok: true, reverted: [{ path: "x.txt", action: "restored" }], conflicts: [] });
    expect(h.read("x.txt")).toBe("ONE (by A)\nTWO (by B)\nthree\n");
  });

  test("a file the session created, another principal added to, and the session touched again is not deleted", async () => {
    const h = await hosted({ maxBytes: 1 << 20, maxFiles: 100 });
    await h.tool(TOKENS.a, "write", { path: "new.txt", content: "header by A\n" }, "sA2");
    await h.tool(TOKENS.b, "view", { path: "new.txt" }, "sB2");
    await h.tool(TOKENS.b, "edit", { path: "new.txt", old_string: "header by A\n", new_string: "header by A\nB: 200 lines of work\n" }, "sB2");
    await h.tool(TOKENS.a, "view", { path: "new.txt" }, "sA2");
    await h.tool(TOKENS.a, "edit", { path: "new.txt", old_string: "header by A", new_string: "HEADER by A" }, "sA2");
    const before = "HEADER by A\nB: 200 lines of work\n";

    const reply = await h.revert({ session: "sA2" });
    expect(reply).toMatchObject({ ok: false, reverted: [] });
    expect(reply.conflicts.map((c) => [c.path, c.code])).toEqual([["new.txt", "EDIT_CONFLICT"]]);
    expect(h.read("new.txt")).toBe(before);

    await h.revert(offeredCall(reply.conflicts[0]!.reason));
    expect(h.read("new.txt")).toBe("header by A\nB: 200 lines of work\n");
  });

  test("the session's other files, changed by it alone, are still reverted and recorded", async () => {
    const h = await hosted({ maxBytes: 1 << 20, maxFiles: 100 });
    await h.tool(TOKENS.b, "write", { path: "mixed.txt", content: "m1\nm2\n" }, "setup");
    await h.tool(TOKENS.b, "write", { path: "own.txt", content: "o1\n" }, "setup");
    await h.tool(TOKENS.a, "view", { path: "mixed.txt" }, "sA");
    await h.tool(TOKENS.a, "view", { path: "own.txt" }, "sA");
    await h.tool(TOKENS.a, "edit", { path: "mixed.txt", old_string: "m1", new_string: "M1" }, "sA");
    await h.tool(TOKENS.a, "edit", { path: "own.txt", old_string: "o1", new_string: "O1" }, "sA");
    await h.tool(TOKENS.b, "view", { path: "mixed.txt" }, "sB");
    await h.tool(TOKENS.b, "edit", { path: "mixed.txt", old_string: "m2", new_string: "M2 by B" }, "sB");
    await h.tool(TOKENS.a, "edit", { path: "mixed.txt", old_string: "M1", new_string: "M1!" }, "sA");
    await h.tool(TOKENS.a, "edit", { path: "own.txt", old_string: "O1", new_string: "O1!" }, "sA");

    const reply = await h.revert({ session: "sA" });
    expect(reply.ok).toBe(false);
    expect(reply.reverted).toEqual([{ path: "own.txt", action: "restored" }]);
    expect(reply.conflicts.map((c) => c.path)).toEqual(["mixed.txt"]);
    expect(h.read("own.txt")).toBe("o1\n");
    expect(h.read("mixed.txt")).toBe("M1!\nM2 by B\n");
    const [entry] = await h.revertEntries();
    expect(entry!.id).toBe(reply.change!);
    expect(entry!.changes.map((c) => c.path)).toEqual(["own.txt"]);
  });
});

describe("planRevert: the chain of a path's changes", () => {
  const s = fileState;
  test("a change whose before is not the previous change's after marks the step interleaved, with the last unbroken run", () => {
    const steps = planRevert([
      auditEntry("001", [{ path: "a", before: s("a0"), after: s("a1") }]),
      auditEntry("003", [{ path: "a", before: s("b2"), after: s("a3") }]),
      auditEntry("004", [{ path: "a", before: s("a3"), after: s("a4") }]),
      auditEntry("005", [{ path: "c", before: s("c0"), after: s("c1") }]),
    ]);
    expect(steps).toEqual([
      { path: "a", restore: s("a0"), expect: s("a4"), interleaved: { left: s("a1"), found: s("b2"), previous: "001", run: ["003", "004"], gaps: 1 } },
      { path: "c", restore: s("c0"), expect: s("c1") },
    ]);
  });

  test("a session that ended where it began is still interleaved when someone else wrote in between (undoing its last run gives their work back)", () => {
    const steps = planRevert([
      auditEntry("001", [{ path: "a", before: s("a0"), after: s("a1") }]),
      auditEntry("003", [{ path: "a", before: s("b2"), after: s("a0") }]),
    ]);
    expect(steps.map((x) => x.interleaved?.found)).toEqual([s("b2")]);
  });
});

describe("a session revert the quota refuses half-way (finding 3)", () => {
  /** Session s3 of agent-a shrinks big.txt and edits README.md; agent-b then fills the freed space. */
  async function setup() {
    const h = await hosted({ maxBytes: 8000, maxFiles: 20 });
    await h.tool(TOKENS.b, "write", { path: "big.txt", content: "b".repeat(3900) }, "setup");
    await h.tool(TOKENS.b, "write", { path: "README.md", content: "hello\n" }, "setup");
    await h.tool(TOKENS.a, "view", { path: "big.txt" }, "s3");
    await h.tool(TOKENS.a, "write", { path: "big.txt", content: "tiny\n" }, "s3");
    await h.tool(TOKENS.a, "view", { path: "README.md" }, "s3");
    await h.tool(TOKENS.a, "edit", { path: "README.md", old_string: "hello", new_string: "HELLO" }, "s3");
    await h.tool(TOKENS.b, "write", { path: "pad.txt", content: "p".repeat(7800) }, "setup");
    return h;
  }

  test("the file over the quota is a LIMIT_EXCEEDED conflict, untouched; the other is reverted, answered and recorded", async () => {
    const h = await setup();
    const reply = await h.revert({ session: "s3" });
    expect(reply.ok).toBe(false);
    expect(reply.reverted).toEqual([{ path: "README.md", action: "restored" }]);
    expect(reply.conflicts.map((c) => [c.path, c.code])).toEqual([["big.txt", "LIMIT_EXCEEDED"]]);
    const reason = reply.conflicts[0]!.reason;
    expect(reason).toContain("over the limit of 8000 bytes");
    expect(reason).toContain("PUT /v1/workspaces/ws?maxBytes=N");
    expect(reason).not.toContain("ask the operator");
    expect(h.read("README.md")).toBe("hello\n");
    expect(h.read("big.txt")).toBe("tiny\n");

    const entries = await h.revertEntries();
    expect(entries.length).toBe(1);
    expect(entries[0]!.id).toBe(reply.change!);
    expect(entries[0]!.code).toBe("LIMIT_EXCEEDED");
    expect(entries[0]!.changes.map((c) => c.path)).toEqual(["README.md"]);

    // The recovery as written: raise the quota, then the offered call for the one file.
    const raised = await h.request("PUT", "/v1/workspaces/ws?maxBytes=100000", TOKENS.platform);
    expect(raised.status).toBe(200);
    const retry = await h.revert(offeredCall(reason));
    expect(retry).toMatchObject({ ok: true, reverted: [{ path: "big.txt", action: "restored" }], conflicts: [] });
    expect(h.read("big.txt")).toBe("b".repeat(3900));
    expect(h.read("README.md")).toBe("hello\n");
  });

  test("the same session revert sent again once the quota allows it finishes the job: the file already reverted is unchanged, not a conflict", async () => {
    const h = await setup();
    const first = await h.revert({ session: "s3" });
    expect(first.conflicts.map((c) => c.code)).toEqual(["LIMIT_EXCEEDED"]);
    expect((await h.request("PUT", "/v1/workspaces/ws?maxBytes=100000", TOKENS.platform)).status).toBe(200);
    const again = await h.revert({ session: "s3" });
    expect(again).toMatchObject({ ok: true, conflicts: [] });
    expect(again.reverted).toEqual([
      { path: "README.md", action: "unchanged" },
      { path: "big.txt", action: "restored" },
    ]);
    expect(h.read("big.txt")).toBe("b".repeat(3900));
    expect(h.read("README.md")).toBe("hello\n");
    const entries = await h.revertEntries();
    expect(entries.map((e) => e.changes.map((c) => c.path))).toEqual([["README.md"], ["big.txt"]]);
  });

  test("shrinks are applied before growth, so a revert that fits in all is not refused for its order", async () => {
    const h = await hosted({ maxBytes: 8000, maxFiles: 20 });
    await h.tool(TOKENS.b, "write", { path: "a.txt", content: "a".repeat(3900) }, "setup");
    await h.tool(TOKENS.b, "write", { path: "b.txt", content: "b\n" }, "setup");
    await h.tool(TOKENS.a, "view", { path: "a.txt" }, "s4");
    await h.tool(TOKENS.a, "write", { path: "a.txt", content: "a\n" }, "s4");
    await h.tool(TOKENS.a, "view", { path: "b.txt" }, "s4");
    await h.tool(TOKENS.a, "write", { path: "b.txt", content: "B".repeat(3900) }, "s4");
    await h.tool(TOKENS.b, "write", { path: "pad.txt", content: "p".repeat(4000) }, "setup");

    const reply = await h.revert({ session: "s4" });
    expect(reply).toMatchObject({ ok: true, conflicts: [] });
    expect(reply.reverted.map((r) => r.path)).toEqual(["a.txt", "b.txt"]);
    expect(h.read("a.txt")).toBe("a".repeat(3900));
    expect(h.read("b.txt")).toBe("b\n");
  });
});
