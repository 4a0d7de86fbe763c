/** `/mcp` driven by the official MCP client over a real port, in both session modes. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { McpMode } from "../../src/http/mod.ts";
import { createMemoryObservationStore } from "../../src/policy/memory.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { jsonHeaders, startServer, TOKENS, type TestServer } from "../helpers/server.ts";

type CallResult = {
  content: Array<{ type: string; text: string }>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
};

const opened: Client[] = [];

async function connect(url: string, token: string, sessionId?: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    sessionId,
  });
  const client = new Client({ name: "toolwarden-test", version: "1.0.0" });
  await client.connect(transport);
  opened.push(client);
  return { client, transport };
}

async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<CallResult> {
  return (await client.callTool({ name, arguments: args })) as CallResult;
}

afterAll(async () => {
  await Promise.all(opened.map((c) => c.close().catch(() => {})));
});

for (const mode of ["stateful", "stateless"] as McpMode[]) {
  describe(`MCP ${mode}`, () => {
    let server: TestServer;
    beforeAll(() => {
      server = startServer({ mcp: { mode } });
    });
    afterAll(() => server.stop());

    test("initialize reports the server and a session id", async () => {
      const { client, transport } = await connect(server.url, TOKENS.full);
      expect(client.getServerVersion()).toMatchObject({ name: "toolwarden", version: "9.9.9-test" });
      expect(client.getServerCapabilities()?.tools).toBeDefined();
      // Stateful: a random UUID; stateless: a random UUID plus the tag of the token that owns it.
      expect(transport.sessionId).toMatch(mode === "stateful" ? /^[0-9a-f-]{36}$/ : /^[0-9a-f-]{36}\.[0-9a-f]{16}$/);
    });

    test("tools/list shows the generated schemas and annotations, filtered by scope", async () => {
      const { client } = await connect(server.url, TOKENS.full);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["view", "write", "note", "hang"]);
      const view = tools.find((t) => t.name === "view")!;
      expect(view.annotations).toMatchObject({ readOnlyHint: true });
      expect(view.inputSchema).toMatchObject({ type: "object", properties: { path: { type: "string", minLength: 1 } }, required: ["path"] });
      expect(tools.find((t) => t.name === "write")!.annotations).toMatchObject({ destructiveHint: true });

      const rest = await fetch(`${server.url}/v1/tools`, { headers: jsonHeaders(TOKENS.full) });
      const restTools = ((await rest.json()) as { tools: Array<{ name: string; inputSchema: unknown }> }).tools;
      for (const tool of tools) expect(tool.inputSchema).toEqual(restTools.find((t) => t.name === tool.name)!.inputSchema as never);

      const readOnly = await connect(server.url, TOKENS.readOnly);
      expect((await readOnly.client.listTools()).tools.map((t) => t.name)).toEqual(["view", "note", "hang"]);
    });

    test("tools/call success passes content through without an error code", async () => {
      const { client } = await connect(server.url, TOKENS.full);
      const wrote = await callTool(client, "write", { path: `${mode}/ok.txt`, content: "hi there" });
      expect(wrote.isError).toBe(false);
      expect(wrote._meta?.["toolwarden/code"]).toBeUndefined();
      const viewed = await callTool(client, "view", { path: `${mode}/ok.txt` });
      expect(viewed).toMatchObject({ isError: false, content: [{ type: "text", text: "hi there" }] });
    });

    test("tools/call failure carries isError and the code in _meta", async () => {
      const { client } = await connect(server.url, TOKENS.full);
      const result = await callTool(client, "view", { path: "nope.txt" });
      expect(result.isError).toBe(true);
      expect(result._meta?.["toolwarden/code"]).toBe("FS_NOT_FOUND");
      expect(result.content[0].text).toContain("No file at nope.txt");
    });

    test("bad arguments and unknown tools are results the model can read", async () => {
      const { client } = await connect(server.url, TOKENS.full);
      const bad = await callTool(client, "view", { file: "x" });
      expect(bad._meta?.["toolwarden/code"]).toBe("INVALID_ARGUMENT");
      const unknown = await callTool(client, "veiw", { path: "x" });
      expect(unknown.isError).toBe(true);
      expect(unknown.content[0].text).toContain("`view`");
    });

    test("notices follow the content as text blocks and sit in _meta", async () => {
      const { client } = await connect(server.url, TOKENS.full);
      const result = await callTool(client, "note", {});
      expect(result.content.map((b) => b.text)).toEqual(["done", "Heads up: a rule matched."]);
      expect(result._meta?.["toolwarden/notices"]).toEqual([{ text: "Heads up: a rule matched.", source: { kind: "plugin", plugin: "rules" } }]);
    });

    test("a read-only token's write is refused by the pipeline with FS_ACCESS_DENIED", async () => {
      const { client } = await connect(server.url, TOKENS.readOnly);
      const result = await callTool(client, "write", { path: "ro.txt", content: "x" });
      expect(result.isError).toBe(true);
      expect(result._meta?.["toolwarden/code"]).toBe("FS_ACCESS_DENIED");
      expect(await server.storages.get("ws1")?.stat("ro.txt")).toBeNull();
    });

    test("each MCP session has its own observations", async () => {
      const a = await connect(server.url, TOKENS.full);
      const b = await connect(server.url, TOKENS.full);
      expect((await callTool(a.client, "write", { path: `${mode}/shared.txt`, content: "1" })).isError).toBe(false);
      const refused = await callTool(b.client, "write", { path: `${mode}/shared.txt`, content: "2" });
      expect(refused._meta?.["toolwarden/code"]).toBe("FS_NOT_OBSERVED");
      expect((await callTool(a.client, "write", { path: `${mode}/shared.txt`, content: "3" })).isError).toBe(false);
    });

    test("a client reconnecting with its session id keeps its observations", async () => {
      const first = await connect(server.url, TOKENS.full);
      await callTool(first.client, "write", { path: `${mode}/resume.txt`, content: "1" });
      const again = await connect(server.url, TOKENS.full, first.transport.sessionId);
      expect((await callTool(again.client, "write", { path: `${mode}/resume.txt`, content: "2" })).isError).toBe(false);
    });

    test("/mcp needs a valid bearer token", async () => {
      await expect(connect(server.url, "wrong-token")).rejects.toThrow(/UNAUTHORIZED/);
      const response = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify(initialize(1)),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toStartWith("Bearer");
    });

    test("a body that is not JSON is a JSON-RPC parse error", async () => {
      const response = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: { ...mcpHeaders(TOKENS.full) },
        body: "{nope",
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32700);
    });

    test(`workspace files are resources: listed and read in the token's own workspace, subscriptions ${mode === "stateful" ? "offered (GET stream)" : "not offered (no stream)"}`, async () => {
      const { client } = await connect(server.url, TOKENS.full);
      expect(client.getServerCapabilities()?.resources).toEqual({ listChanged: false, subscribe: mode === "stateful" });
      await callTool(client, "write", { path: `${mode}/res.txt`, content: "resource text\n" });
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toContain(`file:///${mode}/res.txt`);
      const read = await client.readResource({ uri: `file:///${mode}/res.txt` });
      expect(read.contents).toEqual([{ uri: `file:///${mode}/res.txt`, mimeType: "text/plain", text: "resource text\n" }]);
      const other = await connect(server.url, TOKENS.other);
      expect((await other.client.listResources()).resources.map((r) => r.uri)).not.toContain(`file:///${mode}/res.txt`);
      await expect(other.client.readResource({ uri: `file:///${mode}/res.txt` })).rejects.toThrow(/Resource not found/);
    });

    if (mode === "stateless") {
      test("GET is 405: there is no server-initiated stream", async () => {
        const response = await fetch(`${server.url}/mcp`, { headers: { ...mcpHeaders(TOKENS.full), accept: "text/event-stream" } });
        expect(response.status).toBe(405);
        expect(response.headers.get("allow")).toBe("POST");
      });
    } else {
      test("GET needs the session's id, and only its own token gets the stream; one stream per session", async () => {
        const stream = (token: string, session?: string) =>
          fetch(`${server.url}/mcp`, { headers: { ...mcpHeaders(token, session), accept: "text/event-stream" } });
        const bare = await stream(TOKENS.full);
        expect(bare.status).toBe(400);
        expect(((await bare.json()) as { error: { message: string } }).error.message).toContain("Mcp-Session-Id");
        const id = await rawInitialize(server.url, TOKENS.full);
        // Another token naming the session is refused, as its POSTs are; so is an id never minted.
        expect((await stream(TOKENS.other, id)).status).toBe(404);
        expect((await stream(TOKENS.full, crypto.randomUUID())).status).toBe(404);
        const first = await stream(TOKENS.full, id);
        expect(first.status).toBe(200);
        expect(first.headers.get("content-type")).toBe("text/event-stream");
        // The status arrives with a first comment, before any notification.
        const reader = first.body!.getReader();
        expect(new TextDecoder().decode((await reader.read()).value)).toStartWith(":");
        // A second stream for the same session is a conflict while the first is open.
        const second = await stream(TOKENS.full, id);
        expect(second.status).toBe(409);
        // DELETE ends the session, and with it the open stream.
        const deleted = await fetch(`${server.url}/mcp`, { method: "DELETE", headers: mcpHeaders(TOKENS.full, id) });
        expect(deleted.status).toBe(200);
        let ended = false;
        for (let i = 0; i < 100 && !ended; i++) ended = (await reader.read()).done;
        expect(ended).toBe(true);
      });
    }
  });
}

function initialize(id: number) {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  };
}

function mcpHeaders(token: string, session?: string): Record<string, string> {
  return {
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...(session ? { "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" } : {}),
  };
}

async function rawInitialize(url: string, token: string): Promise<string> {
  const response = await fetch(`${url}/mcp`, { method: "POST", headers: mcpHeaders(token), body: JSON.stringify(initialize(1)) });
  expect(response.status).toBe(200);
  return response.headers.get("mcp-session-id")!;
}

describe("MCP stateful sessions", () => {
  let server: TestServer;
  beforeAll(() => {
    server = startServer({ mcp: { mode: "stateful" } });
  });
  afterAll(() => server.stop());

  const list = (token: string, session: string) =>
    fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: mcpHeaders(token, session),
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });

  test("a session cannot be used with another token (answered as not found)", async () => {
    const session = await rawInitialize(server.url, TOKENS.full);
    expect((await list(TOKENS.full, session)).status).toBe(200);
    const stolen = await list(TOKENS.other, session);
    expect(stolen.status).toBe(404);
    expect(((await stolen.json()) as { error: { message: string } }).error.message).toContain("initialize");
  });

  test("an id the server never minted is 404", async () => {
    expect((await list(TOKENS.full, crypto.randomUUID())).status).toBe(404);
  });

  test("a request without a session id that is not initialize is 400", async () => {
    const response = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: mcpHeaders(TOKENS.full),
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(response.status).toBe(400);
  });

  test("DELETE ends the session", async () => {
    const { transport } = await connect(server.url, TOKENS.full);
    const session = transport.sessionId!;
    await transport.terminateSession();
    expect((await list(TOKENS.full, session)).status).toBe(404);
  });

  test("the token's oldest idle session is closed when its share is full; another token's stays", async () => {
    const capped = startServer({ mcp: { mode: "stateful", maxSessionsPerToken: 2 } });
    try {
      const first = await rawInitialize(capped.url, TOKENS.full);
      const second = await rawInitialize(capped.url, TOKENS.full);
      const ask = (session: string) =>
        fetch(`${capped.url}/mcp`, {
          method: "POST",
          headers: mcpHeaders(TOKENS.full, session),
          body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
        });
      const others = await rawInitialize(capped.url, TOKENS.readOnly);
      expect((await ask(first)).status).toBe(200); // first is now the most recently used
      const third = await rawInitialize(capped.url, TOKENS.full);
      const othersAlive = await fetch(`${capped.url}/mcp`, {
        method: "POST",
        headers: mcpHeaders(TOKENS.readOnly, others),
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
      });
      expect(othersAlive.status).toBe(200);
      expect((await ask(second)).status).toBe(404);
      expect((await ask(first)).status).toBe(200);
      expect((await ask(third)).status).toBe(200);
    } finally {
      await capped.stop();
    }
  });
});

describe("MCP without auth", () => {
  test("a client connects and calls without a token", async () => {
    const server = startServer({ auth: { mode: "none", workspace: "ws1" } });
    try {
      const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`));
      const client = new Client({ name: "toolwarden-test", version: "1.0.0" });
      await client.connect(transport);
      opened.push(client);
      expect((await callTool(client, "write", { path: "open.txt", content: "x" })).isError).toBe(false);
    } finally {
      await server.stop();
    }
  });
});

describe("MCP stateless across isolates", () => {
  test("any instance serves a session minted by another, given shared observations", async () => {
    // Two apps stand in for two Worker isolates: they share storage and the observation store, nothing else.
    const observations = createMemoryObservationStore();
    const storage = createMemoryStorage();
    const shared = { mcp: { mode: "stateless" as const }, observations, storageFor: () => storage };
    const one = startServer(shared);
    const two = startServer(shared);
    try {
      const first = await connect(one.url, TOKENS.full);
      const session = first.transport.sessionId!;
      expect(session).toBeDefined();
      await callTool(first.client, "write", { path: "iso.txt", content: "1" });
      const elsewhere = await connect(two.url, TOKENS.full, session);
      expect((await callTool(elsewhere.client, "write", { path: "iso.txt", content: "2" })).isError).toBe(false);
      const stranger = await connect(two.url, TOKENS.full);
      expect((await callTool(stranger.client, "write", { path: "iso.txt", content: "3" }))._meta?.["toolwarden/code"]).toBe("FS_NOT_OBSERVED");
    } finally {
      await one.stop();
      await two.stop();
    }
  });

  test("requests without a session id act in the token's own session", async () => {
    const server = startServer({ mcp: { mode: "stateless" } });
    const call = (id: number, name: string, args: Record<string, unknown>) =>
      fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: { ...mcpHeaders(TOKENS.full), "mcp-protocol-version": "2025-06-18" },
        body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }),
      }).then(async (r) => ((await r.json()) as { result: CallResult }).result);
    try {
      expect((await call(1, "write", { path: "tok.txt", content: "1" })).isError).toBe(false);
      expect((await call(2, "write", { path: "tok.txt", content: "2" })).isError).toBe(false);
      const rest = await fetch(`${server.url}/v1/tools/write`, {
        method: "POST",
        headers: jsonHeaders(TOKENS.full),
        body: JSON.stringify({ path: "tok.txt", content: "3" }),
      });
      expect(((await rest.json()) as { isError: boolean }).isError).toBe(false);
    } finally {
      await server.stop();
    }
  });

  test("DELETE is 405 (nothing is kept to delete)", async () => {
    const server = startServer({ mcp: { mode: "stateless" } });
    try {
      const response = await fetch(`${server.url}/mcp`, { method: "DELETE", headers: mcpHeaders(TOKENS.full, crypto.randomUUID()) });
      expect(response.status).toBe(405);
    } finally {
      await server.stop();
    }
  });
});
