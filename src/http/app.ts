/**
 * The HTTP host: one Hono app for every runtime (Bun, Deno, Cloudflare
 * Workers). Entries only choose storage, auth and how to serve `app.fetch`.
 *
 * Routes: `GET /healthz`, `GET /openapi.json` (no auth), `GET /v1/tools`,
 * `POST /v1/tools/:name`, `/mcp` (bearer auth unless auth is `none`), and
 * with a workspace registry the admin routes under `/v1/workspaces`.
 * Every route is behind the Host/Origin check.
 */
import { Hono } from "hono";
import { isCodedError } from "../errors.ts";
import type { LineHasher } from "../hash/types.ts";
import type { HistoryStore } from "../history/mod.ts";
import { createPipeline, type Pipeline } from "../pipeline/mod.ts";
import type { ObservationStore } from "../policy/types.ts";
import type { Storage } from "../storage/types.ts";
import { DEFAULT_LIMITS, type ToolDef, type ToolLimits } from "../tools/types.ts";
import { createAuthenticator, type AuthOptions } from "./auth.ts";
import { BodyAbortedError } from "./body.ts";
import type { WorkspaceRegistry } from "./hosting/registry.ts";
import { mountWorkspaces } from "./hosting/routes.ts";
import { incarnationSessions } from "./hosting/sessions.ts";
import { incarnationBoundAuth } from "./hosting/tokens.ts";
import { createToolHost, type HttpCallInfo } from "./host.ts";
import type { HostPolicy } from "./hosts.ts";
import { mountMcp, type McpOptions } from "./mcp.ts";
import { hostGuard, limitBody, requireAuth, type AppEnv } from "./middleware.ts";
import { buildOpenApi } from "./openapi.ts";
import { errorResponse, statusForCode } from "./responses.ts";
import { mountHistory } from "./history-routes.ts";
import { mountRest } from "./rest.ts";
import { mountUi } from "./ui/routes.ts";

/** Request-size and time bounds, plus the per-call tool limits. */
export interface HttpLimits extends Partial<ToolLimits> {
  /** Largest request body in bytes (default 8 MiB); larger is 413 LIMIT_EXCEEDED. */
  readonly maxBodyBytes?: number;
  /**
   * Time limit per tool call in ms; 0 means none. Default 60 000 with `tools`;
   * with a prebuilt `pipeline`, the pipeline's own `timeoutMs`.
   */
  readonly callTimeoutMs?: number;
}

/** Default {@link HttpLimits.maxBodyBytes}: 8 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;
/** Default {@link HttpLimits.callTimeoutMs}: one minute. */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;

/** Everything {@link createApp} needs. Give exactly one of `tools` and `pipeline`. */
export interface AppOptions extends HostPolicy {
  /** The tools; a pipeline is built over them with no listeners. */
  readonly tools?: readonly ToolDef[];
  /** A prebuilt pipeline (e.g. with the rule engine registered as a listener). */
  readonly pipeline?: Pipeline;
  readonly auth: AuthOptions;
  /**
   * The storage of a workspace (a token maps to one; local mode has one).
   * The app guards what it returns (path normalisation and containment), so
   * a raw provider is fine; a CodedError it throws keeps its code.
   */
  storageFor(workspace: string): Storage | Promise<Storage>;
  /** Hosted workspaces: mounts the admin routes (`/v1/workspaces`). Pair it with a `storageFor` that asks it. */
  readonly workspaces?: WorkspaceRegistry;
  readonly observations: ObservationStore;
  readonly hasher: LineHasher;
  readonly limits?: HttpLimits;
  /** Reported by `/healthz`, MCP initialize and `/openapi.json`. */
  readonly version: string;
  /** The served storage's kind ("local", "memory", "s3", "r2"), reported by `/healthz`. */
  readonly storageKind?: string;
  readonly mcp?: McpOptions;
  /** The history of a workspace, when calls are recorded (see src/history). */
  readonly historyFor?: (workspace: string) => HistoryStore | undefined;
  /** Log hook, once per finished tool call (REST or MCP). Errors it throws are ignored. */
  readonly onCall?: (info: HttpCallInfo) => void;
  /** Log hook for unexpected failures answered with 500. Errors it throws are ignored. */
  readonly onError?: (error: unknown) => void;
  /**
   * Log hook for a request the client abandoned before it was read (e.g. an
   * upload cut off mid-body): not a server fault, so not `onError`. Errors it
   * throws are ignored.
   */
  readonly onAbort?: (info: AbortedRequest) => void;
}

/** What {@link AppOptions.onAbort} learns: which request was abandoned. */
export interface AbortedRequest {
  readonly method: string;
  /** The URL path, without the query. */
  readonly path: string;
}

