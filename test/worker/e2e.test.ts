/**
 * The deployed Worker end to end: worker.ts bundled by `wrangler deploy
 * --dry-run` and run in workerd under Miniflare with wrangler.toml's R2
 * bucket and Durable Object. The same REST and MCP cases local mode passes:
 * guarded writes, stale line ids, auth and scopes, no shell, and MCP over the
 * official client with observations shared between requests (and between
 * runtimes) only through the Durable Object.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import pkg from "../../package.json";
import { mcpCode, mcpInitialize, mcpResult, mcpSend, mcpToolCall } from "../helpers/reliability/http.ts";
import { buildWorkerBundle, startWorker, type RunningWorker, type WorkerBundle } from "../helpers/worker-e2e.ts";

const TOKENS = {
  full: "full-token-0123456789abcdef",
  readOnly: "read-token-0123456789abcdef",
  other: "other-token-0123456789abcdef",
};
const GRANTS = JSON.stringify([
  { token: TOKENS.full, workspace: "ws1", scopes: ["read", "write"], label: "full" },
  { token: TOKENS.readOnly, workspace: "ws1", scopes: ["read"], label: "read-only" },
  { token: TOKENS.other, workspace: "ws2", scopes: ["read", "write"], label: "other" },
]);

interface ToolResultBody {
  isError: boolean;
  code?: string;
  content: Array<{ type: string; text: string }>;
}

let bundle: WorkerBundle;
let worker: RunningWorker;
const cleanup: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  bundle = await buildWorkerBundle();
  cleanup.push(() => bundle.dispose());
  worker = await startWorker(bundle, { vars: { TOOLWARDEN_TOKENS: GRANTS } });
  cleanup.push(() => worker.dispose());
  console.log(
    `worker bundle: ${(bundle.bytes / 1024).toFixed(1)} KiB, gzip ${(bundle.gzipBytes / 1024).toFixed(1)} KiB, ` +
      `modules ${bundle.modules.join(", ")}, built in ${Math.round(bundle.buildMs)} ms`,
  );
}, 60_000);

afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

const text = (result: ToolResultBody) => result.content.map((c) => c.text).join("\n");

async function rest(tool: string, args: Record<string, unknown>, options: { token?: string; session?: string; base?: URL } = {}) {
  const token = options.token ?? TOKENS.full;
  return fetch(new URL(`/v1/tools/${tool}`, options.base ?? worker.url), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${token}`,
      ...(options.session ? { "x-session-id": options.session } : {}),
    },
    body: JSON.stringify(args),
  });
}

async function call(tool: string, args: Record<string, unknown>, session: string, token = TOKENS.full, base?: URL): Promise<ToolResultBody> {
  const response = await rest(tool, args, { token, session, base });
  expect(response.status).toBe(200);
  return (await response.json()) as ToolResultBody;
}

/** The id a view (or a diff, or an error) shows in front of `content`. */
function idFor(output: string, content: string): string {
  for (const line of output.split("\n")) {
    const match = /(\d+:[0-9a-f]{2})\|(.*)$/.exec(line);
    if (match && match[2] === content) return match[1];
  }
  throw new Error(`no id for ${JSON.stringify(content)} in:\n${output}`);
}

/** The file as the full token's workspace holds it, read with a throwaway session. */
async function contentOf(path: string, token = TOKENS.full): Promise<string> {
  const viewed = await call("view", { path }, `peek-${crypto.randomUUID()}`, token);
  expect(viewed.isError).toBe(false);
  return text(viewed)
    .split("\n")
    .flatMap((line) => {
      const match = /^\d+:[0-9a-f]{2}\|(.*)$/.exec(line);
      return match ? [match[1]] : [];
    })
    .join("\n");
}

