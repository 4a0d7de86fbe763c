/**
 * The Worker's `fetch`: builds the Hono app from `src/http` once per isolate
 * (at the first request, because bindings, secrets and the async WASM
 * instantiation are only available then) and serves every request with it.
 *
 * A broken configuration never yields an open or half-configured server:
 * every request is answered 500 with a JSON error body, and the reason goes
 * to the log (once per isolate), without any token in it. The same holds for
 * a bucket that does not enforce conditional writes (R2: probed once per
 * isolate, see src/storage/r2/probe.ts; S3 chosen by TOOLWARDEN_STORAGE:
 * src/storage/s3/probe.ts), and for an S3 bucket that is missing or refuses
 * the keys; a probe that merely could not reach the storage answers 503 and
 * is retried by the next request.
 */
import type { Hono } from "hono";
import { createHasher } from "../hash/loader.ts";
import type { LineHasher } from "../hash/types.ts";
import { createApp } from "../http/app.ts";
import { createWorkspaceRegistry, DEFAULT_IMPORT_LIMITS, deferredStorage, hostedStorage, prefixBackend, type WorkspaceRegistry } from "../http/hosting/mod.ts";
import type { AppEnv } from "../http/middleware.ts";
import { errorResponse } from "../http/responses.ts";
import { createPipeline, installLoudFailure } from "../pipeline/mod.ts";
import { createDurableObservationStore, type DurableObjectNamespaceLike } from "../policy/durable.ts";
import { type R2BucketLike, probeR2Conditions, R2ConditionsIgnoredError, createR2Storage } from "../storage/r2/mod.ts";
import { connectS3Bucket, S3ConditionsIgnoredError, S3ResponseError, type S3Bucket } from "../storage/s3/mod.ts";
import { createStorageHistory, type HistoryStore } from "../history/mod.ts";
import { RESERVED_SEGMENT } from "../storage/guard.ts";
import type { Storage } from "../storage/types.ts";
import type { ToolDef } from "../tools/types.ts";
import { parseWorkerConfig, WorkerConfigError, type WorkerConfig, type WorkerVars } from "./config.ts";
import { createDurableLedger } from "./usage-do.ts";

/** The Worker's environment: the two bindings plus the vars of {@link WorkerVars}. */
export interface WorkerEnv extends WorkerVars {
  /** The R2 bucket holding every workspace under `<workspace>/` (not needed with TOOLWARDEN_STORAGE=s3://…). */
  readonly FILES?: R2BucketLike;
  /** The Durable Object namespace of `ObservationsDO`. */
  readonly OBSERVATIONS: DurableObjectNamespaceLike;
  /** The Durable Object namespace of `UsageDO` (workspace usage; needed with TOOLWARDEN_JWT_KEYS). */
  readonly USAGE?: DurableObjectNamespaceLike;
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
  /** The fetch S3 requests go through (tests). Default: the global fetch. */
  readonly fetch?: typeof fetch;
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
    env.TOOLWARDEN_JWT_KEYS,
    env.TOOLWARDEN_JWT_MAX_LIFETIME_SECONDS,
    env.TOOLWARDEN_JWT_AUDIENCE,
    env.TOOLWARDEN_QUOTA_MAX_BYTES,
    env.TOOLWARDEN_QUOTA_MAX_FILES,
    env.TOOLWARDEN_STORAGE,
    env.TOOLWARDEN_HISTORY,
    env.AWS_ACCESS_KEY_ID,
    env.AWS_SECRET_ACCESS_KEY,
    env.AWS_SESSION_TOKEN,
    env.AWS_REGION,
    env.AWS_DEFAULT_REGION,
    env.AWS_ENDPOINT_URL_S3,
    env.AWS_ENDPOINT_URL,
    env.S3_ENDPOINT,
    env.S3_REGION,
    env.S3_ACCESS_KEY_ID,
    env.S3_SECRET_ACCESS_KEY,
    env.S3_SESSION_TOKEN,
    env.S3_PATH_STYLE,
  ]);
}

/**
 * Hosted workspaces, on when signed-token keys are configured: each
 * workspace the prefix `<ws>/` (R2 or S3), records under
 * `.toolwarden/workspaces/`, usage in a Durable Object per workspace.
 */
function hostedRegistry(env: WorkerEnv, config: WorkerConfig, open: (prefix: string) => Storage): WorkspaceRegistry | undefined {
  if (!config.jwt) return undefined;
  if (!env.USAGE) {
    throw new WorkerConfigError(
      'TOOLWARDEN_JWT_KEYS turns on hosted workspaces, which keep usage in the Durable Object binding USAGE: add it under [[durable_objects.bindings]] (class_name = "UsageDO") in wrangler.toml.',
    );
  }
  return createWorkspaceRegistry({
    backend: prefixBackend(open),
    ledger: createDurableLedger(env.USAGE),
    defaultQuota: config.quota,
    // An imported file is held whole while written: no larger than a tool may load on the edge.
    importLimits: { ...DEFAULT_IMPORT_LIMITS, maxFileBytes: config.maxFileBytes },
  });
}

