/**
 * Who a signed token is. Its principal id (observation sessions, MCP
 * sessions, bounded shares) hashes kid, sub, ws and scopes, and
 * `token mint` gives each unlabelled token a sub of its own, so:
 *
 * - a read-only token viewing a file cannot refresh a writer's observation:
 *   the writer's stale whole-file write stays refused (FS_STALE_VERSION) and
 *   the third writer's bytes stay on disk (repro 1), whether the tokens come
 *   from `token mint` without `--label` or from a platform that signs them
 *   without `sub`;
 * - the read-only token gets 404 on the writer's `Mcp-Session-Id`, stateful
 *   (the real server) and stateless (the Worker's mode) (repro 2);
 * - an audit read for a workspace that does not exist is 404 and creates
 *   nothing.
 *
 * The repros run against the real `toolwarden serve --workspaces DIR`
 * process with tokens minted by the real `toolwarden token mint`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { SignJWT } from "jose";
import { mintToken, secretBytes, type SigningKey } from "../../src/cli/mint.ts";
import { createApp } from "../../src/http/app.ts";
import { createAuthenticator, type Principal, signedPrincipalId } from "../../src/http/auth.ts";
import { jsHasher } from "../../src/hash/js.ts";
import { createMemoryObservationStore } from "../../src/policy/memory.ts";
import type { Scope } from "../../src/scopes.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { fileTools } from "../../src/tools/mod.ts";
import { runCli, startServe, tempDir, type ServeProcess } from "../helpers/cli.ts";
import { admin as adminCall, tarOf } from "../helpers/hosting-flow.ts";
import { codeOf, mcpCode, mcpOpen, mcpResult, mcpSend, mcpToolCall, send, toolResult } from "../helpers/reliability/http.ts";

const SECRET = "9c1e5d2f7a3b8c4d6e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d";
const env = { TW_JWT: SECRET };
const key: SigningKey = { alg: "HS256", secret: secretBytes(SECRET) };
const auth = createAuthenticator({ mode: "bearer", tokens: [], jwt: { keys: [{ alg: "HS256", secret: secretBytes(SECRET) }] } });

async function principalOf(token: string): Promise<Principal> {
  const outcome = await auth.authenticate(`Bearer ${token}`);
  if (!outcome.ok) throw new Error(`refused: ${outcome.failure}`);
  return outcome.principal;
}

/** A token as a platform might sign it: no `sub` at all. */
function subless(workspace: string, scope: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ ws: workspace, scope })
    .setProtectedHeader({ alg: "HS256" })
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(secretBytes(SECRET));
}

describe("the principal of a signed token", () => {
  test("scopes are part of it: a read-only token is never the writer's principal, even without sub", async () => {
    const writer = await principalOf(await subless("ws1", "read write"));
    const reordered = await principalOf(await subless("ws1", "write read write"));
    const reader = await principalOf(await subless("ws1", "read"));
    expect(reordered.id).toBe(writer.id);
    expect(reader.id).not.toBe(writer.id);
    expect([...writer.scopes]).toEqual(["read", "write"]);
    expect([...reordered.scopes]).toEqual(["read", "write"]);
  });

  test("one function gives it (the Worker's stateless MCP tags use the same principal id)", async () => {
    const token = await mintToken(key, { workspace: "ws1", scopes: ["write", "read"], ttlSeconds: 600, label: "agent-1" });
    const scopes: Scope[] = ["read", "write"];
    expect((await principalOf(token)).id).toBe(await signedPrincipalId({ sub: "agent-1", workspace: "ws1", scopes }));
    expect(await signedPrincipalId({ sub: "agent-1", workspace: "ws1", scopes: ["write", "read"] })).toBe(
      await signedPrincipalId({ sub: "agent-1", workspace: "ws1", scopes }),
    );
  });

  test("mintToken without a label: each token its own sub and principal; with one: stable across tokens", async () => {
    const claims = { workspace: "ws1", scopes: ["read", "write"] as Scope[], ttlSeconds: 600 };
    const a = await principalOf(await mintToken(key, claims));
    const b = await principalOf(await mintToken(key, claims));
    expect(a.label).toMatch(/^anon-[0-9a-f]{32}$/);
    expect(b.label).not.toBe(a.label);
    expect(b.id).not.toBe(a.id);
    const first = await principalOf(await mintToken(key, { ...claims, label: "agent-1" }));
    const again = await principalOf(await mintToken(key, { ...claims, ttlSeconds: 300, label: "agent-1" }));
    expect(again.id).toBe(first.id);
    expect(first.label).toBe("agent-1");
  });
});

