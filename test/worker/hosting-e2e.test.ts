/**
 * The hosting flow end to end on the Worker: the real bundle in workerd
 * under Miniflare, keys from the TOOLWARDEN_JWT_KEYS secret (an HS256 key
 * for agents, an Ed25519 public key for the admin), workspaces as R2
 * prefixes, usage in the UsageDO Durable Object. Also: usage stays exact
 * when many writers race for the last bytes of a quota.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { exportJWK, generateKeyPair } from "jose";
import { mintToken, secretBytes, type SigningKey } from "../../src/cli/mint.ts";
import type { WorkspaceInfo } from "../../src/http/hosting/registry.ts";
import { admin, runHostingFlow, tarOf, tool } from "../helpers/hosting-flow.ts";
import { buildWorkerBundle, startWorker, type RunningWorker, type WorkerBundle } from "../helpers/worker-e2e.ts";

const SECRET = "0123456789abcdef0123456789abcdef-worker-hs256-secret";
const agentKey: SigningKey = { alg: "HS256", kid: "agents-1", secret: secretBytes(SECRET) };
let adminKey: SigningKey;

let bundle: WorkerBundle;
let worker: RunningWorker;
let url: string;
let adminToken: string;

beforeAll(async () => {
  const pair = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  const privateJwk = await exportJWK(pair.privateKey);
  const publicJwk = await exportJWK(pair.publicKey);
  adminKey = { alg: "EdDSA", kid: "admin-1", jwk: privateJwk };
  bundle = await buildWorkerBundle();
  worker = await startWorker(bundle, {
    vars: {
      TOOLWARDEN_JWT_KEYS: JSON.stringify([
        { kid: "agents-1", alg: "HS256", secret: SECRET },
        { kid: "admin-1", alg: "EdDSA", jwk: publicJwk },
      ]),
      TOOLWARDEN_QUOTA_MAX_FILES: "50",
    },
  });
  url = worker.url.origin;
  adminToken = await mintToken(adminKey, { workspace: "*", scopes: ["admin"], ttlSeconds: 3600, label: "platform" });
}, 90_000);

afterAll(async () => {
  await worker?.dispose();
  bundle?.dispose();
});

describe("hosted workspaces on the Worker (Miniflare)", () => {
  test("the seven steps, each workspace an R2 prefix", async () => {
    const now = Math.floor(Date.now() / 1000);
    await runHostingFlow(
      {
        url,
        admin: adminToken,
        agent: (ws) => mintToken(agentKey, { workspace: ws, scopes: ["read", "write"], ttlSeconds: 3600, label: "agent-w" }),
        expired: (ws) => mintToken(agentKey, { workspace: ws, scopes: ["read"], ttlSeconds: 60, now: now - 3600 }),
        stored: async (ws) => {
          const objects = await worker.objects(`${ws}/`);
          return Object.fromEntries(Object.entries(objects).map(([k, v]) => [k.slice(ws.length + 1), v]));
        },
      },
      "wsw",
    );
  }, 60_000);

  test("concurrent writers racing for a quota: usage stays exact and never passes the limit", async () => {
    const ws = "race";
    const created = await admin(url, adminToken, "PUT", `/v1/workspaces/${ws}?maxBytes=1000&maxFiles=100`, {
      body: (await tarOf({})) as BodyInit,
      type: "application/gzip",
    });
    expect(created.status).toBe(201);
    const agent = await mintToken(agentKey, { workspace: ws, scopes: ["read", "write"], ttlSeconds: 3600 });
    // 24 writers of 100 bytes each into a 1000-byte quota: exactly 10 can land.
    const results = await Promise.all(Array.from({ length: 24 }, (_, i) => tool(url, agent, "write", { path: `f${i}.txt`, content: "y".repeat(100) })));
    const landed = results.filter((r) => r.body.isError === false).length;
    const refused = results.filter((r) => r.body.code === "LIMIT_EXCEEDED").length;
    expect(landed).toBe(10);
    expect(refused).toBe(14);
    const info = (await (await admin(url, adminToken, "GET", `/v1/workspaces/${ws}`)).json()) as WorkspaceInfo;
    expect(info.usage).toEqual({ bytes: 1000, files: 10 });
    const stored = Object.keys(await worker.objects(`${ws}/`)).filter((key) => !key.startsWith(`${ws}/.toolwarden/`));
    expect(stored.length).toBe(10);
  }, 60_000);

  test("an agent token cannot administer, and a workspace admin only its own workspace", async () => {
    const agent = await mintToken(agentKey, { workspace: "race", scopes: ["read", "write"], ttlSeconds: 3600 });
    const denied = await admin(url, agent, "DELETE", "/v1/workspaces/race");
    expect(denied.status).toBe(403);
    const wsAdmin = await mintToken(adminKey, { workspace: "race", scopes: ["admin"], ttlSeconds: 3600 });
    expect((await admin(url, wsAdmin, "GET", "/v1/workspaces/race")).status).toBe(200);
    expect((await admin(url, wsAdmin, "GET", "/v1/workspaces/other")).status).toBe(403);
    expect((await admin(url, wsAdmin, "GET", "/v1/workspaces")).status).toBe(403);
  });
});
