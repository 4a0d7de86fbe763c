/** On a hosting server the inspector's feed shows the workspace's usage against its quota. */
import { afterAll, expect, test } from "bun:test";
import { localBackend } from "../../src/cli/hosting.ts";
import { jsHasher } from "../../src/hash/js.ts";
import { createApp } from "../../src/http/app.ts";
import { createMemoryLedger, createWorkspaceRegistry, hostedStorage } from "../../src/http/hosting/mod.ts";
import { createMemoryObservationStore } from "../../src/policy/memory.ts";
import { fileTools } from "../../src/tools/mod.ts";
import { tempDir } from "../helpers/cli.ts";

const dir = tempDir("tw-ui-usage-");
afterAll(() => dir.remove());

test("the feed names the workspace's bytes and files against its quota", async () => {
  const registry = createWorkspaceRegistry({
    backend: await localBackend(dir.path),
    ledger: createMemoryLedger(),
    defaultQuota: { maxBytes: 1024 * 1024, maxFiles: 10 },
  });
  await registry.create("team1", {});
  const app = createApp({
    tools: fileTools,
    auth: {
      mode: "bearer",
      tokens: [
        { token: "agent-token-0123456789", workspace: "team1", scopes: ["read", "write"] },
        { token: "audit-token-0123456789", workspace: "team1", scopes: ["audit"] },
      ],
    },
    storageFor: (ws) => hostedStorage(registry, ws),
    historyFor: (ws) => registry.history(ws),
    workspaces: registry,
    observations: createMemoryObservationStore(),
    hasher: jsHasher,
    version: "test",
  });
  const write = await app.request("http://127.0.0.1/v1/tools/write", {
    method: "POST",
    headers: { authorization: "Bearer agent-token-0123456789", "content-type": "application/json" },
    body: JSON.stringify({ path: "notes.txt", content: "x".repeat(2048) }),
  });
  expect((await write.json()).isError).toBe(false);
  const signin = await app.request("http://127.0.0.1/ui/signin", {
    method: "POST",
    headers: { origin: "http://127.0.0.1", "content-type": "application/x-www-form-urlencoded" },
    body: "token=audit-token-0123456789",
  });
  const cookie = signin.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const feed = await (await app.request("http://127.0.0.1/ui", { headers: { cookie } })).text();
  expect(feed).toContain("Usage of workspace team1");
  expect(feed).toContain("2.0 KiB of 1.0 MiB (0%)");
  expect(feed).toContain("1 of 10 files (10%)");
});