/** An app and the storage it serves, which must be reachable (and proven) before a request is served. */
interface Built {
  readonly app: Hono<AppEnv>;
  /** "R2" or "S3", for the 503 text. */
  readonly storageName: string;
  ready(): Promise<void>;
}

/** A storage failure no retry will fix: a bucket that ignores conditions, a missing bucket, refused keys. */
function isPermanent(error: unknown): boolean {
  if (error instanceof R2ConditionsIgnoredError || error instanceof S3ConditionsIgnoredError) return true;
  const cause = error instanceof Error ? error.cause : undefined;
  return cause instanceof S3ResponseError && cause.status >= 400 && cause.status < 500;
}

/** What one isolate keeps between requests: the hasher, the R2 probe and the app built from the current settings. */
interface Isolate {
  readonly options: WorkerFetchOptions;
  readonly log: WorkerLog;
  hasher?: Promise<LineHasher>;
  probed?: Promise<void>;
  built?: { readonly key: string; readonly app: Promise<Built> };
}

/** Build the Worker's `fetch`. Does no I/O until the first request, so it is safe at module scope. */
export function createWorkerFetch(options: WorkerFetchOptions): WorkerFetch {
  const log: WorkerLog = options.log ?? {
    log: (message) => console.log(message),
    error: (message, detail) => (detail === undefined ? console.error(message) : console.error(message, detail)),
  };
  const isolate: Isolate = { options, log };
  return (request, env) => serveRequest(isolate, request, env);
}

/** One request: the app for the current settings (built on first use), its storage proven, then the app itself. */
async function serveRequest(isolate: Isolate, request: Request, env: WorkerEnv): Promise<Response> {
  const key = configKey(env);
  if (isolate.built?.key !== key) {
    const app = buildApp(isolate, env);
    isolate.built = { key, app };
    app.catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      isolate.log.error(`toolwarden: configuration error, answering every request with 500: ${reason}`);
    });
  }
  let current: Built;
  try {
    current = await isolate.built.app;
  } catch {
    return errorResponse(500, "INTERNAL_ERROR", MISCONFIGURED);
  }
  try {
    await current.ready();
  } catch (error) {
    if (isPermanent(error)) return errorResponse(500, "INTERNAL_ERROR", MISCONFIGURED);
    return errorResponse(
      503,
      "FS_IO_ERROR",
      `File storage (${current.storageName}) is unreachable at the moment, so nothing was done. Retry in a few seconds.`,
      { "retry-after": "5" },
    );
  }
  return current.app.fetch(request, env);
}

/** The R2 probe, once per isolate; a failure to reach R2 is forgotten so the next request retries. */
function probeR2(isolate: Isolate, bucket: R2BucketLike): Promise<void> {
  if (!isolate.probed) {
    const attempt = probeR2Conditions(bucket);
    isolate.probed = attempt;
    attempt.catch((error: unknown) => {
      if (error instanceof R2ConditionsIgnoredError) {
        isolate.log.error(`toolwarden: storage refused, answering every request with 500: ${error.message}`);
      } else {
        if (isolate.probed === attempt) isolate.probed = undefined;
        isolate.log.error("toolwarden: the R2 start-up probe could not reach the bucket; the next request retries", error);
      }
    });
  }
  return isolate.probed;
}

/** The S3 bucket of one built app: connected (and proven) by `ready`, after which its storages can be made. */
interface S3Source {
  ready(): Promise<void>;
  storageFor(workspace: string): Storage;
  /** A storage at `prefix` below the bucket's, for the reserved history prefix no tool reaches. */
  rawStorage(prefix: string): Storage;
}

/** The S3 bucket, probed once per built app; a failure that a retry may fix is forgotten. */
function s3Source(isolate: Isolate, config: Extract<WorkerConfig["storage"], { kind: "s3" }>): S3Source {
  const { options, log } = isolate;
  let connected: Promise<S3Bucket> | undefined;
  let bucket: S3Bucket | undefined;
  const storages = new Map<string, Storage>();
  return {
    ready(): Promise<void> {
      if (!connected) {
        const attempt = connectS3Bucket({ ...config.config, ...(options.fetch ? { fetch: options.fetch } : {}) });
        connected = attempt;
        attempt.then(
          (b) => {
            bucket = b;
          },
          (error: unknown) => {
            const reason = error instanceof Error ? error.message : String(error);
            if (isPermanent(error)) {
              log.error(`toolwarden: storage refused, answering every request with 500: ${config.spec}: ${reason}`);
            } else {
              if (connected === attempt) connected = undefined;
              log.error(`toolwarden: the S3 start-up probe could not reach ${config.spec}; the next request retries: ${reason}`);
            }
          },
        );
      }
      return connected.then(() => undefined);
    },
    storageFor(workspace: string): Storage {
      let storage = storages.get(workspace);
      if (!storage) storages.set(workspace, (storage = bucket!.storage(workspace)));
      return storage;
    },
    rawStorage(prefix: string): Storage {
      return bucket!.storage(prefix);
    },
  };
}

