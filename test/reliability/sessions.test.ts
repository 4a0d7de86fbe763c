/**
 * Sessions and memory against the real `toolwarden serve` (a subprocess on a
 * real port, three tokens over one workspace):
 *
 * - a session belongs to the token that uses it: a read-only token sending
 *   a writer's `X-Session-Id` (or `Mcp-Session-Id`) cannot refresh the
 *   writer's observations, so the writer's stale whole-file write is still
 *   refused (`FS_STALE_VERSION`) and the third writer's change survives;
 * - one token's flood (1001 MCP initialize, 10,050 distinct X-Session-Ids,
 *   each viewing a missing 3.7 kB path) neither ends another token's MCP
 *   session nor forgets its observations, and the server's peak RSS
 *   (`VmHWM` in /proc/<pid>/status) stays under the ceiling
 *   docs/configuration.md documents;
 * - an HTTP/1.0 request without Host gets 400 (raw TCP), and an upload cut
 *   off mid-body is logged as an aborted request, not an internal error.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { startServe, tempDir, type ServeProcess } from "../helpers/cli.ts";
import { callTool, codeOf, mcpCode, mcpInitialize, mcpOpen, mcpResult, mcpSend, mcpToolCall, toolResult } from "../helpers/reliability/http.ts";

const TOKENS = {
  writer: "sess-writer-0123456789abcdef",
  third: "sess-third-0123456789abcdef",
  reader: "sess-reader-0123456789abcdef",
} as const;
const bearer = (token: string) => `Bearer ${token}`;

/** The shares the server runs with: small, so the flood overruns them many times over. */
const OBSERVATION_BYTES_PER_TOKEN = 4 * 1024 * 1024;
const MCP_SESSIONS_PER_TOKEN = 20;

/**
 * The ceiling of docs/configuration.md ("Memory ceiling"): the idle server's
 * RSS, plus the working allowance, plus each token's share of observations
 * and MCP sessions.
 */
const WORKING_ALLOWANCE = 96 * 1024 * 1024;
/**
 * The audit log's working memory (on, as `serve` runs by default): each call's entry (~12 kB for a view of a
 * 3.7 kB path: its path, arguments and result text) is built and appended after the reply. Measured on this
 * flood: peak 25-40 MiB above the same flood with --no-history (2026-12-02), levelling off.
 */
const AUDIT_ALLOWANCE = 32 * 1024 * 1024;
const MCP_SESSION_BYTES = 64 * 1024;
const ceiling = (idleRss: number, tokens: number) =>
  idleRss + WORKING_ALLOWANCE + AUDIT_ALLOWANCE + tokens * (OBSERVATION_BYTES_PER_TOKEN + MCP_SESSIONS_PER_TOKEN * MCP_SESSION_BYTES);

let dir: { path: string; remove(): void };
let ws: string;
let server: ServeProcess;

beforeAll(async () => {
  dir = tempDir("tw-sessions-");
  ws = join(dir.path, "ws");
  const config = {
    tokens: [
      { token: TOKENS.writer, scopes: ["read", "write"], label: "writer" },
      { token: TOKENS.third, scopes: ["read", "write"], label: "third" },
      { token: TOKENS.reader, scopes: ["read"], label: "reader" },
    ],
    limits: { observationBytesPerToken: OBSERVATION_BYTES_PER_TOKEN, mcpSessionsPerToken: MCP_SESSIONS_PER_TOKEN },
  };
  await Bun.write(join(ws, "notes.txt"), "original\n");
  const file = join(dir.path, "toolwarden.json");
  writeFileSync(file, JSON.stringify(config));
  server = await startServe([ws, "--port", "0", "--config", file, "--quiet"]);
}, 30_000);

afterAll(() => {
  server?.kill();
  dir?.remove();
});

const onDisk = (path: string) => readFileSync(join(ws, path), "utf8");

/** RSS and peak RSS of the server process, in bytes, from /proc/<pid>/status. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib("VmRSS"), peak: kib("VmHWM") };
}

/** Run `count` jobs, `width` at a time. */
async function pool(count: number, width: number, job: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await job(next++);
    }),
  );
}