describe("the Worker bundle", () => {
  test("ships fnv.wasm as its own module, which workerd instantiates as the hasher", async () => {
    expect(bundle.modules.some((m) => m.endsWith("fnv.wasm"))).toBe(true);
    const health = await fetch(new URL("/healthz", worker.url));
    expect(await health.json()).toEqual({ ok: true, version: pkg.version, storage: "r2" });
    const logs = await worker.waitForLog(/"event":"toolwarden\.start"/);
    const start = JSON.parse(/\{"event":"toolwarden\.start".*\}/.exec(logs)![0]);
    expect(start).toMatchObject({ hasher: "wasm", tools: ["view", "write", "edit", "batch_edit"], tokens: 3 });
  });

  test("the tool list has the file tools and no bash", async () => {
    const response = await fetch(new URL("/v1/tools", worker.url), { headers: { authorization: `Bearer ${TOKENS.full}` } });
    const { tools } = (await response.json()) as { tools: Array<{ name: string }> };
    expect(tools.map((t) => t.name)).toEqual(["view", "write", "edit", "batch_edit"]);
    expect((await rest("bash", { command: "ls" })).status).toBe(404);
  });
});

describe("auth", () => {
  test("no token or a wrong token is 401, and nothing is written", async () => {
    const none = await fetch(new URL("/v1/tools/write", worker.url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ path: "auth.txt", content: "x" }),
    });
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe("UNAUTHORIZED");
    const wrong = await rest("write", { path: "auth.txt", content: "x" }, { token: "wrong-token-0123456789abcdef" });
    expect(wrong.status).toBe(401);
    const viewed = await call("view", { path: "auth.txt" }, "auth-check");
    expect(viewed.code).toBe("FS_NOT_FOUND");
  });

  test("a read-only token's write is an FS_ACCESS_DENIED result and the file is untouched", async () => {
    expect((await call("write", { path: "ro.txt", content: "original\n" }, "ro-writer")).isError).toBe(false);
    await call("view", { path: "ro.txt" }, "ro-reader", TOKENS.readOnly);
    const denied = await call("write", { path: "ro.txt", content: "changed\n" }, "ro-reader", TOKENS.readOnly);
    expect(denied).toMatchObject({ isError: true, code: "FS_ACCESS_DENIED" });
    expect(await contentOf("ro.txt")).toBe("original");
  });

  test("a token reaches only its own workspace", async () => {
    expect((await call("write", { path: "mine.txt", content: "ws1\n" }, "ws1-s")).isError).toBe(false);
    expect((await call("view", { path: "mine.txt" }, "ws2-s", TOKENS.other)).code).toBe("FS_NOT_FOUND");
  });
});