/** The settings from the Worker's vars, with the bindings they need present. Throws WorkerConfigError. */
function readWorkerConfig(env: WorkerEnv): WorkerConfig {
  const config = parseWorkerConfig(env);
  if (config.storage.kind === "r2" && !env.FILES) {
    throw new WorkerConfigError(
      'The R2 binding FILES is missing: add [[r2_buckets]] binding = "FILES" to wrangler.toml (or set TOOLWARDEN_STORAGE to s3://BUCKET).',
    );
  }
  if (!env.OBSERVATIONS) {
    throw new WorkerConfigError("The Durable Object binding OBSERVATIONS is missing: add it under [[durable_objects.bindings]] in wrangler.toml.");
  }
  return config;
}

/** Where each workspace's files and history live, and the hosted registry when there is one. */
interface WorkspaceStorage {
  readonly registry: WorkspaceRegistry | undefined;
  storageFor(workspace: string): Storage | Promise<Storage>;
  historyFor(workspace: string): HistoryStore | undefined;
}

/** Each workspace's storage (hosted, S3 or R2 at `<ws>/`) and its history under the reserved prefix. */
function workspaceStorage(env: WorkerEnv, config: WorkerConfig, r2: R2BucketLike, s3: S3Source | undefined): WorkspaceStorage {
  const storages = new Map<string, Storage>();
  const histories = new Map<string, HistoryStore>();
  // The S3 bucket is connected only before the first request is served: its storages are made on first use.
  const registry = hostedRegistry(env, config, (prefix) =>
    s3 ? deferredStorage(() => s3.rawStorage(prefix.replace(/\/$/, ""))) : createR2Storage(r2, prefix),
  );
  return {
    registry,
    storageFor(workspace) {
      if (registry) return hostedStorage(registry, workspace);
      if (s3) return s3.storageFor(workspace);
      let storage = storages.get(workspace);
      if (!storage) storages.set(workspace, (storage = createR2Storage(r2, `${workspace}/`)));
      return storage;
    },
    // Each workspace's audit log and history live under its reserved prefix, which no tool reaches.
    historyFor(workspace) {
      if (env.TOOLWARDEN_HISTORY === "off") return undefined;
      let history = histories.get(workspace);
      if (!history) {
        const place = `${workspace}/${RESERVED_SEGMENT}/history`;
        // Recorded before the reply: a queue shared by requests would make one request wait on
        // another's I/O, which workerd cancels as a hung request.
        histories.set(workspace, (history = createStorageHistory(s3 ? s3.rawStorage(place) : createR2Storage(r2, `${place}/`))));
      }
      return history;
    },
  };
}

/** The app for `env`'s settings, and how to prove its storage. Throws WorkerConfigError on bad settings. */
async function buildApp(isolate: Isolate, env: WorkerEnv): Promise<Built> {
  const { options, log } = isolate;
  const config = readWorkerConfig(env);
  // createHasher never rejects: a module that fails to load or to self-test falls back to the JS hasher.
  const lineHasher = await (isolate.hasher ??= createHasher({ wasm: options.wasm }));
  try {
    const pipeline = createPipeline(options.tools);
    installLoudFailure(pipeline, config.rules);
    const r2 = env.FILES!;
    const s3 = config.storage.kind === "s3" ? s3Source(isolate, config.storage) : undefined;
    const { registry, storageFor, historyFor } = workspaceStorage(env, config, r2, s3);
    const app = createApp({
      pipeline,
      auth: { mode: "bearer", tokens: config.tokens, ...(config.jwt ? { jwt: config.jwt } : {}) },
      storageFor,
      ...(registry ? { workspaces: registry } : {}),
      storageKind: config.storage.kind,
      observations: createDurableObservationStore(env.OBSERVATIONS),
      historyFor,
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
        jwtKeys: config.jwt?.keys.length ?? 0,
        storage: config.storage.kind === "s3" ? config.storage.spec : "r2",
      }),
    );
    return s3 ? { app, storageName: "S3", ready: () => s3.ready() } : { app, storageName: "R2", ready: () => probeR2(isolate, r2) };
  } catch (error) {
    // createApp and the rule loader throw on inconsistent settings (duplicate token, bad host entry, bad rule).
    throw new WorkerConfigError(error instanceof Error ? error.message : String(error));
  }
}