describe("a session belongs to its token", () => {
  test("REST: a read-only token refreshing the writer's X-Session-Id leaves the writer's stale write refused", async () => {
    writeFileSync(join(ws, "rest.txt"), "v1\n");
    const session = "writer-session";
    expect(codeOf(toolResult(await callTool(server.url, "view", { path: "rest.txt" }, { token: TOKENS.writer, session })))).toBe("ok");
    // A third writer changes the file.
    expect(codeOf(toolResult(await callTool(server.url, "view", { path: "rest.txt" }, { token: TOKENS.third, session: "t" })))).toBe("ok");
    const third = await callTool(server.url, "write", { path: "rest.txt", content: "the third writer's change\n" }, { token: TOKENS.third, session: "t" });
    expect(codeOf(toolResult(third))).toBe("ok");
    // The read-only token sends the writer's session id and views the new version.
    expect(codeOf(toolResult(await callTool(server.url, "view", { path: "rest.txt" }, { token: TOKENS.reader, session })))).toBe("ok");
    // The writer's whole-file write is still based on v1.
    const stale = toolResult(
      await callTool(server.url, "write", { path: "rest.txt", content: "the writer's stale copy\n" }, { token: TOKENS.writer, session }),
    );
    expect(codeOf(stale)).toBe("FS_STALE_VERSION");
    expect(onDisk("rest.txt")).toBe("the third writer's change\n");
  });

  test("MCP: another token's request on the writer's session is refused, and the stale write still is", async () => {
    writeFileSync(join(ws, "mcp.txt"), "v1\n");
    const writer = bearer(TOKENS.writer);
    const session = await mcpOpen(server.url, writer);
    expect(mcpCode(mcpResult(await mcpSend(server.url, mcpToolCall("view", { path: "mcp.txt" }), { authorization: writer, session })))).toBe("ok");
    expect(codeOf(toolResult(await callTool(server.url, "view", { path: "mcp.txt" }, { token: TOKENS.third, session: "t" })))).toBe("ok");
    expect(codeOf(toolResult(await callTool(server.url, "write", { path: "mcp.txt", content: "third\n" }, { token: TOKENS.third, session: "t" })))).toBe("ok");
    const hijack = await mcpSend(server.url, mcpToolCall("view", { path: "mcp.txt" }), { authorization: bearer(TOKENS.reader), session });
    expect(hijack.status).toBe(404);
    expect(hijack.text).toContain("belongs to another token");
    const stale = mcpResult(await mcpSend(server.url, mcpToolCall("write", { path: "mcp.txt", content: "stale\n" }), { authorization: writer, session }));
    expect(mcpCode(stale)).toBe("FS_STALE_VERSION");
    expect(onDisk("mcp.txt")).toBe("third\n");
  });
});

