/**
 * Plain tools/calls are answered past the SDK's request machinery
 * (src/http/mcp-direct-call.ts). What a client sees must not change: the
 * same answers as the SDK path, the SDK's refusals for what is not plain,
 * cancellation that aborts the call and sends no answer.
 */
import { describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { buildPipeline, toolLimits } from "../../src/cli/toolset.ts";
import { jsHasher } from "../../src/hash/js.ts";
import { createToolHost } from "../../src/http/host.ts";
import { plainToolCall } from "../../src/http/mcp-direct-call.ts";
import { answerCallsDirectly, createMcpServer } from "../../src/http/mcp-server.ts";
import { createMemoryObservationStore } from "../../src/policy/memory.ts";
import { guardStorage } from "../../src/storage/guard.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import type { Storage } from "../../src/storage/types.ts";

const plain = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "view", arguments: { path: "a.txt" } } };

describe("plainToolCall", () => {
  test("takes a call with exactly what the SDK's schema allows", () => {
    expect(plainToolCall(plain)).toBe(plain as never);
    expect(plainToolCall({ ...plain, id: "x" })).toBeDefined();
    expect(plainToolCall({ ...plain, params: { name: "view" } })).toBeDefined();
    expect(plainToolCall({ ...plain, params: { ...plain.params, _meta: { progressToken: 3, other: 1 } } })).toBeDefined();
  });

  test("leaves everything else to the SDK", () => {
    const params = plain.params;
    for (const message of [
      null,
      [plain],
      { ...plain, method: "tools/list" },
      { ...plain, jsonrpc: "1.0" },
      { ...plain, id: 1.5 },
      { ...plain, id: null },
      { ...plain, id: 2 ** 60 },
      { ...plain, extra: true }, // the SDK's request schema is strict
      { ...plain, params: [] },
      { ...plain, params: { arguments: {} } },
      { ...plain, params: { ...params, name: 3 } },
      { ...plain, params: { ...params, arguments: [] } },
      { ...plain, params: { ...params, arguments: "{}" } },
      { ...plain, params: { ...params, arguments: null } },
      { ...plain, params: { ...params, task: { ttl: 1 } } },
      { ...plain, params: { ...params, _meta: { progressToken: 1.5 } } },
      { ...plain, params: { ...params, _meta: { "io.modelcontextprotocol/related-task": { taskId: "t" } } } },
      { ...plain, params: { ...params, _meta: "m" } },
      JSON.parse('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"view","arguments":{"__proto__":{"path":"x"}}}}'),
    ]) {
      expect(plainToolCall(message)).toBeUndefined();
    }
  });
});

