/** `/mcp` streams a call's progress and log lines as SSE when it has any, and stays JSON otherwise (both session modes). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as v from "valibot";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LoggingMessageNotificationSchema, type LoggingMessageNotification, type Progress } from "@modelcontextprotocol/sdk/types.js";
import type { McpMode } from "../../src/http/mod.ts";
import { ok, type ToolResult } from "../../src/result.ts";
import type { ToolDef } from "../../src/tools/types.ts";
import { fakeTools, startServer, TOKENS, type TestServer } from "../helpers/server.ts";

/** `steps {n}`: reports progress 1..n, then succeeds. */
const steps: ToolDef = {
  name: "steps",
  description: "Report progress n times.",
  scope: "read",
  annotations: {},
  schema: v.strictObject({ n: v.number() }),
  async run(args, ctx): Promise<ToolResult> {
    const { n } = args as { n: number };
    for (let i = 1; i <= n; i++) ctx.progress?.(i, `step ${i} of ${n}`);
    return ok(`did ${n} steps`);
  },
};

/** Whether the last `cancelled` call of `wait` saw its abort signal. */
let waitAborted = false;
/** `wait {}`: reports progress once, then waits for the abort signal. */
const wait: ToolDef = {
  name: "wait",
  description: "Wait for cancellation.",
  scope: "read",
  annotations: {},
  schema: v.strictObject({}),
  run(_args, ctx): Promise<ToolResult> {
    ctx.progress?.(1, "waiting");
    return new Promise((resolve) =>
      ctx.signal?.addEventListener(
        "abort",
        () => {
          waitAborted = true;
          resolve(ok("aborted"));
        },
        { once: true },
      ),
    );
  },
};

const opened: Client[] = [];
afterAll(async () => {
  await Promise.all(opened.map((c) => c.close().catch(() => {})));
});

type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

async function connect(url: string, fetchVia?: FetchLike): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${TOKENS.full}` } },
    ...(fetchVia ? { fetch: fetchVia } : {}),
  });
  const client = new Client({ name: "stream-test", version: "1.0.0" });
  await client.connect(transport);
  opened.push(client);
  return client;
}

for (const mode of ["stateful", "stateless"] as McpMode[]) {
  describe(`MCP ${mode}: notifications of a call`, () => {
    let server: TestServer;
    beforeAll(() => {
      server = startServer({ mcp: { mode }, tools: [...fakeTools(), steps, wait] });
    });
    afterAll(() => server.stop());

    test("a call with a progressToken gets its progress reports, in order, before its result", async () => {
      const client = await connect(server.url);
      const reports: Progress[] = [];
      const result = await client.callTool({ name: "steps", arguments: { n: 3 } }, undefined, { onprogress: (p) => void reports.push(p) });
      expect(result.content).toEqual([{ type: "text", text: "did 3 steps" }]);
      expect(reports).toEqual([
        { progress: 1, message: "step 1 of 3" },
        { progress: 2, message: "step 2 of 3" },
        { progress: 3, message: "step 3 of 3" },
      ]);
    });

    test("a call with nothing to send first is one JSON body, as before", async () => {
      const types: string[] = [];
      const client = await connect(server.url, async (input, init) => {
        const response = await fetch(input, init);
        // Only the answers to requests (the client also POSTs notifications and tries a GET stream).
        if (init?.method === "POST" && response.status === 200) types.push(response.headers.get("content-type") ?? "");
        return response;
      });
      types.length = 0;
      await client.callTool({ name: "steps", arguments: { n: 2 } });
      expect(types).toEqual(["application/json"]);
    });
  });
}

describe("MCP stateful: log lines and cancellation over HTTP", () => {
  let server: TestServer;
  beforeAll(() => {
    server = startServer({ mcp: { mode: "stateful" }, tools: [...fakeTools(), steps, wait] });
  });
  afterAll(() => server.stop());

  test("after logging/setLevel each call's log line arrives as notifications/message", async () => {
    const client = await connect(server.url);
    const messages: LoggingMessageNotification["params"][] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void messages.push(n.params));
    await client.callTool({ name: "note", arguments: {} });
    expect(messages).toEqual([]);
    await client.setLoggingLevel("info");
    await client.callTool({ name: "note", arguments: {} });
    await client.callTool({ name: "view", arguments: { path: "missing.txt" } });
    expect(messages.map((m) => [m.level, (m.data as { tool: string }).tool])).toEqual([
      ["info", "note"],
      ["warning", "view"],
    ]);
  });

  test("notifications/cancelled reaches a running call through the session", async () => {
    const client = await connect(server.url);
    waitAborted = false;
    const controller = new AbortController();
    const call = client.callTool({ name: "wait", arguments: {} }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort("test cancels"),
    });
    await expect(call).rejects.toThrow();
    let checks = 0;
    while (!waitAborted && checks++ < 3000) await Bun.sleep(10);
    expect(waitAborted).toBe(true);
  });
});
