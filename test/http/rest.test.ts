/** The REST surface on a real server: what harness authors see for each kind of request. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jsHasher } from "../../src/hash/js.ts";
import { createApp, type HttpCallInfo } from "../../src/http/mod.ts";
import { addNotices, createPipeline } from "../../src/pipeline/mod.ts";
import { createMemoryObservationStore } from "../../src/policy/memory.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { fakeTools, jsonHeaders, startServer, TOKENS, type TestServer } from "../helpers/server.ts";

let server: TestServer;
const calls: HttpCallInfo[] = [];

beforeAll(() => {
  server = startServer({ onCall: (info) => calls.push(info), limits: { maxBodyBytes: 1024, callTimeoutMs: 50 } });
});
afterAll(() => server.stop());

function call(tool: string, body: unknown, token: string | null = TOKENS.full, session?: string) {
  return fetch(`${server.url}/v1/tools/${tool}`, {
    method: "POST",
    headers: jsonHeaders(token ?? undefined, session),
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function expectError(response: Response, status: number, code: string): Promise<string> {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toContain("application/json");
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe(code);
  expect(body.error.message.length).toBeGreaterThan(20);
  return body.error.message;
}

describe("healthz", () => {
  test("answers ok and the version without a token", async () => {
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, version: "9.9.9-test" });
  });
});

describe("GET /v1/tools", () => {
  test("lists the tools with generated JSON Schemas, scopes and annotations", async () => {
    const response = await fetch(`${server.url}/v1/tools`, { headers: jsonHeaders(TOKENS.full) });
    expect(response.status).toBe(200);
    const { tools } = (await response.json()) as { tools: Array<Record<string, unknown>> };
    expect(tools.map((t) => t.name)).toEqual(["view", "write", "note", "hang"]);
    const view = tools.find((t) => t.name === "view")!;
    expect(view.scope).toBe("read");
    expect(view.annotations).toEqual({ readOnlyHint: true });
    expect(view.inputSchema).toMatchObject({
      type: "object",
      properties: { path: { type: "string", minLength: 1, description: "Workspace-relative file path" } },
      required: ["path"],
      additionalProperties: false,
    });
    const write = tools.find((t) => t.name === "write")!;
    expect(write.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
  });

  test("a read-only token is offered only the read tools", async () => {
    const response = await fetch(`${server.url}/v1/tools`, { headers: jsonHeaders(TOKENS.readOnly) });
    const { tools } = (await response.json()) as { tools: Array<{ name: string }> };
    expect(tools.map((t) => t.name)).toEqual(["view", "note", "hang"]);
  });
});

describe("POST /v1/tools/:name", () => {
  test("a successful call is 200 with the result shape", async () => {
    const response = await call("write", { path: "a.txt", content: "hello" });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ isError: false, content: [{ type: "text", text: "wrote a.txt" }] });
    const view = await call("view", { path: "a.txt" });
    expect(await view.json()).toEqual({ isError: false, content: [{ type: "text", text: "hello" }] });
  });

  test("a tool failure is 200 with isError and the code", async () => {
    const response = await call("view", { path: "missing.txt" });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({ isError: true, code: "FS_NOT_FOUND", content: [{ type: "text", text: "No file at missing.txt. Create it with write." }] });
  });

  test("bad arguments are the pipeline's model-facing INVALID_ARGUMENT result, not an HTTP error", async () => {
    const response = await call("view", { path: "a.txt", bogus: 1 });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { isError: boolean; code: string };
    expect(body.isError).toBe(true);
    expect(body.code).toBe("INVALID_ARGUMENT");
  });

  test("notices pass through", async () => {
    const body = (await (await call("note", {})).json()) as Record<string, unknown>;
    expect(body.notices).toEqual([{ text: "Heads up: a rule matched.", source: { kind: "plugin", plugin: "rules" } }]);
  });

  test("a read-only token's write is the pipeline's FS_ACCESS_DENIED result", async () => {
    const response = await call("write", { path: "b.txt", content: "x" }, TOKENS.readOnly);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { isError: boolean; code: string; content: Array<{ text: string }> };
    expect(body.isError).toBe(true);
    expect(body.code).toBe("FS_ACCESS_DENIED");
    expect(body.content[0].text).toContain("read-only");
    expect(await server.storages.get("ws1")!.stat("b.txt")).toBeNull();
  });

  test("the call timeout reaches the pipeline: a hanging tool is stopped with TIMEOUT", async () => {
    const body = (await (await call("hang", {})).json()) as { code: string };
    expect(body.code).toBe("TIMEOUT");
  });

  test("malformed JSON is 400 INVALID_ARGUMENT", async () => {
    const message = await expectError(await call("view", '{"path": '), 400, "INVALID_ARGUMENT");
    expect(message).toContain("not valid JSON");
  });

  test("a wrong content type is 400 INVALID_ARGUMENT naming the right one", async () => {
    const response = await fetch(`${server.url}/v1/tools/view`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKENS.full}`, "content-type": "text/plain" },
      body: JSON.stringify({ path: "a.txt" }),
    });
    const message = await expectError(response, 400, "INVALID_ARGUMENT");
    expect(message).toContain("application/json");
  });

  test("a JSON content type with parameters is accepted", async () => {
    const response = await fetch(`${server.url}/v1/tools/view`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKENS.full}`, "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify({ path: "a.txt" }),
    });
    expect(response.status).toBe(200);
  });

  test("an unknown tool is 404 with a suggestion and the tool list", async () => {
    const message = await expectError(await call("veiw", { path: "a.txt" }), 404, "INVALID_ARGUMENT");
    expect(message).toContain('Did you mean "view"?');
    expect(message).toContain("view, write");
  });

  test("a body over the limit is 413 LIMIT_EXCEEDED, declared or streamed", async () => {
    const big = JSON.stringify({ path: "big.txt", content: "x".repeat(2000) });
    const message = await expectError(await call("write", big), 413, "LIMIT_EXCEEDED");
    expect(message).toContain("1024-byte limit");

    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const streamed = await fetch(`${server.url}/v1/tools/write`, {
      method: "POST",
      headers: jsonHeaders(TOKENS.full),
      body: chunks,
    });
    await expectError(streamed, 413, "LIMIT_EXCEEDED");
    expect(await server.storages.get("ws1")!.stat("big.txt")).toBeNull();
  });

  test("the body limit covers /mcp too", async () => {
    const response = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { ...jsonHeaders(TOKENS.full), accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(2000) } }),
    });
    await expectError(response, 413, "LIMIT_EXCEEDED");
  });

  test("another method than POST is 405 with Allow", async () => {
    const response = await fetch(`${server.url}/v1/tools/view`, { headers: jsonHeaders(TOKENS.full) });
    await expectError(response, 405, "INVALID_ARGUMENT");
    expect(response.headers.get("allow")).toBe("POST");
  });

  test("an unknown route is 404 listing the routes", async () => {
    const message = await expectError(await fetch(`${server.url}/v2/nothing`), 404, "INVALID_ARGUMENT");
    expect(message).toContain("POST /v1/tools/{name}");
  });

  test("onCall logs the transport, tool, outcome, workspace and label, never the token", async () => {
    calls.length = 0;
    await call("view", { path: "missing.txt" });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ transport: "rest", tool: "view", isError: true, code: "FS_NOT_FOUND", workspace: "ws1", principal: "full" });
    expect(calls[0].ms).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(calls)).not.toContain(TOKENS.full);
  });
});

describe("authentication", () => {
  test("no token is 401 with a Bearer challenge", async () => {
    for (const response of [await call("view", { path: "a.txt" }, null), await fetch(`${server.url}/v1/tools`)]) {
      const message = await expectError(response, 401, "UNAUTHORIZED");
      expect(response.headers.get("www-authenticate")).toStartWith("Bearer");
      expect(message).toContain("Authorization: Bearer");
    }
  });

  test("a wrong token is 401 invalid_token, and does nothing", async () => {
    const response = await call("write", { path: "c.txt", content: "x" }, "tok-full-0123456789abcdeX");
    await expectError(response, 401, "UNAUTHORIZED");
    expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(await server.storages.get("ws1")!.stat("c.txt")).toBeNull();
  });

  test("a non-bearer Authorization header is 401 saying what to send", async () => {
    const response = await fetch(`${server.url}/v1/tools`, { headers: { authorization: `Basic ${btoa("a:b")}` } });
    const message = await expectError(response, 401, "UNAUTHORIZED");
    expect(message).toContain("Bearer <token>");
  });

  test("the scheme is case-insensitive", async () => {
    const response = await fetch(`${server.url}/v1/tools`, { headers: { authorization: `bearer ${TOKENS.full}` } });
    expect(response.status).toBe(200);
  });
});

describe("sessions", () => {
  test("two X-Session-Id values keep separate observations", async () => {
    // Created by session A, so A has observed it; B never has.
    expect(((await (await call("write", { path: "s.txt", content: "1" }, TOKENS.full, "A")).json()) as { isError: boolean }).isError).toBe(false);
    const b = (await (await call("write", { path: "s.txt", content: "2" }, TOKENS.full, "B")).json()) as { code?: string };
    expect(b.code).toBe("FS_NOT_OBSERVED");
    const a = (await (await call("write", { path: "s.txt", content: "3" }, TOKENS.full, "A")).json()) as { isError: boolean };
    expect(a.isError).toBe(false);
    // B catches up by viewing, as the model would.
    await call("view", { path: "s.txt" }, TOKENS.full, "B");
    const again = (await (await call("write", { path: "s.txt", content: "4" }, TOKENS.full, "B")).json()) as { isError: boolean };
    expect(again.isError).toBe(false);
  });

  test("without the header the token is the session", async () => {
    await call("write", { path: "t.txt", content: "1" });
    const same = (await (await call("write", { path: "t.txt", content: "2" })).json()) as { isError: boolean };
    expect(same.isError).toBe(false);
    const named = (await (await call("write", { path: "t.txt", content: "3" }, TOKENS.full, "C")).json()) as { code?: string };
    expect(named.code).toBe("FS_NOT_OBSERVED");
  });

  test("an unusable X-Session-Id is 400", async () => {
    const response = await fetch(`${server.url}/v1/tools/view`, {
      method: "POST",
      headers: { ...jsonHeaders(TOKENS.full), "x-session-id": "has space" },
      body: "{}",
    });
    const message = await expectError(response, 400, "INVALID_ARGUMENT");
    expect(message).toContain("X-Session-Id");
  });
});

describe("workspaces", () => {
  test("the same session id in two workspaces shares no observations, even over one storage", async () => {
    const shared = startServer({ sharedStorage: true });
    try {
      const post = (token: string, body: unknown, tool = "write") =>
        fetch(`${shared.url}/v1/tools/${tool}`, { method: "POST", headers: jsonHeaders(token, "same"), body: JSON.stringify(body) }).then(
          (r) => r.json() as Promise<{ isError: boolean; code?: string }>,
        );
      expect((await post(TOKENS.full, { path: "w.txt", content: "1" })).isError).toBe(false);
      expect((await post(TOKENS.other, { path: "w.txt", content: "2" })).code).toBe("FS_NOT_OBSERVED");
    } finally {
      await shared.stop();
    }
  });

  test("each token reaches its own workspace's storage", async () => {
    await call("write", { path: "only-ws1.txt", content: "x" });
    const other = (await (await call("view", { path: "only-ws1.txt" }, TOKENS.other)).json()) as { code?: string };
    expect(other.code).toBe("FS_NOT_FOUND");
  });
});

describe("storageFor failures", () => {
  test("a thrown CodedError keeps its code and status; anything else is a 500 that hides details", async () => {
    const errors: unknown[] = [];
    const failing = startServer({
      storageFor: (workspace) => {
        if (workspace === "ws1") throw Object.assign(new Error("workspace ws1 is suspended"), { code: "FORBIDDEN" });
        throw new Error("secret connection string leaked");
      },
      onError: (error) => errors.push(error),
    });
    try {
      const forbidden = await fetch(`${failing.url}/v1/tools/view`, { method: "POST", headers: jsonHeaders(TOKENS.full), body: '{"path":"a"}' });
      expect(await expectError(forbidden, 403, "FORBIDDEN")).toContain("suspended");
      const broken = await fetch(`${failing.url}/v1/tools/view`, { method: "POST", headers: jsonHeaders(TOKENS.other), body: '{"path":"a"}' });
      expect(await expectError(broken, 500, "INTERNAL_ERROR")).not.toContain("secret");
      expect(errors).toHaveLength(1);
    } finally {
      await failing.stop();
    }
  });
});

describe("a request body the client never finishes", () => {
  test("goes to onAbort (method and path), not onError, and nothing runs", async () => {
    const errors: unknown[] = [];
    const aborted: unknown[] = [];
    const app = createApp({
      tools: fakeTools(),
      auth: { mode: "none", workspace: "ws" },
      storageFor: () => createMemoryStorage(),
      observations: createMemoryObservationStore(),
      hasher: jsHasher,
      version: "1",
      onError: (error) => errors.push(error),
      onAbort: (request) => aborted.push(request),
    });
    // A body stream that fails mid-way, as a socket closed mid-upload does.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"path": "a.txt", "content": "'));
        controller.error(new Error("connection reset"));
      },
    });
    const request = new Request("http://127.0.0.1/v1/tools/write?x=1", {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": "1000" },
      body,
    });
    const response = await app.fetch(request);
    expect(response.status).toBe(400);
    expect(aborted).toEqual([{ method: "POST", path: "/v1/tools/write" }]);
    expect(errors).toEqual([]);
  });
});

describe("a prebuilt pipeline", () => {
  test("is served as given, with its listeners and its own timeout", async () => {
    const pipeline = createPipeline(fakeTools(), { timeoutMs: 30 });
    pipeline.onPostExecute(async (_call, result, next) => next(addNotices(result, { text: "listener ran", source: { kind: "server" } })));
    const prebuilt = startServer({ pipeline });
    try {
      const post = (tool: string, body: unknown) =>
        fetch(`${prebuilt.url}/v1/tools/${tool}`, { method: "POST", headers: jsonHeaders(TOKENS.full), body: JSON.stringify(body) }).then(
          (r) => r.json() as Promise<{ code?: string; notices?: Array<{ text: string }> }>,
        );
      expect((await post("note", {})).notices?.map((n) => n.text)).toEqual(["Heads up: a rule matched.", "listener ran"]);
      expect((await post("hang", {})).code).toBe("TIMEOUT");
    } finally {
      await prebuilt.stop();
    }
  });

  test("createApp refuses both or neither of tools and pipeline", () => {
    const base = {
      auth: { mode: "none" as const, workspace: "w" },
      storageFor: () => createMemoryStorage(),
      observations: createMemoryObservationStore(),
      hasher: jsHasher,
      version: "1",
    };
    expect(() => createApp(base)).toThrow(/exactly one/);
    expect(() => createApp({ ...base, tools: fakeTools(), pipeline: createPipeline(fakeTools()) })).toThrow(/exactly one/);
  });
});

describe("no-auth mode", () => {
  test("requests need no token and share one default session without the header", async () => {
    const open = startServer({ auth: { mode: "none", workspace: "ws1" } });
    try {
      const post = (body: unknown, session?: string) =>
        fetch(`${open.url}/v1/tools/write`, { method: "POST", headers: jsonHeaders(undefined, session), body: JSON.stringify(body) }).then(
          (r) => r.json() as Promise<{ isError: boolean; code?: string }>,
        );
      expect((await post({ path: "n.txt", content: "1" })).isError).toBe(false);
      expect((await post({ path: "n.txt", content: "2" })).isError).toBe(false);
      expect((await post({ path: "n.txt", content: "3" }, "elsewhere")).code).toBe("FS_NOT_OBSERVED");
      expect((await fetch(`${open.url}/v1/tools`)).status).toBe(200);
    } finally {
      await open.stop();
    }
  });
});