/** Build the app. Throws on inconsistent options (no tools, bad token table, bad host entries). */
export function createApp(options: AppOptions): Hono<AppEnv> {
  if (!options.tools === !options.pipeline) throw new Error("createApp: give exactly one of `tools` and `pipeline`");
  const limits = options.limits ?? {};
  const maxBodyBytes = positive(limits.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, "maxBodyBytes");
  // A prebuilt pipeline keeps its own timeout unless the limits name one.
  const callTimeoutMs = limits.callTimeoutMs ?? (options.pipeline ? undefined : DEFAULT_CALL_TIMEOUT_MS);
  if (callTimeoutMs !== undefined && !(callTimeoutMs >= 0)) throw new Error("createApp: callTimeoutMs must be 0 (none) or positive");
  const toolLimits = toolLimitsOf(limits);

  const pipeline = options.pipeline ?? createPipeline(options.tools!);
  const auth = options.workspaces ? incarnationBoundAuth(createAuthenticator(options.auth), options.workspaces) : createAuthenticator(options.auth);
  const host = createToolHost({
    pipeline,
    storageFor: (workspace) => options.storageFor(workspace),
    observations: options.workspaces ? incarnationSessions(options.observations, (ws) => options.workspaces!.incarnation(ws)) : options.observations,
    hasher: options.hasher,
    limits: toolLimits,
    callTimeoutMs,
    onCall: options.onCall,
    historyFor: options.historyFor,
    onError: options.onError,
  });
  const openapi = buildOpenApi({ version: options.version, tools: host.tools, bearer: auth.required, maxBodyBytes, workspaces: !!options.workspaces });

  const app = new Hono<AppEnv>();
  app.use("*", hostGuard(options));

  const health = { ok: true, version: options.version, ...(options.storageKind ? { storage: options.storageKind } : {}) };
  app.get("/healthz", (c) => c.json(health));
  app.get("/openapi.json", (c) => c.json(openapi));

  const authenticate = requireAuth(auth);
  app.use("/v1/*", authenticate);
  app.use("/mcp", authenticate);
  const bodyCap = limitBody(maxBodyBytes);
  app.post("/v1/*", bodyCap);
  app.post("/mcp", bodyCap);
  app.post("/ui/*", bodyCap);

  mountRest(app, host);
  if (options.workspaces) mountWorkspaces(app, options.workspaces);
  mountHistory(app, host);
  const mcp = mountMcp(app, host, options.version, options.mcp);
  // docs/hosting.md: a DELETE removes the agents' sessions, MCP sessions (and their resource streams) included.
  options.workspaces?.onRemove((workspace) => mcp.endSessionsOf(workspace));
  // The inspector (/ui): its own cookie sign-in, so it sits outside the bearer-auth prefixes.
  mountUi(app, { auth, host, hasher: options.hasher, ...(options.workspaces ? { workspaces: options.workspaces } : {}) });

  app.notFound((c) =>
    errorResponse(
      404,
      "INVALID_ARGUMENT",
      `No route ${c.req.method} ${new URL(c.req.url).pathname}. Routes: GET /healthz, GET /openapi.json, ` +
        "GET /v1/tools, POST /v1/tools/{name}, POST /mcp (MCP Streamable HTTP)" +
        (options.workspaces ? ", PUT/GET/DELETE /v1/workspaces/{ws}, GET /v1/workspaces/{ws}/archive, GET /v1/workspaces." : "."),
    ),
  );
  app.onError((error, c) => {
    if (isCodedError(error)) return errorResponse(statusForCode(error.code), error.code, error.message);
    if (c.req.raw.signal.aborted || isAbortError(error)) {
      try {
        options.onAbort?.({ method: c.req.method, path: new URL(c.req.url, "http://x").pathname });
      } catch {
        // Logging must not replace the answer.
      }
      // Nobody is left to read this; it says what happened should a proxy still be listening.
      return errorResponse(400, "INVALID_ARGUMENT", "The request was abandoned: the connection closed before its body was read. Send it again.");
    }
    try {
      options.onError?.(error);
    } catch {
      // Logging must not replace the answer.
    }
    return errorResponse(
      500,
      "INTERNAL_ERROR",
      "Internal server error (details are in the server log). This is a server fault, not a problem with the request: retry later, and tell the operator if it persists.",
    );
  });
  return app;
}

/** A body cut off by the client, or a DOMException-style abort (Bun's "The connection was closed."). */
function isAbortError(error: unknown): boolean {
  if (error instanceof BodyAbortedError) return true;
  return typeof error === "object" && error !== null && (error as { name?: unknown }).name === "AbortError";
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!(value > 0) || !Number.isFinite(value)) throw new Error(`createApp: ${name} must be a positive number`);
  return value;
}

/**
 * The tool limits within the HTTP limits: every field given (and not
 * undefined) over the defaults, so a ToolLimits field added later passes
 * through without a change here.
 */
export function toolLimitsOf(limits: HttpLimits): ToolLimits {
  const { maxBodyBytes: _body, callTimeoutMs: _timeout, ...given } = limits;
  const defined = Object.entries(given).filter(([, value]) => value !== undefined);
  return { ...DEFAULT_LIMITS, ...Object.fromEntries(defined) };
}
