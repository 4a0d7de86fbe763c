/**
 * DELETE while an import streams, then PUT again: the old import is stopped,
 * told its workspace was deleted, and its clean-up never touches the new
 * workspace, also when the DELETE comes from another process (a second
 * registry over the same directory) that cannot stop it. The archive is a
 * stream the test holds open, so the order of events is the test's, not a
 * clock's. While the import runs, GET says so.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { localBackend } from "../../src/cli/hosting.ts";
import { jsHasher } from "../../src/hash/js.ts";
import { createApp } from "../../src/http/app.ts";
import { createMemoryLedger, createWorkspaceRegistry, hostedStorage } from "../../src/http/hosting/mod.ts";
import { createMemoryObservationStore } from "../../src/policy/memory.ts";
import { fileTools } from "../../src/tools/mod.ts";
import { tempDir } from "../helpers/cli.ts";
import { tarOf } from "../helpers/hosting-flow.ts";

const ADMIN = "admin-token-0123456789abcdef";
const AGENT = "agent-token-0123456789abcdef";
const dir = tempDir("tw-import-race-");
afterAll(() => dir.remove());

/** One "process": its own registry and ledger over the shared directory. */
async function processOver(root: string) {
  mkdirSync(root, { recursive: true });
  const registry = createWorkspaceRegistry({
    backend: await localBackend(root),
    ledger: createMemoryLedger(),
    defaultQuota: { maxBytes: 1024 * 1024 * 1024, maxFiles: 1000 },
  });
  const app = createApp({
    tools: fileTools,
    auth: {
      mode: "bearer",
      tokens: [
        { token: ADMIN, workspace: "*", scopes: ["admin"] },
        { token: AGENT, workspace: "slow", scopes: ["read", "write"] },
      ],
    },
    storageFor: (ws) => hostedStorage(registry, ws),
    workspaces: registry,
    observations: createMemoryObservationStore(),
    hasher: jsHasher,
    version: "test",
  });
  const call = async (method: string, path: string, body?: BodyInit, type?: string) => {
    const headers: Record<string, string> = { authorization: `Bearer ${ADMIN}`, host: "127.0.0.1", ...(type ? { "content-type": type } : {}) };
    // @ts-expect-error: Bun and undici need duplex for a stream body
    const response = await app.fetch(new Request(`http://127.0.0.1${path}`, { method, headers, body, duplex: "half" }));
    return { status: response.status, json: (await response.json()) as { error?: { code: string; message: string } } };
  };
  const write = async (path: string, content: string) => {
    const response = await app.fetch(
      new Request("http://127.0.0.1/v1/tools/write", {
        method: "POST",
        headers: { authorization: `Bearer ${AGENT}`, host: "127.0.0.1", "content-type": "application/json" },
        body: JSON.stringify({ path, content }),
      }),
    );
    return (await response.json()) as { isError: boolean };
  };
  return { registry, call, write };
}

/** A tar body sent in two parts: the first now, the rest when the test says. */
async function heldArchive() {
  const bytes = await tarOf({ "a.txt": "a\n".repeat(100), "b.txt": "b\n".repeat(100), "c.txt": "c\n" }, [], false);
  let control!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (control = c) });
  control.enqueue(bytes.subarray(0, 1024));
  return {
    body,
    /** Send the rest (when the stream is still open: a stopped import cancelled it). */
    finish() {
      try {
        control.enqueue(bytes.subarray(1024));
        control.close();
      } catch {
        // Already cancelled by the server.
      }
    },
    /** Send bytes that are no tar, so the import fails. */
    corrupt() {
      try {
        control.enqueue(new Uint8Array(2048).fill(0x41));
        control.close();
      } catch {
        // Already cancelled by the server.
      }
    },
  };
}

/** Until the import's record is on disk (the PUT writes it before reading the body). */
async function importing(root: string, ws: string) {
  while (!existsSync(join(root, ".toolwarden", "workspaces", `${ws}.json`))) await new Promise((r) => setImmediate(r));
}

describe("DELETE during an import, then PUT again", () => {
  test("the import is stopped and told; the new workspace, its files and its tenant's writes stay", async () => {
    const root = join(dir.path, "one");
    const p = await processOver(root);
    const held = await heldArchive();
    const oldImport = p.call("PUT", "/v1/workspaces/slow", held.body, "application/x-tar");
    await importing(root, "slow");

    // While it imports: GET and the archive say so, and what to do.
    const info = await p.call("GET", "/v1/workspaces/slow");
    expect(info.status).toBe(409);
    expect(info.json.error!.message).toContain('is being imported (state "importing", since ');
    expect(info.json.error!.message).toContain("DELETE /v1/workspaces/slow stops it");
    expect((await p.call("GET", "/v1/workspaces/slow/archive")).status).toBe(409);

    expect((await p.call("DELETE", "/v1/workspaces/slow")).status).toBe(200);
    const answered = await oldImport;
    expect(answered.status).toBe(404);
    expect(answered.json.error!.message).toContain("was deleted (DELETE /v1/workspaces/slow) while this import ran");

    expect((await p.call("PUT", "/v1/workspaces/slow")).status).toBe(201);
    expect((await p.write("mine.txt", "mine\n")).isError).toBe(false);
    held.finish();
    expect((await p.call("GET", "/v1/workspaces/slow")).status).toBe(200);
    expect(readdirSync(join(root, "slow")).filter((n) => n !== ".toolwarden")).toEqual(["mine.txt"]);
    expect(readFileSync(join(root, "slow", "mine.txt"), "utf8")).toBe("mine\n");
  });

  test("a DELETE and PUT from another process: the failing import cleans up nothing of the new workspace", async () => {
    const root = join(dir.path, "two");
    const importer = await processOver(root);
    const other = await processOver(root);
    const held = await heldArchive();
    const oldImport = importer.call("PUT", "/v1/workspaces/slow", held.body, "application/x-tar");
    await importing(root, "slow");

    expect((await other.call("DELETE", "/v1/workspaces/slow")).status).toBe(200);
    expect((await other.call("PUT", "/v1/workspaces/slow")).status).toBe(201);
    expect((await other.write("mine.txt", "mine\n")).isError).toBe(false);
    held.corrupt();
    const answered = await oldImport;
    expect(answered.status).toBe(404);
    expect(answered.json.error!.message).toContain("while this import ran");

    expect(existsSync(join(root, ".toolwarden", "workspaces", "slow.json"))).toBe(true);
    expect(readFileSync(join(root, "slow", "mine.txt"), "utf8")).toBe("mine\n");
    expect((await other.call("GET", "/v1/workspaces/slow")).status).toBe(200);
  });
});
