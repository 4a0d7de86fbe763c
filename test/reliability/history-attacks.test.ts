/**
 * Red-team pass on the audit/history API, against a real `toolwarden serve`
 * with two workspaces (a token each) and its history in a state directory:
 * forged and cross-workspace change ids, revert racing a writer, a revert
 * whose file became a directory. Every check reads the bytes on disk.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createStorageHistory } from "../../src/history/mod.ts";
import { createS3Storage } from "../../src/storage/s3/mod.ts";
import type { HistoryReply, RestToolReply } from "../helpers/api-replies.ts";
import { type ServeProcess, startServe, tempDir } from "../helpers/cli.ts";
import { createFakeS3 } from "../helpers/s3-fake.ts";

const AGENT_A = "agent-a-token-0123456789";
const ADMIN_A = "admin-a-token-0123456789";
const AGENT_B = "agent-b-token-0123456789";
const AUDIT_B = "audit-b-token-0123456789";
const INTRUDER_A = "intruder-a-token-0123456";

const work = tempDir("tw-history-attacks-");
const wsA = join(work.path, "wsA");
const wsB = join(work.path, "wsB");
const state = join(work.path, "state");
let server: ServeProcess;

beforeAll(async () => {
  mkdirSync(wsA);
  mkdirSync(wsB);
  const config = join(work.path, "tw.json");
  writeFileSync(
    config,
    JSON.stringify({
      tokens: [
        { token: AGENT_A, scopes: ["read", "write"], label: "agent-a", workspace: wsA },
        { token: ADMIN_A, scopes: ["admin"], label: "admin-a", workspace: wsA },
        { token: AGENT_B, scopes: ["read", "write"], label: "agent-b", workspace: wsB },
        { token: AUDIT_B, scopes: ["audit"], label: "audit-b", workspace: wsB },
        { token: INTRUDER_A, scopes: ["read", "write"], label: "intruder-a", workspace: wsA },
      ],
    }),
  );
  server = await startServe([wsA, "--port", "0", "--config", config, "--state", state]);
});
afterAll(() => {
  server?.kill();
  work.remove();
});

async function tool(token: string, name: string, args: unknown, session: string): Promise<RestToolReply> {
  const response = await fetch(`${server.url}/v1/tools/${name}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, "x-session-id": session },
    body: JSON.stringify(args),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as RestToolReply;
}

async function api(path: string, body?: unknown): Promise<{ status: number; json: HistoryReply }> {
  const response = await fetch(`${server.url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${ADMIN_A}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as HistoryReply };
}

async function lastChangeOf(session: string): Promise<string> {
  const { json } = await api(`/v1/audit?changes=1&session=${session}`);
  return json.entries.at(-1)!.id;
}

describe("change ids are ids, never paths", () => {
  test("a forged entry written by an agent inside the workspace cannot be reverted by a '../' change id", async () => {
    const created = await tool(AGENT_A, "write", { path: "victim.txt", content: "precious\n" }, "forge");
    expect(created.isError).toBe(false);
    // An entry claiming victim.txt was created by it: reverting it would delete the file.
    const forged = {
      id: "x",
      time: new Date().toISOString(),
      principal: "nobody",
      session: "",
      tool: "write",
      paths: ["victim.txt"],
      code: "OK",
      changes: [{ path: "victim.txt", before: null, after: { version: created.facts!.version, blob: "0".repeat(64), size: 9 } }],
      bytes: 0,
      ms: 0,
    };
    expect((await tool(AGENT_A, "write", { path: "evil.json", content: JSON.stringify(forged) }, "forge")).isError).toBe(false);
    // state/workspaces/<hash>/audit/ -> four levels up is the work folder that holds wsA.
    for (const change of ["../../../../wsA/evil", "..%2f..%2f..%2f..%2fwsA%2fevil", "/../../../../wsA/evil"]) {
      const reply = await api("/v1/revert", { change });
      expect(reply.status).toBe(404);
      expect(reply.json.error.code).toBe("INVALID_ARGUMENT");
      expect(reply.json.error.message).toContain("GET /v1/audit?changes=1");
    }
    expect(readFileSync(join(wsA, "victim.txt"), "utf8")).toBe("precious\n");
  });

  test("workspace A's admin cannot reach workspace B's log through a '../<hash>/' change id", async () => {
    const written = await tool(AGENT_B, "write", { path: "b.txt", content: "bee\n" }, "b1");
    expect(written.isError).toBe(false);
    // The call is recorded after the reply; a read of B's log waits for what is queued before it.
    const logB = await fetch(`${server.url}/v1/audit`, { headers: { authorization: `Bearer ${AUDIT_B}` } });
    expect(logB.status).toBe(200);
    const folders = readdirSync(join(state, "workspaces"));
    const hashB = folders.find((f) => readFileSync(join(state, "workspaces", f, "workspace.json"), "utf8").includes("wsB"));
    expect(hashB).toBeString();
    const idB = ((await logB.json()) as HistoryReply).entries[0]!.id;
    // The same file exists in A with the same bytes, so B's entry would apply to it.
    expect((await tool(AGENT_A, "write", { path: "b.txt", content: "bee\n" }, "b1")).isError).toBe(false);
    const reply = await api("/v1/revert", { change: `../../${hashB}/audit/${idB}` });
    expect(reply.status).toBe(404);
    expect(readFileSync(join(wsA, "b.txt"), "utf8")).toBe("bee\n");
    expect(readFileSync(join(wsB, "b.txt"), "utf8")).toBe("bee\n");
    // A well-formed id of B's log is simply not in A's.
    const absent = await api("/v1/revert", { change: idB });
    expect(absent.status).toBe(404);
  });

  test("an S3 history never sends a key with '..' (a URL parser would climb out of the prefix)", async () => {
    const fake = createFakeS3();
    const bucket = await createS3Storage({
      endpoint: fake.endpoint,
      region: "us-east-1",
      bucket: fake.bucket,
      accessKeyId: "key",
      secretAccessKey: "secret",
      fetch: fake.fetch,
      prefix: "ws/.toolwarden/history/",
    });
    await fake.seed("ws/evil.json", JSON.stringify({ id: "x", changes: [] }));
    const history = createStorageHistory(bucket);
    const before = fake.requests.length;
    expect(await history.get("../../evil")).toBeUndefined();
    expect(fake.requests.slice(before).filter((r) => r.key?.includes("evil"))).toEqual([]);
  });
});

describe("session ids are the clients' choice", () => {
  test("another token reusing a session id: reverting that session refuses until a principal is named, then undoes only that one's changes", async () => {
    expect((await tool(AGENT_A, "write", { path: "mine.txt", content: "agent work\n" }, "shared")).isError).toBe(false);
    expect((await tool(INTRUDER_A, "write", { path: "theirs.txt", content: "intruder work\n" }, "shared")).isError).toBe(false);
    const mixed = await api("/v1/revert", { session: "shared" });
    expect(mixed.status).toBe(409);
    expect(mixed.json.error.message).toContain("agent-a, intruder-a");
    expect(mixed.json.error.message).toContain('{"session": "shared", "principal": "agent-a"}');
    expect(readFileSync(join(wsA, "mine.txt"), "utf8")).toBe("agent work\n");
    expect(readFileSync(join(wsA, "theirs.txt"), "utf8")).toBe("intruder work\n");

    const audit = await api("/v1/audit?changes=1&session=shared&principal=intruder-a");
    expect(audit.json.entries.map((e) => e.paths)).toEqual([["theirs.txt"]]);
    const reverted = await api("/v1/revert", { session: "shared", principal: "intruder-a" });
    expect(reverted.json).toMatchObject({ ok: true, reverted: [{ path: "theirs.txt", action: "deleted" }] });
    expect(existsSync(join(wsA, "theirs.txt"))).toBe(false);
    expect(readFileSync(join(wsA, "mine.txt"), "utf8")).toBe("agent work\n");
  });
});

describe("entry size", () => {
  test("a refused call with megabytes of paths is logged with at most 64 paths of 4096 characters", async () => {
    const huge = "p".repeat(6 * 1024 * 1024);
    const many = Array.from({ length: 50_000 }, (_, i) => `dir/${i}.txt`);
    expect((await tool(AGENT_A, "view", { path: huge }, "flood")).isError).toBe(true);
    expect((await tool(AGENT_A, "view", { path: "a.txt", paths: many }, "flood")).isError).toBe(true);
    const { json } = await api("/v1/audit?session=flood");
    expect(json.entries).toHaveLength(2);
    expect(json.entries[0].paths).toEqual([`${huge.slice(0, 4096)}…`]);
    expect(json.entries[1].paths).toHaveLength(64);
    const folder = readdirSync(join(state, "workspaces")).find((f) => readFileSync(join(state, "workspaces", f, "workspace.json"), "utf8").includes("wsA"))!;
    // As kept on disk: one line each in the workspace's audit segments.
    const segments = join(state, "workspaces", folder, "audit-log");
    const lines = readdirSync(segments).flatMap((name) => readFileSync(join(segments, name), "utf8").split("\n"));
    const sizes = json.entries.map((e) => Buffer.byteLength(lines.find((line) => line.startsWith(`{"id":"${e.id}"`))!));
    expect(Math.max(...sizes)).toBeGreaterThan(4096);
    expect(Math.max(...sizes)).toBeLessThan(300 * 1024);
  });
});

describe("revert against writers", () => {
  test("a revert racing a compare-and-swap write: exactly one wins, the winner's bytes are on disk (20 rounds)", async () => {
    const outcomes = new Map<string, number>();
    for (let i = 0; i < 20; i++) {
      const path = `race/f${i}.txt`;
      const created = i % 2 === 0;
      if (!created) expect((await tool(AGENT_A, "write", { path, content: "v0\n" }, `seed${i}`)).isError).toBe(false);
      await tool(AGENT_A, "view", { path }, `c${i}`);
      expect((await tool(AGENT_A, "write", { path, content: "v1\n" }, `c${i}`)).isError).toBe(false);
      const change = await lastChangeOf(`c${i}`);
      await tool(AGENT_A, "view", { path }, `w${i}`);
      const [revert, write] = await Promise.all([api("/v1/revert", { change }), tool(AGENT_A, "write", { path, content: "writer\n" }, `w${i}`)]);
      expect(revert.status).toBe(200);
      const onDisk = existsSync(join(wsA, path)) ? readFileSync(join(wsA, path), "utf8") : null;
      if (!write.isError) {
        // The writer's compare-and-swap landed: the revert must have stepped aside.
        expect(revert.json.ok).toBe(false);
        expect(revert.json.conflicts[0].path).toBe(path);
        expect(onDisk).toBe("writer\n");
      } else {
        expect(write.code).toBe("FS_STALE_VERSION");
        expect(revert.json.ok).toBe(true);
        expect(onDisk).toBe(created ? null : "v0\n");
      }
      const key = write.isError ? "revert" : "writer";
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    }
    expect([...outcomes.values()].reduce((a, b) => a + b, 0)).toBe(20);
  });

  test("a file that became a directory, or whose parent became a file, is a conflict and nothing is touched", async () => {
    expect((await tool(AGENT_A, "write", { path: "d", content: "file\n" }, "dir1")).isError).toBe(false);
    const change = await lastChangeOf("dir1");
    rmSync(join(wsA, "d"));
    mkdirSync(join(wsA, "d"));
    writeFileSync(join(wsA, "d", "inner.txt"), "inner\n");
    const reply = await api("/v1/revert", { change });
    expect(reply.json).toMatchObject({ ok: false, reverted: [], conflicts: [{ path: "d", reason: "it is a directory now" }] });
    expect(readFileSync(join(wsA, "d", "inner.txt"), "utf8")).toBe("inner\n");

    expect((await tool(AGENT_A, "write", { path: "p/q.txt", content: "q\n" }, "dir2")).isError).toBe(false);
    const second = await lastChangeOf("dir2");
    rmSync(join(wsA, "p"), { recursive: true });
    writeFileSync(join(wsA, "p"), "now a file\n");
    const again = await api("/v1/revert", { change: second });
    expect(again.status).toBe(200);
    expect(again.json.ok).toBe(false);
    expect(readFileSync(join(wsA, "p"), "utf8")).toBe("now a file\n");
  });
});
