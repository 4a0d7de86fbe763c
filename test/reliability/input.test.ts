/**
 * The bad-input table of test/reliability/corpus-input.ts against the real
 * `toolwarden serve`: every row gets its specific status and code and a
 * message that says how to recover; after every row the server still
 * answers /healthz and no file in the workspace (or next to it) changed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ServeProcess } from "../helpers/cli.ts";
import { INPUT_CASES, INPUT_FILES, MAX_FILE_BYTES, type InputCase } from "../helpers/reliability/corpus-input.ts";
import { makeLocalFixture, serveFixture, snapshotTree, treeChanges, type LocalFixture } from "../helpers/reliability/fixture-local.ts";
import {
  callTool,
  codeOf,
  healthy,
  mcpCode,
  mcpOpen,
  mcpSend,
  send,
  textOf,
  toolResult,
  type ErrorReply,
  type McpToolResult,
  type Reply,
} from "../helpers/reliability/http.ts";

const TOKEN = "rel-input-token-0123456789abcdef";

let fixture: LocalFixture;
let server: ServeProcess;
let mcpSession: string;

beforeAll(async () => {
  fixture = makeLocalFixture();
  for (const [path, body] of Object.entries(INPUT_FILES)) {
    mkdirSync(dirname(join(fixture.ws, path)), { recursive: true });
    writeFileSync(join(fixture.ws, path), typeof body === "function" ? body() : body);
  }
  server = await serveFixture(fixture, { tokens: [{ token: TOKEN, scopes: ["read", "write"], label: "input" }], limits: { maxFileBytes: MAX_FILE_BYTES } });
  mcpSession = await mcpOpen(server.url, `Bearer ${TOKEN}`);
}, 30_000);
afterAll(() => {
  server?.kill();
  fixture?.remove();
});

/** Send one row's request (after its view, in the same session). */
async function sendRow(row: InputCase, session: string): Promise<Reply> {
  const raw = row.raw?.();
  if (row.viewFirst !== undefined) {
    const view = toolResult(await callTool(server.url, "view", { path: row.viewFirst }, { token: TOKEN, session }));
    expect(view.content.length).toBeGreaterThan(0);
  }
  switch (row.transport ?? "rest") {
    case "rest":
      // A row that sets X-Session-Id itself sends its own.
      return callTool(server.url, row.tool!, row.args, {
        token: TOKEN,
        ...(row.headers?.["x-session-id"] === undefined ? { session } : {}),
        headers: row.headers,
        ...(raw !== undefined ? { rawBody: raw } : {}),
      });
    case "mcp":
      return mcpSend(server.url, row.args, {
        authorization: `Bearer ${TOKEN}`,
        ...(row.noSession ? {} : { session: mcpSession }),
        ...(raw !== undefined ? { rawBody: raw } : {}),
      });
    case "http":
      return send(new URL(row.route!, server.url), row.args, { token: TOKEN, method: row.method, headers: { accept: "application/json, text/event-stream" } });
  }
}

/** The code and message of any reply: a transport error, a JSON-RPC error, or a tool result. */
function answer(reply: Reply): { code: string; message: string } {
  const body = reply.json as Partial<ErrorReply> & { error?: { code: unknown; message: string }; result?: McpToolResult; isError?: boolean };
  if (body === undefined) throw new Error(`not JSON (${reply.status}): ${reply.text.slice(0, 300)}`);
  if (body.error) return { code: String(body.error.code), message: body.error.message };
  if (body.result) return { code: mcpCode(body.result), message: body.result.content.map((c) => c.text).join("\n") };
  const result = toolResult(reply);
  return { code: codeOf(result), message: textOf(result) };
}

describe(`bad input (${INPUT_CASES.length} rows)`, () => {
  INPUT_CASES.forEach((row, i) => {
    test(`#${i} ${row.name}: ${row.expect.status} ${row.expect.code}`, async () => {
      const before = snapshotTree(fixture.base);
      const reply = await sendRow(row, `input-${i}`);
      const got = answer(reply);
      expect({ status: reply.status, code: got.code }).toEqual({ status: row.expect.status, code: row.expect.code });
      expect(got.message).toMatch(row.expect.phrase);
      expect(await healthy(server.url)).toBe(true);
      expect(treeChanges(before, snapshotTree(fixture.base))).toEqual([]);
    }, 20_000);
  });
});

// A view of a non-text file records the version it saw, so the write its message offers is not
// refused as unseen (before, the recovery looped: write asked for a view, the view said FS_NOT_TEXT).
test("a binary file: view, then write replaces it whole", async () => {
  writeFileSync(join(fixture.ws, "replace-me.bin"), Uint8Array.from([0x00, 0x01, 0x02, 0xff]));
  const session = "replace-binary";
  expect(codeOf(toolResult(await callTool(server.url, "view", { path: "replace-me.bin" }, { token: TOKEN, session })))).toBe("FS_NOT_TEXT");
  const write = toolResult(await callTool(server.url, "write", { path: "replace-me.bin", content: "now text\n" }, { token: TOKEN, session }));
  expect(codeOf(write)).toBe("ok");
  expect(readFileSync(join(fixture.ws, "replace-me.bin"), "utf8")).toBe("now text\n");
});
