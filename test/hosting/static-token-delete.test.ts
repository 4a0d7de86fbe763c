/**
 * A static token from the config file, bound to a hosted workspace, while a
 * DELETE of that workspace runs: refused from the DELETE's first step (its
 * tombstone), with words that say so, and nothing written. Static tokens
 * are not bound to one creation of their workspace (no tombstone refuses
 * them otherwise). The DELETE here is another process's over the same
 * directory, stopped after its first step: its tombstone on disk, its
 * record not yet gone. Real `toolwarden serve` process.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startServe, tempDir, type ServeProcess } from "../helpers/cli.ts";
import { admin, tool } from "../helpers/hosting-flow.ts";

const ADMIN = "static-admin-token-0123456789abcdef";
const AGENT = "static-agent-token-0123456789abcdef";
const env = { TW_ADMIN: ADMIN, TW_AGENT: AGENT };

interface Refusal {
  error: { code: string; message: string };
}

describe("a static config token of a workspace being deleted (real process)", () => {
  const dir = tempDir("tw-static-delete-");
  let server: ServeProcess;
  beforeAll(async () => {
    const config = join(dir.path, "toolwarden.json");
    mkdirSync(join(dir.path, "spaces"));
    writeFileSync(
      config,
      JSON.stringify({
        tokens: [
          { tokenEnv: "TW_ADMIN", workspace: "*", scopes: ["admin"], label: "platform" },
          { tokenEnv: "TW_AGENT", workspace: "ws1", scopes: ["read", "write"], label: "agent" },
        ],
      }),
    );
    server = await startServe(["--workspaces", join(dir.path, "spaces"), "--config", config, "--port", "0", "--quiet"], { env });
  }, 60_000);
  afterAll(() => {
    server?.kill();
    dir.remove();
  });

  test("from the DELETE's first step its calls are refused as being deleted, and nothing is written", async () => {
    const root = join(dir.path, "spaces");
    expect((await admin(server.url, ADMIN, "PUT", "/v1/workspaces/ws1")).status).toBe(201);
    expect((await tool(server.url, AGENT, "write", { path: "notes.txt", content: "one\n" })).body.isError).toBe(false);
    expect(readFileSync(join(root, "ws1", "notes.txt"), "utf8")).toBe("one\n");

    // The first step of a DELETE by another process: the tombstone is written, the record and the files are still there.
    const deletedAt = Date.now();
    writeFileSync(join(root, ".toolwarden", "workspaces", "ws1.deleted"), JSON.stringify({ deletedAt }));

    const view = await tool(server.url, AGENT, "view", { path: "notes.txt" });
    expect(view.status).toBe(404);
    const refusal = (view.body as unknown as Refusal).error;
    expect(refusal.code).toBe("FS_NOT_FOUND");
    expect(refusal.message).toBe(
      `workspace "ws1" is being deleted (DELETE since ${new Date(deletedAt).toISOString()}): nothing in it can be read or written any more. Stop working in it and tell your user.`,
    );
    expect(refusal.message).not.toContain("one");
    const write = await tool(server.url, AGENT, "write", { path: "planted.txt", content: "late\n" });
    expect(write.status).toBe(404);
    expect((write.body as unknown as Refusal).error.message).toContain('workspace "ws1" is being deleted');
    expect(existsSync(join(root, "ws1", "planted.txt"))).toBe(false);
    expect(readFileSync(join(root, "ws1", "notes.txt"), "utf8")).toBe("one\n");

    // The DELETE finished (here by this server): the token's workspace no longer exists.
    expect((await admin(server.url, ADMIN, "DELETE", "/v1/workspaces/ws1")).status).toBe(200);
    const after = await tool(server.url, AGENT, "view", { path: "notes.txt" });
    expect(after.status).toBe(404);
    expect((after.body as unknown as Refusal).error.message).toContain('workspace "ws1" does not exist');
  });
});