describe("stateless MCP (the Worker's mode), in process", () => {
  const app = createApp({
    tools: fileTools,
    auth: { mode: "bearer", tokens: [], jwt: { keys: [{ alg: "HS256", secret: secretBytes(SECRET) }] } },
    storageFor: () => storage,
    observations: createMemoryObservationStore(),
    hasher: jsHasher,
    version: "test",
    mcp: { mode: "stateless" },
  });
  const storage = createMemoryStorage();
  const rpc = (token: string, message: unknown, session?: string) =>
    app.fetch(
      new Request("http://127.0.0.1/mcp", {
        method: "POST",
        headers: {
          host: "127.0.0.1",
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-06-18",
          ...(session ? { "mcp-session-id": session } : {}),
        },
        body: JSON.stringify(message),
      }),
    );

  test("a read-only token without sub gets 404 on a writer's session id", async () => {
    const writer = await subless("ws1", "read write");
    const reader = await subless("ws1", "read");
    const init = await rpc(writer, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    expect(init.status).toBe(200);
    const session = init.headers.get("mcp-session-id")!;
    expect(session).toBeTruthy();
    const view = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "view", arguments: { path: "." } } };
    expect((await rpc(writer, view, session)).status).toBe(200);
    const hijack = await rpc(reader, view, session);
    expect(hijack.status).toBe(404);
    expect(await hijack.text()).toContain("belongs to another token");
  });
});

/** Every path under `dir` (directories end with /), sorted, but for the workspace `shared` (whose log other tests' calls may still be writing). */
function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const full = join(at, name);
      if (statSync(full).isDirectory()) {
        out.push(`${relative(dir, full)}/`);
        walk(full);
      } else out.push(relative(dir, full));
    }
  };
  walk(dir);
  return out.filter((path) => !path.startsWith("shared/")).sort();
}

