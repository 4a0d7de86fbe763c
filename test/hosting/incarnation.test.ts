/**
 * A workspace deleted and created again under the same name is a new
 * workspace: the tokens (agent, audit, workspace admin) and MCP sessions of
 * the old one do not reach it. Real `toolwarden serve --workspaces DIR`,
 * tokens from the real `toolwarden token mint` (minted before the DELETE, or
 * after it answered: ordered by the test, not by a clock).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, startServe, tempDir, type ServeProcess } from "../helpers/cli.ts";
import { admin, tarOf, tool } from "../helpers/hosting-flow.ts";

const SECRET = "7a1c2d0e9a8b7c6d5e4f30211203f4e5d6c7b8a9f0e1d2c3b4a5968778695a4c";
const env = { TW_JWT: SECRET };

async function mint(ws: string, scopes: string, label: string): Promise<string> {
  const done = await runCli(["token", "mint", "--key-env", "TW_JWT", "--workspace", ws, "--scopes", scopes, "--ttl", "1h", "--label", label], { env });
  expect(done.code).toBe(0);
  return done.stdout.trim();
}

const mcpHeaders = (token: string, session?: string): Record<string, string> => ({
  authorization: `Bearer ${token}`,
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  ...(session ? { "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" } : {}),
});

describe("tokens and sessions are bound to one creation of their workspace (real process)", () => {
  const dir = tempDir("tw-incarnation-");
  let server: ServeProcess;
  let root: string;
  beforeAll(async () => {
    server = await startServe(["--workspaces", dir.path, "--jwt-secret-env", "TW_JWT", "--port", "0", "--quiet"], { env });
    root = await mint("*", "admin", "platform");
  });
  afterAll(() => {
    server?.kill();
    dir.remove();
  });

  const put = async (ws: string, files: Record<string, string>) => {
    const response = await admin(server.url, root, "PUT", `/v1/workspaces/${ws}`, { body: (await tarOf(files)) as BodyInit, type: "application/gzip" });
    expect(response.status).toBe(201);
  };

  test("agent, audit and workspace-admin tokens of a deleted workspace are refused by the new one; tokens minted since work", async () => {
    await put("reuse", { "a.txt": "tenant 1\n" });
    const agent = await mint("reuse", "read,write", "tenant-1");
    const auditor = await mint("reuse", "audit", "tenant-1-audit");
    const wsAdmin = await mint("reuse", "admin", "tenant-1-admin");
    expect((await tool(server.url, agent, "view", { path: "a.txt" })).body.isError).toBe(false);
    expect((await admin(server.url, auditor, "GET", "/v1/audit")).status).toBe(200);
    expect((await admin(server.url, root, "DELETE", "/v1/workspaces/reuse")).status).toBe(200);

    // While the name is deleted, its admin token cannot create it again (it would own the next tenant's workspace).
    const recreate = await admin(server.url, wsAdmin, "PUT", "/v1/workspaces/reuse");
    expect(recreate.status).toBe(401);
    expect(existsSync(join(dir.path, "reuse"))).toBe(false);
    expect(existsSync(join(dir.path, ".toolwarden", "workspaces", "reuse.json"))).toBe(false);

    await put("reuse", { "SECRET.txt": "tenant 2 secret\n" });
    const read = await tool(server.url, agent, "view", { path: "SECRET.txt" });
    expect(read.status).toBe(401);
    const message = (read.body as unknown as { error: { code: string; message: string } }).error;
    expect(message.code).toBe("UNAUTHORIZED");
    expect(message.message).toContain('workspace "reuse" was deleted and created again');
    expect(message.message).toContain("mint a new token");
    expect(message.message).not.toContain("tenant 2");
    expect((await tool(server.url, agent, "write", { path: "planted.txt", content: "x\n" })).status).toBe(401);
    expect(existsSync(join(dir.path, "reuse", "planted.txt"))).toBe(false);
    expect((await admin(server.url, auditor, "GET", "/v1/audit")).status).toBe(401);
    expect((await admin(server.url, wsAdmin, "GET", "/v1/workspaces/reuse")).status).toBe(401);
    expect((await admin(server.url, wsAdmin, "GET", "/v1/workspaces/reuse/archive")).status).toBe(401);
    expect((await admin(server.url, wsAdmin, "DELETE", "/v1/workspaces/reuse")).status).toBe(401);
    expect(readFileSync(join(dir.path, "reuse", "SECRET.txt"), "utf8")).toBe("tenant 2 secret\n");

    // Minted after the DELETE answered: the new tenant's tokens work (the same label is no way back in for the old tokens).
    const tenant2 = await mint("reuse", "read,write", "tenant-1");
    expect((await tool(server.url, tenant2, "view", { path: "SECRET.txt" })).body.isError).toBe(false);
    const written = await tool(server.url, tenant2, "write", { path: "mine.txt", content: "mine\n" });
    expect(written.body.isError).toBe(false);
    expect(readFileSync(join(dir.path, "reuse", "mine.txt"), "utf8")).toBe("mine\n");
  });

  test("tokens of a workspace never deleted keep working, whenever they were minted", async () => {
    const early = await mint("kept", "read,write", "early");
    await put("kept", { "k.txt": "k\n" });
    await put("other", { "o.txt": "o\n" });
    expect((await admin(server.url, root, "DELETE", "/v1/workspaces/other")).status).toBe(200);
    expect((await tool(server.url, early, "view", { path: "k.txt" })).body.isError).toBe(false);
  });

  test("MCP sessions of a deleted workspace end with it: the open stream closes, the session id is unknown to the new one", async () => {
    await put("mcpws", { "secret.txt": "one\n" });
    const agent = await mint("mcpws", "read,write", "mcp-agent");
    const init = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: mcpHeaders(agent),
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      }),
    });
    expect(init.status).toBe(200);
    const session = init.headers.get("mcp-session-id")!;
    const rpc = (token: string, body: unknown) =>
      fetch(`${server.url}/mcp`, { method: "POST", headers: mcpHeaders(token, session), body: JSON.stringify(body) });
    expect((await rpc(agent, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
    const subscribed = await rpc(agent, { jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: "file:///secret.txt" } });
    expect(subscribed.status).toBe(200);
    const stream = await fetch(`${server.url}/mcp`, { headers: { ...mcpHeaders(agent, session), accept: "text/event-stream" } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toStartWith(":");

    expect((await admin(server.url, root, "DELETE", "/v1/workspaces/mcpws")).status).toBe(200);
    let ended = false;
    for (let i = 0; i < 100 && !ended; i++) ended = (await reader.read()).done;
    expect(ended).toBe(true);

    await put("mcpws", { "secret.txt": "two\n" });
    // The same agent with a token minted since (the same principal) cannot pick the old session up.
    const fresh = await mint("mcpws", "read,write", "mcp-agent");
    const call = await rpc(fresh, { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "view", arguments: { path: "secret.txt" } } });
    expect(call.status).toBe(404);
    expect(await call.text()).not.toContain("two");
    expect((await rpc(agent, { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "view", arguments: { path: "secret.txt" } } })).status).toBe(401);
  });
});
