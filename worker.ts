/**
 * Cloudflare Workers entry: the Hono app from `src/http` over R2 (files) and
 * a Durable Object (observations), with the file tools and no shell.
 *
 * Bindings (wrangler.toml): `FILES` (R2 bucket; a workspace is the key prefix
 * `<workspace>/`), `OBSERVATIONS` (Durable Object namespace of
 * `ObservationsDO`, one object per observation session; see
 * src/policy/durable.ts for why per session).
 * Secret: `TOOLWARDEN_TOKENS`, a JSON array of
 * `{"token", "workspace", "scopes", "label"?}` set with
 * `wrangler secret put TOOLWARDEN_TOKENS`; tokens never live in the bundle.
 * A missing or broken secret makes every request a 500 with a JSON error
 * body and the reason in the log (src/worker/config.ts lists every var).
 */
import type { DurableObjectNamespace, R2Bucket } from "@cloudflare/workers-types/index.ts";
import fnvWasm from "./wasm/fnv.wasm";
import pkg from "./package.json";
import { fileTools } from "./src/tools/mod.ts";
import { createWorkerFetch } from "./src/worker/handler.ts";
import type { WorkerVars } from "./src/worker/config.ts";

export { ObservationsDO } from "./src/policy/durable.ts";
export { UsageDO } from "./src/worker/usage-do.ts";

/**
 * The bindings as the Workers runtime types them; passing this where the
 * handler's structural `WorkerEnv` is expected checks that they fit.
 */
interface Env extends WorkerVars {
  readonly FILES: R2Bucket;
  readonly OBSERVATIONS: DurableObjectNamespace;
  readonly USAGE: DurableObjectNamespace;
}

// The bundler hands wasm/fnv.wasm over as a compiled WebAssembly.Module (wrangler's default CompiledWasm rule).
const handle = createWorkerFetch({ tools: fileTools, wasm: fnvWasm, version: pkg.version });

/** The Worker: `fetch` serves REST (`/v1`), MCP (`/mcp`), `/healthz` and `/openapi.json`. */
export default {
  fetch(request: Request, env: Env): Promise<Response> {
    return handle(request, env);
  },
};
