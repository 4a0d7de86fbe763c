/**
 * The hosting flow end to end against a real `toolwarden serve --workspaces
 * DIR` process: tokens minted with the real `toolwarden token mint`, the
 * workspace a subdirectory of DIR (checked on disk).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { mintToken, secretBytes } from "../../src/cli/mint.ts";
import { runCli, startServe, tempDir, type ServeProcess } from "../helpers/cli.ts";
import { admin as adminCall, runHostingFlow, SEED, tarOf, tool } from "../helpers/hosting-flow.ts";

const SECRET = "3f6c1d0e9a8b7c6d5e4f30211203f4e5d6c7b8a9f0e1d2c3b4a5968778695a4b";
const env = { TW_JWT: SECRET };

/** Every file under `dir` as path -> text ({} when the directory is gone). */
function treeOnDisk(dir: string): Record<string, string> {
  const tree: Record<string, string> = {};
  if (!existsSync(dir)) return tree;
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const full = join(at, name);
      if (statSync(full).isDirectory()) walk(full);
      else tree[relative(dir, full)] = readFileSync(full, "utf8");
    }
  };
  walk(dir);
  return tree;
}

async function mint(args: string[]): Promise<string> {
  const done = await runCli(["token", "mint", "--key-env", "TW_JWT", ...args], { env });
  // Without --label the token gets a sub of its own, named on stderr; stdout stays the token alone.
  expect(done.stderr).toMatch(args.includes("--label") ? /^$/ : /^toolwarden: no --label: this token's sub is anon-[0-9a-f]{32} .*\n$/);
  expect(done.code).toBe(0);
  expect(done.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
  return done.stdout.trim();
}

describe("serve --workspaces DIR (real process)", () => {
  const dir = tempDir("tw-hosting-");
  let server: ServeProcess;
  beforeAll(async () => {
    server = await startServe(["--workspaces", dir.path, "--jwt-secret-env", "TW_JWT", "--port", "0", "--quiet"], { env });
  });
  afterAll(() => {
    server?.kill();
    dir.remove();
  });

  test("the seven steps: create from tar.gz, view + edit, export, quota, expired token, delete", async () => {
    const admin = await mint(["--workspace", "*", "--scopes", "admin", "--ttl", "1h", "--label", "platform"]);
    await runHostingFlow(
      {
        url: server.url,
        admin,
        agent: (ws) => mint(["--workspace", ws, "--scopes", "read,write", "--ttl", "1h", "--label", "agent-1"]),
        expired: (ws) =>
          mintToken(
            { alg: "HS256", secret: secretBytes(SECRET) },
            { workspace: ws, scopes: ["read"], ttlSeconds: 60, now: Math.floor(Date.now() / 1000) - 3600 },
          ),
        stored: async (ws) => treeOnDisk(join(dir.path, ws)),
      },
      "ws1",
    );
    expect(existsSync(join(dir.path, "ws1"))).toBe(false);
  });

  test("an edit or batch_edit over the quota is refused with nothing written", async () => {
    const admin = await mint(["--workspace", "*", "--scopes", "admin", "--ttl", "1h"]);
    const agent = await mint(["--workspace", "tight", "--scopes", "read,write", "--ttl", "1h"]);
    const created = await adminCall(server.url, admin, "PUT", "/v1/workspaces/tight?maxBytes=200", {
      body: (await tarOf(SEED)) as BodyInit,
      type: "application/gzip",
    });
    expect(created.status).toBe(201);
    const view = await tool(server.url, agent, "view", { path: "README.md" });
    expect(view.body.isError).toBe(false);
    const edit = await tool(server.url, agent, "edit", { path: "README.md", old_string: "demo", new_string: "d".repeat(100) });
    expect(edit.body.code).toBe("LIMIT_EXCEEDED");
    expect(edit.body.content[0].text).toContain("over the limit of 200 bytes");
    // An agent cannot ask an operator: it is told what it can do, and what to tell its user.
    expect(edit.body.content[0].text).toContain("tell your user this workspace is full");
    expect(edit.body.content[0].text).not.toContain("ask the operator");
    const id = (view.body.content[0].text as string)
      .split("\n")
      .find((l) => l.endsWith("|# demo"))!
      .split("|")[0];
    const batch = await tool(server.url, agent, "batch_edit", {
      path: "README.md",
      operations: [{ operation: "replace", start: id, content: "x".repeat(100) }],
    });
    expect(batch.body.code).toBe("LIMIT_EXCEEDED");
    expect(readFileSync(join(dir.path, "tight", "README.md"), "utf8")).toBe(SEED["README.md"]);
  });

  test("the audit log of a hosted workspace names the signed token's sub", async () => {
    const admin = await mint(["--workspace", "*", "--scopes", "admin", "--ttl", "1h"]);
    const agent = await mint(["--workspace", "audited", "--scopes", "read,write", "--ttl", "1h", "--label", "agent-9"]);
    const auditor = await mint(["--workspace", "audited", "--scopes", "audit", "--ttl", "1h"]);
    await adminCall(server.url, admin, "PUT", "/v1/workspaces/audited", { body: (await tarOf(SEED)) as BodyInit, type: "application/gzip" });
    expect((await tool(server.url, agent, "write", { path: "new.txt", content: "hi\n" })).body.isError).toBe(false);
    const audit = (await (await adminCall(server.url, auditor, "GET", "/v1/audit")).json()) as { entries: { principal: string; tool: string }[] };
    expect(audit.entries.map((e) => [e.tool, e.principal])).toContainEqual(["write", "agent-9"]);
    // The history is not the workspace's content: not counted, not exported.
    const info = (await (await adminCall(server.url, admin, "GET", "/v1/workspaces/audited")).json()) as { usage: { files: number } };
    expect(info.usage.files).toBe(4);
  });

  test("delete drops the agents' sessions: a workspace created again under the same name needs a fresh view", async () => {
    const admin = await mint(["--workspace", "*", "--scopes", "admin", "--ttl", "1h"]);
    const before = await mint(["--workspace", "again", "--scopes", "read,write", "--ttl", "1h", "--label", "agent-2"]);
    const create = async () => {
      const response = await adminCall(server.url, admin, "PUT", "/v1/workspaces/again", { body: (await tarOf(SEED)) as BodyInit, type: "application/gzip" });
      expect(response.status).toBe(201);
    };
    await create();
    expect((await tool(server.url, before, "view", { path: "README.md" })).body.isError).toBe(false);
    expect((await adminCall(server.url, admin, "DELETE", "/v1/workspaces/again")).status).toBe(200);
    await create();
    // The token of the deleted workspace is refused (test/hosting/incarnation.test.ts); one minted since, for the same
    // agent (the same principal), finds none of the observations made in the old one.
    expect((await tool(server.url, before, "view", { path: "README.md" })).status).toBe(401);
    const agent = await mint(["--workspace", "again", "--scopes", "read,write", "--ttl", "1h", "--label", "agent-2"]);
    // Same bytes, so the same content version: only the dropped session stops this edit.
    const edit = await tool(server.url, agent, "edit", { path: "README.md", old_string: "demo", new_string: "demo 2" });
    expect(edit.body.code).toBe("FS_NOT_OBSERVED");
    expect(readFileSync(join(dir.path, "again", "README.md"), "utf8")).toBe(SEED["README.md"]);
    expect((await tool(server.url, agent, "view", { path: "README.md" })).body.isError).toBe(false);
    expect((await tool(server.url, agent, "edit", { path: "README.md", old_string: "demo", new_string: "demo 2" })).body.isError).toBe(false);
  });
});