describe("REST: guarded writes across requests", () => {
  test("write CAS: unseen is FS_NOT_OBSERVED, a view makes it land, a stale version is refused", async () => {
    const created = await call("write", { path: "cas.txt", content: "v1\n" }, "cas-a");
    expect(created.isError).toBe(false);

    const unseen = await call("write", { path: "cas.txt", content: "v2 from b\n" }, "cas-b");
    expect(unseen).toMatchObject({ isError: true, code: "FS_NOT_OBSERVED" });
    expect(await contentOf("cas.txt")).toBe("v1");

    // The view and the write are separate requests: only the Durable Object carries the observation.
    expect((await call("view", { path: "cas.txt" }, "cas-b")).isError).toBe(false);
    expect((await call("write", { path: "cas.txt", content: "v2 from b\n" }, "cas-b")).isError).toBe(false);

    // Session a last saw v1 (its own write): its overwrite is stale now.
    const stale = await call("write", { path: "cas.txt", content: "v3 from a\n" }, "cas-a");
    expect(stale).toMatchObject({ isError: true, code: "FS_STALE_VERSION" });
    expect(await contentOf("cas.txt")).toBe("v2 from b");
  });

  test("view -> another session moves the lines -> stale batch_edit shows where the line went -> retry lands", async () => {
    const original = ["function load(id) {", "  const row = db.get(id);", "  return row;", "}", ""].join("\n");
    expect((await call("write", { path: "svc.js", content: original }, "svc-setup")).isError).toBe(false);

    const seen = text(await call("view", { path: "svc.js" }, "svc-a"));
    const target = idFor(seen, "  return row;");

    // Session b views and inserts a header: every line moves down two.
    await call("view", { path: "svc.js" }, "svc-b");
    const inserted = await call("batch_edit", { path: "svc.js", operations: [{ operation: "insert", after: 0, content: "// header\n// more" }] }, "svc-b");
    expect(inserted.isError).toBe(false);

    const stale = await call(
      "batch_edit",
      { path: "svc.js", operations: [{ operation: "replace", start: target, content: "  return row ?? null;" }] },
      "svc-a",
    );
    expect(stale).toMatchObject({ isError: true, code: "EDIT_STALE_LINE_ID" });
    const moved = /^ +(\d+:[0-9a-f]{2})\| {2}return row; {3}\(2 lines below\)$/m.exec(text(stale));
    expect(moved).not.toBeNull();
    expect(await contentOf("svc.js")).toBe(`// header\n// more\n${original.slice(0, -1)}`);

    const retried = await call(
      "batch_edit",
      { path: "svc.js", operations: [{ operation: "replace", start: moved![1], content: "  return row ?? null;" }] },
      "svc-a",
    );
    expect(retried.isError).toBe(false);
    expect(await contentOf("svc.js")).toBe("// header\n// more\nfunction load(id) {\n  const row = db.get(id);\n  return row ?? null;\n}");
  });

  test("edit by text after a view, in another request", async () => {
    expect((await call("write", { path: "cfg.ts", content: "export const port = 3000;\n" }, "cfg")).isError).toBe(false);
    const unseen = await call("edit", { path: "cfg.ts", old_string: "3000", new_string: "8080" }, "cfg-other");
    expect(unseen.code).toBe("FS_NOT_OBSERVED");
    await call("view", { path: "cfg.ts" }, "cfg-other");
    expect((await call("edit", { path: "cfg.ts", old_string: "3000", new_string: "8080" }, "cfg-other")).isError).toBe(false);
    expect(await contentOf("cfg.ts")).toBe("export const port = 8080;");
  });
});

describe("a session belongs to its token", () => {
  test("REST: a read-only token refreshing the writer's X-Session-Id leaves the writer's stale write refused", async () => {
    expect((await call("write", { path: "bound.txt", content: "v1\n" }, "bound-setup")).isError).toBe(false);
    expect((await call("view", { path: "bound.txt" }, "bound-writer")).isError).toBe(false);
    // A third writer changes the file.
    expect((await call("view", { path: "bound.txt" }, "bound-third")).isError).toBe(false);
    expect((await call("write", { path: "bound.txt", content: "third\n" }, "bound-third")).isError).toBe(false);
    // The read-only token sends the writer's session id and views the new version.
    expect((await call("view", { path: "bound.txt" }, "bound-writer", TOKENS.readOnly)).isError).toBe(false);
    const stale = await call("write", { path: "bound.txt", content: "the writer's stale copy\n" }, "bound-writer");
    expect(stale).toMatchObject({ isError: true, code: "FS_STALE_VERSION" });
    expect(await contentOf("bound.txt")).toBe("third");
  });

  test("stateless MCP: another token carrying the writer's Mcp-Session-Id is refused, and the stale write still is", async () => {
    expect((await call("write", { path: "bound-mcp.txt", content: "v1\n" }, "bound-mcp-setup")).isError).toBe(false);
    const writer = `Bearer ${TOKENS.full}`;
    const opened = await mcpSend(worker.url, mcpInitialize(), { authorization: writer });
    const session = opened.headers.get("mcp-session-id")!;
    expect(session).toBeTruthy();
    expect(mcpCode(mcpResult(await mcpSend(worker.url, mcpToolCall("view", { path: "bound-mcp.txt" }), { authorization: writer, session })))).toBe("ok");
    expect((await call("view", { path: "bound-mcp.txt" }, "bound-mcp-third")).isError).toBe(false);
    expect((await call("write", { path: "bound-mcp.txt", content: "third\n" }, "bound-mcp-third")).isError).toBe(false);
    const hijack = await mcpSend(worker.url, mcpToolCall("view", { path: "bound-mcp.txt" }), { authorization: `Bearer ${TOKENS.readOnly}`, session });
    expect(hijack.status).toBe(404);
    expect(hijack.text).toContain("belongs to another token");
    const stale = mcpResult(await mcpSend(worker.url, mcpToolCall("write", { path: "bound-mcp.txt", content: "stale\n" }), { authorization: writer, session }));
    expect(mcpCode(stale)).toBe("FS_STALE_VERSION");
    expect(await contentOf("bound-mcp.txt")).toBe("third");
  });
});

