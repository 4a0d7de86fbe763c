/**
 * A plain request on a live stateful session is answered past the SDK
 * transport (src/http/mcp-direct.ts): the answers must be the transport's
 * answers, what it refuses must still be refused in its words, and a
 * session closed under a running request must answer it rather than leave
 * it waiting.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { plainRequest } from "../../src/http/mcp-direct.ts";
import { startServer, TOKENS, type TestServer } from "../helpers/server.ts";

const VERSION = "2025-06-18";

function headers(session?: string, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    authorization: `Bearer ${TOKENS.full}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...(session ? { "mcp-session-id": session, "mcp-protocol-version": VERSION } : {}),
    ...overrides,
  };
}

async function post(url: string, body: unknown, session?: string, overrides?: Record<string, string>): Promise<Response> {
  return fetch(`${url}/mcp`, { method: "POST", headers: headers(session, overrides), body: JSON.stringify(body) });
}

/** An initialized session of `url`: its id (undefined in stateless mode, where the header is echoed). */
async function open(url: string): Promise<string> {
  const init = await post(url, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: "direct-test", version: "1" } },
  });
  expect(init.status).toBe(200);
  const session = init.headers.get("mcp-session-id")!;
  expect((await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, session)).status).toBe(202);
  return session;
}

const call = (id: number | string, name: string, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

describe("MCP stateful: requests answered directly", () => {
  let stateful: TestServer;
  let stateless: TestServer;
  beforeAll(() => {
    stateful = startServer({ mcp: { mode: "stateful" } });
    stateless = startServer({ mcp: { mode: "stateless" } });
  });
  afterAll(async () => {
    await stateful.stop();
    await stateless.stop();
  });

  test("a call, a listing and an unknown method answer exactly as the transport does", async () => {
    const mine = await open(stateful.url);
    const theirs = await open(stateless.url);
    const requests = [
      call(1, "write", { path: "a.txt", content: "one\n" }),
      call("two", "view", { path: "a.txt" }),
      call(3, "view", { path: "missing.txt" }),
      { jsonrpc: "2.0", id: 4, method: "tools/list" },
      { jsonrpc: "2.0", id: 5, method: "no/such/method" },
      { jsonrpc: "2.0", id: 6, method: "ping" },
    ];
    for (const request of requests) {
      const direct = await post(stateful.url, request, mine);
      const transport = await post(stateless.url, request, theirs);
      expect(direct.status).toBe(transport.status);
      expect(direct.headers.get("content-type")).toBe(transport.headers.get("content-type"));
      expect(direct.headers.get("mcp-session-id")).toBe(mine);
      expect(await direct.json()).toEqual(await transport.json());
    }
  });

  test("what the transport refuses is still refused, in its words", async () => {
    const session = await open(stateful.url);
    const ping = { jsonrpc: "2.0", id: 9, method: "ping" };
    const onlyJson = await post(stateful.url, ping, session, { accept: "application/json" });
    expect(onlyJson.status).toBe(406);
    const text = await post(stateful.url, ping, session, { "content-type": "text/plain" });
    expect(text.status).toBe(415);
    const version = await post(stateful.url, ping, session, { "mcp-protocol-version": "1999-01-01" });
    expect(version.status).toBe(400);
    expect(((await version.json()) as { error: { message: string } }).error.message).toContain("Unsupported protocol version");
    const noVersion = { "mcp-protocol-version": "" };
    expect((await post(stateful.url, ping, session, noVersion)).status).toBe(400);
    // A malformed message is the transport's to word: a JSON-RPC parse error.
    const malformed = await post(stateful.url, { jsonrpc: "1.0", id: 1, method: "ping" }, session);
    expect(malformed.status).toBe(400);
  });

  test("a session deleted while a request runs answers it 404 instead of leaving it waiting", async () => {
    const session = await open(stateful.url);
    const running = post(stateful.url, call(7, "hang", {}), session);
    // The call is in the tool once the session answers a later request.
    expect((await post(stateful.url, { jsonrpc: "2.0", id: 8, method: "ping" }, session)).status).toBe(200);
    const deleted = await fetch(`${stateful.url}/mcp`, { method: "DELETE", headers: headers(session) });
    expect(deleted.status).toBe(200);
    const answer = await running;
    expect(answer.status).toBe(404);
    expect(((await answer.json()) as { error: { message: string } }).error.message).toContain("initialize");
    expect((await post(stateful.url, { jsonrpc: "2.0", id: 10, method: "ping" }, session)).status).toBe(404);
  });
});

describe("plainRequest", () => {
  test("takes one request with an id, a method and object params", () => {
    expect(plainRequest({ jsonrpc: "2.0", id: 1, method: "ping" })).toBeDefined();
    expect(plainRequest({ jsonrpc: "2.0", id: "x", method: "tools/call", params: { name: "view" } })).toBeDefined();
  });

  test("leaves the rest to the transport", () => {
    const refused: unknown[] = [
      [{ jsonrpc: "2.0", id: 1, method: "ping" }],
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 1, method: "initialize", params: {} },
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: 1.5, method: "ping" },
      { jsonrpc: "2.0", id: null, method: "ping" },
      { jsonrpc: "2.0", id: 1, method: "ping", params: [1] },
      { jsonrpc: "2.0", id: 1, method: 7 },
      { id: 1, method: "ping" },
      null,
      "ping",
    ];
    for (const body of refused) expect(plainRequest(body)).toBeUndefined();
  });
});