describe("one token's flood", () => {
  test("1001 initialize + 10,050 sessions of long missing paths: the other token's session and observations survive, RSS stays under the ceiling", async () => {
    const pid = server.child.pid!;
    const third = bearer(TOKENS.third);
    writeFileSync(join(ws, "victim.txt"), "the third token's file\n");
    // The other token's MCP session and REST session, each having viewed the file.
    const victimMcp = await mcpOpen(server.url, third);
    expect(mcpCode(mcpResult(await mcpSend(server.url, mcpToolCall("view", { path: "victim.txt" }), { authorization: third, session: victimMcp })))).toBe("ok");
    expect(codeOf(toolResult(await callTool(server.url, "view", { path: "victim.txt" }, { token: TOKENS.third, session: "victim" })))).toBe("ok");
    const idle = memoryOf(pid);

    const writer = bearer(TOKENS.writer);
    const opened: string[] = [];
    await pool(1001, 8, async () => {
      const reply = await mcpSend(server.url, mcpInitialize(), { authorization: writer });
      expect(reply.status).toBe(200);
      opened.push(reply.headers.get("mcp-session-id")!);
    });
    const afterInit = memoryOf(pid);
    // 3.7 kB paths of 250-byte segments, each its own missing file: every view records an absence.
    const segment = "s".repeat(249);
    const longPath = (i: number) => `${Array.from({ length: 14 }, () => segment).join("/")}/${String(i).padStart(5, "0")}-${"x".repeat(200)}`;
    expect(longPath(0).length).toBeGreaterThan(3700);
    await pool(10_050, 8, async (i) => {
      const reply = await callTool(server.url, "view", { path: longPath(i) }, { token: TOKENS.writer, session: `flood-${i}` });
      expect(reply.status).toBe(200);
      expect(codeOf(toolResult(reply))).toBe("FS_NOT_FOUND");
    });
    const after = memoryOf(pid);
    const limit = ceiling(idle.rss, 3);
    console.log(
      `flood: RSS idle ${mib(idle.rss)}, after 1001 initialize ${mib(afterInit.rss)}, after 10,050 sessions ${mib(after.rss)} ` +
        `(peak ${mib(after.peak)}); ceiling ${mib(limit)}`,
    );
    expect(after.peak).toBeLessThan(limit);

    // The flooder lost its own oldest sessions, and only those.
    const ask = (authorization: string, session: string) => mcpSend(server.url, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { authorization, session });
    expect((await ask(writer, opened[0])).status).toBe(404);
    expect((await ask(third, victimMcp)).status).toBe(200);
    // The other token's observations are intact: its writes need no new view.
    const viaMcp = mcpResult(
      await mcpSend(server.url, mcpToolCall("write", { path: "victim.txt", content: "written over MCP\n" }), { authorization: third, session: victimMcp }),
    );
    expect(mcpCode(viaMcp)).toBe("ok");
    expect(codeOf(toolResult(await callTool(server.url, "view", { path: "victim.txt" }, { token: TOKENS.third, session: "victim-2" })))).toBe("ok");
    const viaRest = toolResult(
      await callTool(server.url, "write", { path: "victim.txt", content: "written over REST\n" }, { token: TOKENS.third, session: "victim-2" }),
    );
    expect(codeOf(viaRest)).toBe("ok");
    expect(onDisk("victim.txt")).toBe("written over REST\n");
  }, 300_000);
});

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/**
 * Send raw bytes on a fresh TCP connection; resolves with everything the
 * server sent back before closing. `cut`: close the connection as soon as the
 * bytes are written, as a client giving up mid-upload does.
 */
function rawExchange(request: string, options: { cut?: boolean } = {}): Promise<string> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    let received = "";
    const socket = connect(Number(port), hostname, () => {
      socket.write(request, () => {
        if (options.cut) socket.destroy();
      });
    });
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (received += chunk));
    socket.on("close", () => resolve(received));
    socket.on("error", reject);
  });
}

describe("the wire", () => {
  test("an HTTP/1.0 request without Host gets 400 with the fix, not a 500", async () => {
    const reply = await rawExchange("GET /v1/tools HTTP/1.0\r\n\r\n");
    expect(reply).toStartWith("HTTP/1.1 400");
    expect(reply).toContain("INVALID_ARGUMENT");
    expect(reply).toContain("no Host header");
    const post = await rawExchange(`POST /v1/tools/view HTTP/1.0\r\nAuthorization: Bearer ${TOKENS.writer}\r\nContent-Length: 2\r\n\r\n{}`);
    expect(post).toStartWith("HTTP/1.1 400");
    expect(server.stderr()).not.toContain("internal error");
  });

  test("an upload cut off mid-body is logged as an aborted request, not an internal error", async () => {
    const { host } = new URL(server.url);
    const head =
      `POST /v1/tools/write HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${TOKENS.writer}\r\n` +
      `Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{"path": "cut.txt", "content": "`;
    // The head and 64 KiB of the promised 1 MB, then the connection closes.
    await rawExchange(`${head}${"x".repeat(64 * 1024)}`, { cut: true });
    await server.waitForStderr("aborted request: POST /v1/tools/write");
    expect(server.stderr()).not.toContain("internal error");
    expect(() => onDisk("cut.txt")).toThrow();
  });
});