describe("paths that would display as another name", () => {
  test("C1 controls, U+2028/U+2029 and bidi overrides are FS_INVALID_PATH on the Worker too, and nothing is written", async () => {
    for (const name of ["bidi\u202Etxt.js", "iso\u2066late", "line\u2028sep", "c1\u0085ctl"]) {
      const written = await call("write", { path: `unicode/${name}`, content: "x\n" }, "unicode");
      expect({ name, code: written.code }).toEqual({ name, code: "FS_INVALID_PATH" });
    }
    const listing = await call("view", { path: "." }, "unicode");
    expect(text(listing)).not.toContain("unicode/");
  });
});

describe("MCP over the official client", () => {
  const clients: Client[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
  });

  async function connect(sessionId?: string) {
    const transport = new StreamableHTTPClientTransport(new URL("/mcp", worker.url), {
      requestInit: { headers: { authorization: `Bearer ${TOKENS.full}` } },
      ...(sessionId ? { sessionId } : {}),
    });
    const client = new Client({ name: "toolwarden-worker-e2e", version: "1.0.0" });
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  }

  const callTool = async (client: Client, name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ text: string }>; _meta?: Record<string, unknown> };

  test("initialize and tools/list: the file tools, no bash", async () => {
    const { client, transport } = await connect();
    expect(client.getServerVersion()).toMatchObject({ name: "toolwarden", version: pkg.version });
    // A random UUID plus the tag of the token that owns it (stateless: no table remembers the owner).
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}\.[0-9a-f]{16}$/);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["view", "write", "edit", "batch_edit"]);
  });

  test("two separate connections on one session share observations; another session does not", async () => {
    const first = await connect();
    await callTool(first.client, "write", { path: "mcp.txt", content: "one\n" });
    const other = await connect();
    expect(text((await callTool(other.client, "view", { path: "mcp.txt" })) as ToolResultBody)).toContain("|one");

    // A fresh client that only carries the session id (a new transport, new requests).
    const resumed = await connect(first.transport.sessionId);
    expect((await callTool(resumed.client, "write", { path: "mcp.txt", content: "two\n" })).isError).toBe(false);

    const stranger = await connect();
    const refused = await callTool(stranger.client, "write", { path: "mcp.txt", content: "three\n" });
    expect(refused.isError).toBe(true);
    expect(refused._meta?.["toolwarden/code"]).toBe("FS_NOT_OBSERVED");

    // `other` viewed "one": its write is a stale compare-and-swap now.
    const stale = await callTool(other.client, "write", { path: "mcp.txt", content: "four\n" });
    expect(stale._meta?.["toolwarden/code"]).toBe("FS_STALE_VERSION");
    expect(await contentOf("mcp.txt")).toBe("two");
  });

  test("structuredContent and resources work on R2: an edit's fresh ids, then the file listed and read as a resource", async () => {
    const { client } = await connect();
    await callTool(client, "write", { path: "res/r.txt", content: "a\nb\n" });
    const edit = await client.callTool({ name: "edit", arguments: { path: "res/r.txt", old_string: "b", new_string: "B" } });
    expect(edit.structuredContent).toMatchObject({
      ok: true,
      path: "res/r.txt",
      changes: [{ oldStart: 2, oldCount: 1, newStart: 2, newCount: 1, complete: true }],
    });
    expect((edit.structuredContent as { changes: { ids: string[] }[] }).changes[0].ids).toEqual([expect.stringMatching(/^2:[0-9a-f]{2}$/)]);
    expect(client.getServerCapabilities()?.resources).toEqual({ listChanged: false, subscribe: false });
    expect((await client.listResources()).resources.map((r) => r.uri)).toContain("file:///res/r.txt");
    expect((await client.readResource({ uri: "file:///res/r.txt" })).contents).toEqual([{ uri: "file:///res/r.txt", mimeType: "text/plain", text: "a\nB\n" }]);
  });
});

