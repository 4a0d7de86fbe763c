/**
 * The Worker's `fetch`: builds the Hono app from `src/http` once per isolate
 * (at the first request, because bindings, secrets and the async WASM
 * instantiation are only available then) and serves every request with it.
 *
 * A broken configuration never yields an open or half-configured server:
 * every request is answered 500 with a JSON error body, and the reason goes
 * to the log (once per isolate), without any token in it. The same holds for
 * an R2 bucket that does not enforce conditional puts (probed once per
 * isolate, see src/storage/r2-probe.ts); a probe that merely could not reach
 * R2 answers 503 and is retried by the next request.
 */
import type { Hono } from "hono";
import { createHasher } from "../hash/loader.ts";
import type { LineHasher } from "../hash/types.ts";
import { createApp } from "../http/app.ts";
import type { AppEnv } from "../http/middleware.ts";
import { errorResponse } from "../http/responses.ts";
import { createPipeline, installLoudFailure } from "../pipeline/mod.ts";
import { createDurableObservationStore, type DurableObjectNamespaceLike } from "../policy/durable.ts";
import { createStorageHistory, type HistoryStore } from "../history/mod.ts";
import { RESERVED_SEGMENT } from "../storage/guard.ts";
import type { R2BucketLike } from "../storage/r2-bucket.ts";
import { probeR2Conditions, R2ConditionsIgnoredError } from "../storage/r2-probe.ts";
import { createR2Storage } from "../storage/r2.ts";
import type { Storage } from "../storage/types.ts";
import type { ToolDef } from "../tools/types.ts";
import { parseWorkerConfig, WorkerConfigError, type WorkerVars } from "./config.ts";

/** The Worker's environment: the two bindings plus the vars of {@link WorkerVars}. */
export interface WorkerEnv extends WorkerVars {
  /** The R2 bucket holding every workspace under `<workspace>/`. */
  readonly FILES: R2BucketLike;
  /** The Durable Object namespace of `ObservationsDO`. */
  readonly OBSERVATIONS: DurableObjectNamespaceLike;
}

/** Where the handler logs (console on Workers; a spy in tests). */
export interface WorkerLog {
  log(message: string): void;
  error(message: string, detail?: unknown): void;
}

/** What {@link createWorkerFetch} needs. */
export interface WorkerFetchOptions {
  /** The tools served (no shell: there is none on the edge). */
  readonly tools: readonly ToolDef[];
  /** wasm/fnv.wasm, precompiled by the bundler (Workers cannot compile bytes at run time). */
  readonly wasm?: WebAssembly.Module;
  /** Reported by `/healthz`, MCP initialize and `/openapi.json`. */
  readonly version: string;
  readonly log?: WorkerLog;
}

/** A Worker `fetch` handler. */
export type WorkerFetch = (request: Request, env: WorkerEnv) => Promise<Response>;

const MISCONFIGURED =
  "The server is misconfigured and refuses every request until the operator fixes it (the reason is in the Worker's log). " +
  "This is not a problem with your request.";

/** The settings an app was built from: a changed secret or var builds a new app. */
function configKey(env: WorkerEnv): string {
  return JSON.stringify([
    env.TOOLWARDEN_TOKENS,
    env.TOOLWARDEN_ALLOWED_HOSTS,
    env.TOOLWARDEN_ALLOWED_ORIGINS,
    env.TOOLWARDEN_MAX_FILE_BYTES,
    env.TOOLWARDEN_RULES,
    env.TOOLWARDEN_MAX_PATHS_PER_SESSION,
    env.TOOLWARDEN_SESSION_IDLE_SECONDS,
  ]);
}