/** A client connected to a fresh server over memory storage holding `files`, directly or not. */
async function connect(direct: boolean, files: Record<string, string>, wrap: (storage: Storage) => Storage = (s) => s) {
  const storage = wrap(guardStorage(createMemoryStorage()));
  for (const [path, text] of Object.entries(files)) await storage.write(path, new TextEncoder().encode(text));
  const pipeline = buildPipeline({ root: "mem", limits: {}, shell: { enabled: false }, rules: {} }, "mem");
  const host = createToolHost({
    pipeline,
    storageFor: () => storage,
    observations: createMemoryObservationStore(),
    hasher: jsHasher,
    limits: toolLimits({}),
  });
  const principal = { id: "p", label: "p", workspace: "mem", scopes: new Set(["read", "write"] as const) };
  const server = createMcpServer({ host, version: "test", identity: { principal, session: "s" }, initialLogLevel: "info" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const sent: JSONRPCMessage[] = [];
  const send = serverSide.send.bind(serverSide);
  serverSide.send = (message, options) => {
    sent.push(message);
    return send(message, options);
  };
  await server.connect(serverSide);
  if (direct) answerCallsDirectly(server, serverSide);
  const client = new Client({ name: "t", version: "1" });
  await client.connect(clientSide);
  return { client, storage, sent, clientSide };
}

const FILE = "one\ntwo\nthree\n";

/**
 * A directly answering session whose first read waits until `release`
 * (`inside` resolves once it waits): a cancellation then lands while the
 * call runs. The client side is raw, its messages collected in `replies`.
 */
async function connectHeld() {
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let reads = 0;
  const { clientSide, sent } = await connect(true, { "a.txt": FILE }, (storage) => ({
    ...storage,
    async readStream(path) {
      if (reads++ === 0) {
        entered();
        await held;
      }
      return storage.readStream!(path);
    },
  }));
  const replies: JSONRPCMessage[] = [];
  clientSide.onmessage = (m) => void replies.push(m);
  await clientSide.start();
  return { clientSide, sent, replies, inside, release };
}

describe("answered directly", () => {
  test("every answer is the SDK path's answer, and the file ends the same", async () => {
    const runs = [];
    for (const direct of [false, true]) {
      const { client, storage, sent } = await connect(direct, { "a.txt": FILE });
      const answers = [];
      for (const [name, args] of [
        ["view", { path: "a.txt" }],
        ["edit", { path: "a.txt", old_string: "two", new_string: "2" }],
        ["edit", { path: "a.txt", old_string: "absent", new_string: "x" }],
        ["view", { path: "missing.txt" }],
        ["nope", {}],
        ["view", undefined],
      ] as const) {
        answers.push(await client.callTool({ name, ...(args ? { arguments: args } : {}) }));
      }
      const bytes = new TextDecoder().decode((await storage.read("a.txt")).bytes);
      // Log lines (level info) reach the client either way.
      // Memory storage names its versions after the instance: the same content, another instance.
      const same = JSON.parse(JSON.stringify(answers).replace(/mem-[a-z0-9]+-/g, "mem-"));
      runs.push({ answers: same, bytes, logs: sent.filter((m) => "method" in m && m.method === "notifications/message").length });
    }
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[1].bytes).toBe("one\n2\nthree\n");
    expect(runs[1].logs).toBe(6);
  });

  test("what is not plain still gets the SDK's refusal", async () => {
    const { clientSide } = await connect(true, { "a.txt": FILE });
    const replies: JSONRPCMessage[] = [];
    clientSide.onmessage = (m) => void replies.push(m);
    await clientSide.start();
    await clientSide.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "view", arguments: [] } } as never);
    await clientSide.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "view", arguments: { path: "a.txt" } } });
    // Waits as long as the answers take (the test's timeout bounds it), never a fixed time.
    while (replies.length < 2) await Bun.sleep(5);
    const byId = Object.fromEntries(replies.map((r) => [(r as { id: number }).id, r as unknown]));
    // The SDK's own refusal: its schema's words, as before.
    expect((byId[1] as { error: { message: string } }).error.message).toContain("expected record, received array");
    expect((byId[2] as { result: { isError: boolean } }).result.isError).toBe(false);
  });

  test("a cancelled call is aborted and never answered; the next call is", async () => {
    const { clientSide, sent, replies, inside, release } = await connectHeld();
    await clientSide.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "view", arguments: { path: "a.txt" } } });
    await inside;
    await clientSide.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, reason: "stop" } });
    release();
    await clientSide.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "view", arguments: { path: "a.txt" } } });
    while (!replies.some((m) => !("method" in m))) await Bun.sleep(5);
    // Give a late answer to 1 every chance to arrive before looking.
    for (let i = 0; i < 10; i++) await Bun.sleep(1);
    const responses = replies.filter((m) => !("method" in m));
    expect(responses.map((m) => (m as { id: number }).id)).toEqual([2]);
    // Nor did the cancelled call log a line (its notifications stop with it).
    expect(replies.filter((m) => "method" in m && m.method === "notifications/message")).toHaveLength(1);
    expect(sent.filter((m) => "id" in m && (m as { id: number }).id === 1)).toEqual([]);
  });

  test("a request (with an id) named notifications/cancelled cancels nothing: the SDK refuses it, the call is answered", async () => {
    const { clientSide, replies, inside, release } = await connectHeld();
    await clientSide.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "view", arguments: { path: "a.txt" } } });
    await inside;
    await clientSide.send({ jsonrpc: "2.0", id: 99, method: "notifications/cancelled", params: { requestId: 1 } } as never);
    release();
    while (replies.filter((m) => !("method" in m)).length < 2) await Bun.sleep(5);
    const byId = Object.fromEntries(replies.filter((m) => !("method" in m)).map((m) => [(m as { id: number }).id, m as unknown]));
    expect((byId[99] as { error: { code: number } }).error.code).toBe(-32601);
    expect((byId[1] as { result: { isError: boolean } }).result.isError).toBe(false);
  });
});
