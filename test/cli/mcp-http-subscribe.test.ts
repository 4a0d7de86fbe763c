/**
 * `resources/subscribe` over Streamable HTTP on a real `serve` process: the
 * official client opens the session's GET stream itself, subscribes to a
 * file, and another token of the same workspace changes it over REST; the
 * client hears `notifications/resources/updated` for that URI on the stream.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { restCall, type ServeProcess, startServe, tempDir } from "../helpers/cli.ts";

const WATCHER = "watcher-token-0123456789";
const WRITER = "writer-token-0123456789";
const work = tempDir("tw-mcp-subscribe-");
const root = join(work.path, "ws");
let server: ServeProcess;
const clients: Client[] = [];

beforeAll(async () => {
  mkdirSync(root);
  writeFileSync(join(root, "watched.txt"), "one\ntwo\n");
  writeFileSync(join(root, "other.txt"), "untouched\n");
  const config = join(work.path, "tw.json");
  writeFileSync(
    config,
    JSON.stringify({
      tokens: [
        { token: WATCHER, scopes: ["read"], label: "watcher", workspace: root },
        { token: WRITER, scopes: ["read", "write"], label: "writer", workspace: root },
      ],
    }),
  );
  server = await startServe([root, "--port", "0", "--config", config, "--quiet"]);
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  server?.kill();
  work.remove();
});

/** Connect as `token`; resolves once the client's GET stream is open (the server saw it). */
async function connect(token: string): Promise<{ client: Client; updates: string[]; next(uri: string): Promise<void> }> {
  let streamOpen!: () => void;
  const opened = new Promise<void>((resolve) => (streamOpen = resolve));
  // Watch the client's own GET: it is the stream the notification must arrive on.
  const watchingFetch = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    if ((init?.method ?? "GET") === "GET" && response.ok) streamOpen();
    return response;
  };
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: watchingFetch,
  });
  const client = new Client({ name: "subscribe-test", version: "1.0.0" });
  const updates: string[] = [];
  const waiters: Array<{ uri: string; resolve(): void }> = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updates.push(n.params.uri);
    for (const w of waiters.filter((w) => w.uri === n.params.uri)) w.resolve();
  });
  await client.connect(transport);
  clients.push(client);
  await bounded(opened, "the client's GET stream never opened");
  return {
    client,
    updates,
    next: (uri) => bounded(new Promise<void>((resolve) => waiters.push({ uri, resolve })), `no notifications/resources/updated for ${uri}`),
  };
}

/** `promise`, or a rejection after 20 s (a bound for a loaded machine, not a timing assumption). */
function bounded<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(what)), 20_000)));
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

describe("MCP resources/subscribe over HTTP (stateful serve)", () => {
  test("a subscribed file changed over REST by another token sends notifications/resources/updated on the GET stream", async () => {
    const watcher = await connect(WATCHER);
    expect(watcher.client.getServerCapabilities()?.resources).toEqual({ listChanged: false, subscribe: true });
    await watcher.client.subscribeResource({ uri: "file:///watched.txt" });

    // Another token (its own REST session) edits the file through toolwarden's REST API.
    const seen = await restCall(server.url, WRITER, "view", { path: "watched.txt" }, "writer");
    expect(seen.body.isError).toBe(false);
    const arrived = watcher.next("file:///watched.txt");
    const edit = await restCall(server.url, WRITER, "edit", { path: "watched.txt", old_string: "two", new_string: "TWO" }, "writer");
    expect(edit.body).toMatchObject({ isError: false });
    await arrived;
    expect(readFileSync(join(root, "watched.txt"), "utf8")).toBe("one\nTWO\n");
    expect(watcher.updates).toEqual(["file:///watched.txt"]);

    // After unsubscribing, a change sends nothing more; a change to a still-subscribed file proves the stream is alive.
    await watcher.client.unsubscribeResource({ uri: "file:///watched.txt" });
    await watcher.client.subscribeResource({ uri: "file:///other.txt" });
    await restCall(server.url, WRITER, "view", { path: "other.txt" }, "writer");
    expect((await restCall(server.url, WRITER, "write", { path: "watched.txt", content: "three\n" }, "writer")).body.isError).toBe(false);
    const otherArrived = watcher.next("file:///other.txt");
    expect((await restCall(server.url, WRITER, "write", { path: "other.txt", content: "touched\n" }, "writer")).body.isError).toBe(false);
    await otherArrived;
    expect(watcher.updates).toEqual(["file:///watched.txt", "file:///other.txt"]);
    expect(readFileSync(join(root, "other.txt"), "utf8")).toBe("touched\n");
  }, 90_000);
});