/** Build the Worker's `fetch`. Does no I/O until the first request, so it is safe at module scope. */
export function createWorkerFetch(options: WorkerFetchOptions): WorkerFetch {
  const log: WorkerLog = options.log ?? {
    log: (message) => console.log(message),
    error: (message, detail) => (detail === undefined ? console.error(message) : console.error(message, detail)),
  };
  let hasher: Promise<LineHasher> | undefined;
  let probed: Promise<void> | undefined;
  let built: { readonly key: string; readonly app: Promise<Hono<AppEnv>> } | undefined;

  /** The R2 probe, once per isolate; a failure to reach R2 is forgotten so the next request retries. */
  function probe(bucket: R2BucketLike): Promise<void> {
    if (!probed) {
      const attempt = probeR2Conditions(bucket);
      probed = attempt;
      attempt.catch((error: unknown) => {
        if (error instanceof R2ConditionsIgnoredError) {
          log.error(`toolwarden: storage refused, answering every request with 500: ${error.message}`);
        } else {
          if (probed === attempt) probed = undefined;
          log.error("toolwarden: the R2 start-up probe could not reach the bucket; the next request retries", error);
        }
      });
    }
    return probed;
  }

  async function build(env: WorkerEnv): Promise<Hono<AppEnv>> {
    if (!env.FILES) throw new WorkerConfigError("The R2 binding FILES is missing: add [[r2_buckets]] binding = \"FILES\" to wrangler.toml.");
    if (!env.OBSERVATIONS) {
      throw new WorkerConfigError("The Durable Object binding OBSERVATIONS is missing: add it under [[durable_objects.bindings]] in wrangler.toml.");
    }
    const config = parseWorkerConfig(env);
    // createHasher never rejects: a module that fails to load or to self-test falls back to the JS hasher.
    const lineHasher = await (hasher ??= createHasher({ wasm: options.wasm }));
    try {
      const pipeline = createPipeline(options.tools);
      installLoudFailure(pipeline, config.rules);
      const storages = new Map<string, Storage>();
      const histories = new Map<string, HistoryStore>();
      const bucket = env.FILES;
      const app = createApp({
        pipeline,
        auth: { mode: "bearer", tokens: config.tokens },
        storageFor(workspace) {
          let storage = storages.get(workspace);
          if (!storage) storages.set(workspace, (storage = createR2Storage(bucket, `${workspace}/`)));
          return storage;
        },
        observations: createDurableObservationStore(env.OBSERVATIONS),
        // Each workspace's audit log and history live under its reserved prefix, which no tool reaches.
        historyFor(workspace) {
          let history = histories.get(workspace);
          if (!history) {
            histories.set(workspace, (history = createStorageHistory(createR2Storage(bucket, `${workspace}/${RESERVED_SEGMENT}/history/`))));
          }
          return history;
        },
        hasher: lineHasher,
        version: options.version,
        // Many isolates serve one deployment: nothing may depend on an isolate's memory.
        mcp: { mode: "stateless" },
        allowedHosts: config.allowedHosts,
        allowedOrigins: config.allowedOrigins,
        limits: { maxFileBytes: config.maxFileBytes, callTimeoutMs: 60_000 },
        onCall: (info) => log.log(JSON.stringify({ event: "toolwarden.call", ...info })),
        onError: (error) => log.error("toolwarden: internal error", error),
        onAbort: (request) => log.log(JSON.stringify({ event: "toolwarden.aborted", ...request })),
      });
      // One line per isolate: which hasher backend actually loaded is worth seeing in `wrangler tail`.
      log.log(
        JSON.stringify({
          event: "toolwarden.start",
          version: options.version,
          hasher: lineHasher.backend,
          tools: options.tools.map((tool) => tool.name),
          tokens: config.tokens.length,
        }),
      );
      return app;
    } catch (error) {
      // createApp and the rule loader throw on inconsistent settings (duplicate token, bad host entry, bad rule).
      throw new WorkerConfigError(error instanceof Error ? error.message : String(error));
    }
  }

  return async (request, env) => {
    const key = configKey(env);
    if (built?.key !== key) {
      const app = build(env);
      built = { key, app };
      app.catch((error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        log.error(`toolwarden: configuration error, answering every request with 500: ${reason}`);
      });
    }
    let app: Hono<AppEnv>;
    try {
      app = await built.app;
    } catch {
      return errorResponse(500, "INTERNAL_ERROR", MISCONFIGURED);
    }
    try {
      await probe(env.FILES);
    } catch (error) {
      if (error instanceof R2ConditionsIgnoredError) return errorResponse(500, "INTERNAL_ERROR", MISCONFIGURED);
      return errorResponse(503, "FS_IO_ERROR", "File storage (R2) is unreachable at the moment, so nothing was done. Retry in a few seconds.", {
        "retry-after": "5",
      });
    }
    return app.fetch(request, env);
  };
}