describe("large files on R2", () => {
  test("the last 100 lines of a 12 MiB file (over the 8 MiB load limit) are viewed by streaming it", async () => {
    const lineCount = 180_000;
    const lines = Array.from({ length: lineCount }, (_, i) => `line ${i + 1} ${"x".repeat(60)}`);
    const bytes = new TextEncoder().encode(`${lines.join("\n")}\n`);
    expect(bytes.length).toBeGreaterThan(12 << 20);
    await worker.putObject("ws1/big.log", bytes);

    const tail = await call("view", { path: "big.log", start: -100 }, "big-view");
    expect(tail.isError).toBe(false);
    const output = text(tail);
    idFor(output, lines[lineCount - 100]);
    idFor(output, lines[lineCount - 1]);
    expect(output).not.toContain(`line ${lineCount - 100} x`);
    // The view showed 100 of its lines: a whole-file write based on them would replace 179,900 unseen ones.
    const write = await call("write", { path: "big.log", content: "small now\n" }, "big-view");
    expect(write).toMatchObject({ isError: true, code: "FS_NOT_OBSERVED" });
    expect(text(write)).toContain(`only lines ${lineCount - 99}-${lineCount}`);
    expect(await worker.getObject("ws1/big.log")).toEqual(bytes);
  }, 30_000);

  test("a whole view of a file over the load limit is still refused as too large", async () => {
    await worker.putObject("ws1/big2.log", new Uint8Array(9 << 20).fill(0x61));
    expect(await call("view", { path: "big2.log" }, "big-whole")).toMatchObject({ isError: true, code: "FS_TOO_LARGE" });
  }, 30_000);
});

describe("state lives outside the isolate", () => {
  test("a view before a runtime restart still counts for a write after it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tw-worker-restart-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const before = await startWorker(bundle, { vars: { TOOLWARDEN_TOKENS: GRANTS }, persistDir: dir });
    try {
      expect((await call("write", { path: "kept.txt", content: "before\n" }, "restart-setup", TOKENS.full, before.url)).isError).toBe(false);
      expect((await call("view", { path: "kept.txt" }, "restart", TOKENS.full, before.url)).isError).toBe(false);
    } finally {
      await before.dispose();
    }
    const after = await startWorker(bundle, { vars: { TOOLWARDEN_TOKENS: GRANTS }, persistDir: dir });
    try {
      expect((await call("write", { path: "kept.txt", content: "after\n" }, "restart", TOKENS.full, after.url)).isError).toBe(false);
      expect((await call("write", { path: "kept.txt", content: "x\n" }, "never-viewed", TOKENS.full, after.url)).code).toBe("FS_NOT_OBSERVED");
    } finally {
      await after.dispose();
    }
  }, 30_000);
});

describe("a broken configuration refuses every request", () => {
  // Every broken setting is covered in test/worker-handler.test.ts; this runs one in the real runtime.
  test("TOOLWARDEN_TOKENS that is not JSON: 500 with a JSON error on every route, the reason in the log, no token in either", async () => {
    const broken = await startWorker(bundle, { vars: { TOOLWARDEN_TOKENS: "[{token: secret-secret-secret-1}" } });
    try {
      for (const [path, init] of [
        ["/healthz", {}],
        ["/v1/tools", { headers: { authorization: `Bearer ${TOKENS.full}` } }],
        ["/mcp", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }],
      ] as const) {
        const response = await fetch(new URL(path, broken.url), init);
        expect(response.status).toBe(500);
        const body = (await response.json()) as { error: { code: string; message: string } };
        expect(body.error.code).toBe("INTERNAL_ERROR");
        expect(body.error.message).toMatch(/misconfigured/);
      }
      const logs = await broken.waitForLog(/TOOLWARDEN_TOKENS is not valid JSON/);
      expect(logs).toMatch(/configuration error/);
      expect(logs).not.toMatch(/secret-secret/);
    } finally {
      await broken.dispose();
    }
  }, 30_000);
});
