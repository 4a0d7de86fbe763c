/**
 * The three servers the concurrency suite drives over HTTP, each with the
 * real file tools: the app in-process over memory storage, the real
 * `toolwarden serve` process over a local directory, and the deployed
 * Worker bundle in workerd (Miniflare) over R2 and the Durable Object.
 */
import { jsHasher } from "../../../src/hash/js.ts";
import { createApp } from "../../../src/http/mod.ts";
import { createMemoryObservationStore } from "../../../src/policy/memory.ts";
import { createMemoryStorage } from "../../../src/storage/memory/mod.ts";
import { fileTools } from "../../../src/tools/mod.ts";
import { startServe, tempDir } from "../cli.ts";
import { buildWorkerBundle, startWorker } from "../worker-e2e.ts";
import { restCaller, type RestCaller } from "./client.ts";

/** A server under test and how to stop it. */
export interface Target {
  readonly caller: RestCaller;
  stop(): Promise<void>;
}

const TOKEN = "reliability-token-0123456789";

/** The app (REST + MCP, real tools) on Bun.serve over memory storage, in this process. */
export function startMemoryTarget(): Target {
  const storage = createMemoryStorage();
  const app = createApp({
    tools: fileTools,
    auth: { mode: "bearer", tokens: [{ token: TOKEN, workspace: "ws", scopes: ["read", "write"] }] },
    storageFor: () => storage,
    observations: createMemoryObservationStore(),
    hasher: jsHasher,
    version: "reliability",
  });
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: app.fetch });
  return { caller: restCaller(`http://127.0.0.1:${server.port}`, TOKEN), stop: () => server.stop(true) };
}

/** `toolwarden serve DIR` as a user runs it (its own process, fsync on), over a fresh temp directory. */
export async function startLocalTarget(): Promise<Target & { readonly dir: string }> {
  const dir = tempDir("tw-rel-");
  const server = await startServe([dir.path, "--port", "0", "--token", TOKEN, "--quiet"]);
  return {
    dir: dir.path,
    caller: restCaller(server.url, TOKEN),
    async stop() {
      server.kill();
      await server.exited;
      dir.remove();
    },
  };
}

/**
 * worker.ts bundled as a deploy would and run in workerd over Miniflare's R2
 * and Durable Object. Each request closes its connection: workerd under
 * Miniflare resets keep-alive connections that sat idle for a few seconds,
 * and a reset request's outcome would be unknown to the client (that is the
 * test harness's transport, not the Worker: Cloudflare fronts real ones).
 */
export async function startR2Target(): Promise<Target> {
  const bundle = await buildWorkerBundle();
  try {
    const tokens = JSON.stringify([{ token: TOKEN, workspace: "ws", scopes: ["read", "write"] }]);
    const worker = await startWorker(bundle, { vars: { TOOLWARDEN_TOKENS: tokens } });
    return {
      caller: restCaller(worker.url.href, TOKEN, { reuseConnections: false }),
      async stop() {
        await worker.dispose();
        bundle.dispose();
      },
    };
  } catch (error) {
    bundle.dispose();
    throw error;
  }
}
