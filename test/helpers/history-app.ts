/**
 * The in-process app with an audit log kept under the reserved segment of
 * its memory storage (as on R2/S3), served on a real port, with an agent,
 * an admin and an auditor token: the fixture of the history, revert and
 * inspector tests.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { jsHasher } from "../../src/hash/js.ts";
import { createStorageHistory } from "../../src/history/mod.ts";
import { createApp } from "../../src/http/app.ts";
import type { TokenGrant } from "../../src/http/auth.ts";
import { createMemoryObservationStore } from "../../src/policy/memory.ts";
import { RESERVED_SEGMENT } from "../../src/storage/guard.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { prefixedStorage } from "../../src/storage/prefixed.ts";
import { fileTools } from "../../src/tools/mod.ts";
import type { HistoryTarget } from "./history-flow.ts";
import type { RunningWorker } from "./worker-e2e.ts";

export const AGENT_TOKEN = "agent-token-0123456789";
export const ADMIN_TOKEN = "admin-token-0123456789";
export const AUDIT_TOKEN = "audit-token-0123456789";

/** Start the app on 127.0.0.1 (port 0); `stop` ends it. */
export function startHistoryApp() {
  const storage = createMemoryStorage();
  const history = createStorageHistory(prefixedStorage(storage, `${RESERVED_SEGMENT}/history`));
  const app = createApp({
    tools: fileTools,
    auth: {
      mode: "bearer",
      tokens: historyGrants("ws"),
    },
    storageFor: () => storage,
    historyFor: () => history,
    observations: createMemoryObservationStore(),
    hasher: jsHasher,
    version: "0.0.0-test",
  });
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: app.fetch });
  const url = `http://127.0.0.1:${server.port}`;
  const target: HistoryTarget = {
    url,
    agentToken: AGENT_TOKEN,
    adminToken: ADMIN_TOKEN,
    auditToken: AUDIT_TOKEN,
    seed: async (path, bytes) => void (await storage.write(path, bytes)),
    bytes: async (path) => ((await storage.stat(path)) ? (await storage.read(path)).bytes : undefined),
  };
  return { storage, history, url, target, stop: () => server.stop(true) };
}

/** Grants of the agent, admin and auditor tokens on `workspace` (a directory, or a hosted name). */
export function historyGrants(workspace: string): TokenGrant[] {
  return [
    { token: AGENT_TOKEN, workspace, scopes: ["read", "write"], label: "agent" },
    { token: ADMIN_TOKEN, workspace, scopes: ["admin"], label: "admin" },
    { token: AUDIT_TOKEN, workspace, scopes: ["audit"], label: "auditor" },
  ];
}

/** A `--config` file's text granting {@link historyGrants} on the directory `root`. */
export function historyTokensConfig(root: string): string {
  return JSON.stringify({ tokens: historyGrants(root) });
}

/** The target of a server at `url` serving the directory `root` with {@link historyTokensConfig}'s tokens. */
export function directoryTarget(url: string, root: string): HistoryTarget {
  return {
    url,
    agentToken: AGENT_TOKEN,
    adminToken: ADMIN_TOKEN,
    auditToken: AUDIT_TOKEN,
    async seed(path, bytes) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), bytes);
    },
    bytes: async (path) => (existsSync(join(root, path)) ? new Uint8Array(readFileSync(join(root, path))) : undefined),
  };
}

/** The target of a Worker serving workspace "ws" from R2 with {@link historyGrants}' tokens ("" for an admin it was not given). */
export function workerTarget(worker: RunningWorker, adminToken = ADMIN_TOKEN): HistoryTarget {
  return {
    url: worker.url.origin,
    agentToken: AGENT_TOKEN,
    adminToken,
    auditToken: AUDIT_TOKEN,
    seed: (path, bytes) => worker.putObject(`ws/${path}`, bytes),
    bytes: (path) => worker.getObject(`ws/${path}`),
  };
}