describe("serve --workspaces DIR with signed tokens (real process)", () => {
  const dir = tempDir("tw-principals-");
  let server: ServeProcess;
  let admin: string;
  beforeAll(async () => {
    server = await startServe(["--workspaces", dir.path, "--jwt-secret-env", "TW_JWT", "--port", "0", "--quiet"], { env });
    admin = await mint(["--workspace", "*", "--scopes", "admin", "--label", "platform"]);
    const created = await adminCall(server.url, admin, "PUT", "/v1/workspaces/shared", {
      body: (await tarOf({ "rest.txt": "v1\n", "subless.txt": "v1\n", "mcp.txt": "v1\n" })) as BodyInit,
      type: "application/gzip",
    });
    expect(created.status).toBe(201);
  }, 30_000);
  afterAll(() => {
    server?.kill();
    dir.remove();
  });

  /** `token mint` through the real CLI; without --label it must say which sub it chose, on stderr only. */
  async function mint(args: string[]): Promise<string> {
    const done = await runCli(["token", "mint", "--key-env", "TW_JWT", "--ttl", "1h", ...args], { env });
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const token = done.stdout.trim();
    if (args.includes("--label")) expect(done.stderr).toBe("");
    else expect(done.stderr).toContain(`sub is ${(await principalOf(token)).label}`);
    return token;
  }

  /** A REST tool call with no X-Session-Id: the token's default session. */
  const call = async (token: string, tool: string, args: unknown) => toolResult(await send(new URL(`/v1/tools/${tool}`, server.url), args, { token }));
  const onDisk = (path: string) => readFileSync(join(dir.path, "shared", path), "utf8");

  /** Repro 1: W views, X changes, W's stale write is refused; R views; W's stale write must still be refused. */
  async function staleWriteStaysRefused(w: string, x: string, r: string, path: string): Promise<void> {
    expect(codeOf(await call(w, "view", { path }))).toBe("ok");
    expect(codeOf(await call(x, "view", { path }))).toBe("ok");
    expect(codeOf(await call(x, "write", { path, content: "X's change\n" }))).toBe("ok");
    expect(codeOf(await call(w, "write", { path, content: "W's stale copy\n" }))).toBe("FS_STALE_VERSION");
    // The read-only token views the new version, in its own default session.
    expect(codeOf(await call(r, "view", { path }))).toBe("ok");
    expect(codeOf(await call(w, "write", { path, content: "W's stale copy\n" }))).toBe("FS_STALE_VERSION");
    expect(onDisk(path)).toBe("X's change\n");
  }

  test("unlabelled minted tokens are distinct principals; labelled ones are one agent", async () => {
    const a = await mint(["--workspace", "shared", "--scopes", "read,write"]);
    const b = await mint(["--workspace", "shared", "--scopes", "read,write"]);
    expect((await principalOf(a)).id).not.toBe((await principalOf(b)).id);
    const l1 = await mint(["--workspace", "shared", "--scopes", "read,write", "--label", "agent-1"]);
    const l2 = await mint(["--workspace", "shared", "--scopes", "write,read", "--label", "agent-1"]);
    expect((await principalOf(l2)).id).toBe((await principalOf(l1)).id);
    // Stable on the server too: a view under one token lets a write under the other through.
    expect(codeOf(await call(l1, "view", { path: "rest.txt" }))).toBe("ok");
    expect(codeOf(await call(l2, "write", { path: "labelled.txt", content: "new\n" }))).toBe("ok");
  }, 30_000);

  test("repro 1, tokens from `token mint` without --label: a read-only token's view does not let a stale write through", async () => {
    const w = await mint(["--workspace", "shared", "--scopes", "read,write"]);
    const x = await mint(["--workspace", "shared", "--scopes", "read,write"]);
    const r = await mint(["--workspace", "shared", "--scopes", "read"]);
    await staleWriteStaysRefused(w, x, r, "rest.txt");
  }, 30_000);

  test("repro 1, tokens signed without sub: scopes alone keep the reader apart", async () => {
    const w = await subless("shared", "read write");
    const x = await subless("shared", "read write exec");
    const r = await subless("shared", "read");
    await staleWriteStaysRefused(w, x, r, "subless.txt");
  });

  test("repro 2: the read-only token gets 404 on the writer's MCP session", async () => {
    const w = `Bearer ${await mint(["--workspace", "shared", "--scopes", "read,write"])}`;
    const r = `Bearer ${await mint(["--workspace", "shared", "--scopes", "read"])}`;
    const session = await mcpOpen(server.url, w);
    expect(mcpCode(mcpResult(await mcpSend(server.url, mcpToolCall("view", { path: "mcp.txt" }), { authorization: w, session })))).toBe("ok");
    const hijack = await mcpSend(server.url, mcpToolCall("view", { path: "mcp.txt" }), { authorization: r, session });
    expect(hijack.status).toBe(404);
    expect(hijack.text).toContain("belongs to another token");
    // Signed without sub, only the scopes differ: still 404.
    const rSubless = `Bearer ${await subless("shared", "read")}`;
    const wSubless = `Bearer ${await subless("shared", "read write")}`;
    const other = await mcpOpen(server.url, wSubless);
    expect((await mcpSend(server.url, mcpToolCall("view", { path: "mcp.txt" }), { authorization: rSubless, session: other })).status).toBe(404);
    // The writer's session is untouched.
    expect(mcpCode(mcpResult(await mcpSend(server.url, mcpToolCall("view", { path: "mcp.txt" }), { authorization: w, session })))).toBe("ok");
  }, 30_000);

  test("audit and history reads for a workspace that does not exist: 404, and nothing is created", async () => {
    const before = listing(dir.path);
    const auditor = await subless("ghost", "audit");
    const ghostAdmin = await subless("ghost", "admin");
    const get = (token: string, path: string) => send(new URL(path, server.url), undefined, { token, method: "GET" });
    for (const path of ["/v1/audit", "/v1/history?path=a.txt", "/v1/history/content?path=a.txt&version=v"]) {
      const reply = await get(auditor, path);
      expect(reply.status).toBe(404);
      expect(reply.json).toMatchObject({ error: { code: "FS_NOT_FOUND", message: expect.stringContaining('workspace "ghost" does not exist') } });
    }
    const revert = await send(new URL("/v1/revert", server.url), { session: "s" }, { token: ghostAdmin });
    expect(revert.status).toBe(404);
    // A global admin token has no audit log of its own.
    const global = await get(admin, "/v1/audit");
    expect(global.status).toBe(403);
    expect(global.text).toContain("Mint a token for the workspace");
    // The inspector, signed in with that token, reads the same history: it must not create it either.
    const signin = await fetch(new URL("/ui/signin", server.url), {
      method: "POST",
      redirect: "manual",
      headers: { origin: server.url, "content-type": "application/x-www-form-urlencoded" },
      body: `token=${encodeURIComponent(auditor)}`,
    });
    const cookie = signin.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    expect(cookie).not.toBe("");
    for (const page of ["/ui", "/ui/sessions", "/ui/files"]) await (await fetch(new URL(page, server.url), { headers: { cookie } })).text();
    expect(existsSync(join(dir.path, "ghost"))).toBe(false);
    expect(listing(dir.path)).toEqual(before);
    // An existing workspace's log still answers.
    expect((await get(await subless("shared", "audit"), "/v1/audit")).status).toBe(200);
  });
});
