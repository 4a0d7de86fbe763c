/**
 * `toolwarden serve`: one workspace (a directory, `memory:` or an S3 bucket)
 * over HTTP (REST + MCP). Everything
 * but the listening itself is here, so Bun (src/cli.ts) and Deno
 * (src/deno.ts) serve exactly the same app.
 */
import { createApp, createAuthenticator, DEFAULT_MCP_SESSIONS_PER_TOKEN, hostMatcher, loopbackHosts, type AuthOptions, type Scope } from "../http/mod.ts";
import { DEFAULT_OBSERVATION_BYTES_PER_TOKEN } from "../policy/share.ts";
import type { Config } from "../config/mod.ts";
import type { LineHasher } from "../hash/mod.ts";
import type { DeferringHistory } from "../history/mod.ts";
import type { Pipeline } from "../pipeline/mod.ts";
import { parseArgs, UsageError, type FlagSpec, type FlagValues } from "./args.ts";
import { baseUrl, renderBanner } from "./banner.ts";
import { readConfigFile } from "./config-file.ts";
import { StartupError } from "./errors.ts";
import { createInflight, type Inflight } from "./inflight.ts";
import type { CliIO, HttpListener, Listen } from "./io.ts";
import { loadHasher } from "./hasher.ts";
import { openObservations, type OpenedObservations } from "./observations.ts";
import { formatCallLine } from "./log.ts";
import { isLoopbackHost, localScopes, resolveServeSettings, type ServeSettings } from "./settings.ts";
import { generateToken } from "./token.ts";
import { buildPipeline, callTimeoutFor } from "./toolset.ts";
import { SERVE_USAGE } from "./usage.ts";
import { openDeferredHistories } from "./state.ts";
import { readVersion } from "./version.ts";
import { openWorkspaces, type Workspace } from "./workspaces.ts";
import { hostedStorage, openRegistry, renderHostingBanner } from "./hosting.ts";
import type { ImportLimits, WorkspaceRegistry } from "../http/hosting/mod.ts";

/** Flags of `serve`. */
export const SERVE_FLAGS: FlagSpec = {
  port: "port",
  host: "string",
  token: "string",
  "no-auth": "boolean",
  "allow-shell": "boolean",
  config: "string",
  quiet: "boolean",
  observations: "string",
  state: "string",
  "no-history": "boolean",
  workspaces: "string",
  "jwt-secret-env": "string",
};

/** Principals of signed tokens whose observations a hosting server keeps at once (least recently active forgotten first). */
const HOSTED_OBSERVATION_OWNERS = 1024;

/** How long a stopping server waits for calls in flight before giving up on them. */
export const DRAIN_TIMEOUT_MS = 10_000;
/** A repeated stop signal within this long of the first is the same one, forwarded by a wrapper. */
const REPEAT_WINDOW_MS = 1_000;
/** After the calls finished: how long their responses get to reach the clients. */
const FLUSH_TIMEOUT_MS = 2_000;

/** A server that is up: its URL, and a promise of the exit code once a stop signal has been handled. */
export interface RunningServer {
  readonly url: string;
  readonly done: Promise<number>;
}

/**
 * Run `serve` with `argv` (the words after `serve`). Resolves with the exit
 * code after a stop signal (0 when every call in flight finished). Throws
 * UsageError / StartupError / ConfigError for the caller to report.
 */
export async function runServe(argv: readonly string[], io: CliIO, listen: Listen): Promise<number> {
  const started = await startServe(argv, io, listen);
  return started === undefined ? 0 : started.done;
}

/** Start serving (see {@link runServe}); undefined when only help was asked for. */
export async function startServe(argv: readonly string[], io: CliIO, listen: Listen): Promise<RunningServer | undefined> {
  const { flags, positionals } = parseArgs(argv, SERVE_FLAGS);
  if (flags.help) {
    io.out(SERVE_USAGE);
    return undefined;
  }
  const loaded = await loadServeConfig(flags, positionals, io);
  const opened = await openServed(loaded, io);
  const gate: Gate = { inflight: createInflight(), stopping: false, stopAt: 0, fetch: undefined };
  const listener = await listenAndServe(loaded, opened, gate, io, listen);
  // Listening for signals before the banner: whoever reads it may signal at once.
  const done = stopOnSignal(loaded.settings, opened, gate, listener, io);
  const url = baseUrl(loaded.settings.host, listener.port);
  io.out(serveBanner(loaded.settings, opened, loaded.extraHosts, url));
  return { url, done };
}

/** The settings of `serve`, read and checked before anything is opened. */
interface ServeConfig {
  readonly flags: FlagValues;
  /** The --config file, when one was given. */
  readonly config: Config | undefined;
  readonly settings: ServeSettings;
  /** Host header values accepted besides the loopback names. */
  readonly extraHosts: string[];
  readonly auth: AuthOptions;
}

/** Read --config, the flags and the env into settings; bad hosts or tokens are refused before anything is opened. */
async function loadServeConfig(flags: FlagValues, positionals: readonly string[], io: CliIO): Promise<ServeConfig> {
  if (positionals.length > 1)
    throw new UsageError(`serve takes one workspace (a directory, memory: or s3://BUCKET[/PREFIX]; got ${positionals.length}: ${positionals.join(" ")})`);
  const configPath = flags.config as string | undefined;
  const config = configPath === undefined ? undefined : await readConfigFile(configPath);
  const settings = resolveServeSettings({
    flags,
    dir: positionals[0],
    config,
    configPath,
    env: io.env,
    cwd: io.cwd,
    generateToken,
  });
  const extraHosts = checkHosts(settings);
  const auth = authOptions(settings);
  try {
    createAuthenticator(auth);
  } catch (error) {
    // e.g. the same token twice in the config: refused now, not on every request later.
    throw new StartupError(`${configPath ?? "tokens"}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { flags, config, settings, extraHosts, auth };
}

/** What `serve` opened before listening: the workspaces (or the hosting registry), the tools and the stores. */
interface Opened {
  readonly registry: WorkspaceRegistry | undefined;
  readonly workspaces: Map<string, Workspace>;
  /** The served workspace; undefined when hosting. */
  readonly served: Workspace | undefined;
  readonly callTimeoutMs: number;
  readonly pipeline: Pipeline;
  readonly hasher: LineHasher;
  readonly version: string;
  readonly observations: OpenedObservations;
  readonly histories: Map<string, DeferringHistory> | undefined;
}

/** Open the workspaces (or the hosting registry), the tools, the hasher, the observation store and the histories. */
async function openServed({ flags, config, settings }: ServeConfig, io: CliIO): Promise<Opened> {
  const registry = settings.hosting ? await openRegistry(settings.hosting, io.env, flags["no-history"] !== true) : undefined;
  const workspaces: Map<string, Workspace> = registry ? new Map() : await openWorkspaces(workspaceDirs(settings), { env: io.env, cwd: io.cwd });
  const served = workspaces.get(settings.root);
  if (settings.shell.enabled && served && served.localRoot === undefined) {
    throw new StartupError(
      `the shell (--allow-shell or shell.enabled) runs commands in a local directory; ${served.name} is ${served.kind} storage, so turn the shell off`,
    );
  }
  const callTimeoutMs = callTimeoutFor(settings);
  const pipeline = buildPipeline(settings, served ? (served.localRoot ?? served.name) : settings.root, callTimeoutMs);
  const [hasher, version] = await Promise.all([loadHasher(), readVersion()]);
  // Each token gets its own share (see docs/configuration.md, "Memory ceiling"), in memory or in Redis alike.
  const observations = await openObservations(settings.observations, io.err, {
    maxBytesPerOwner: config?.limits?.observationBytesPerToken ?? DEFAULT_OBSERVATION_BYTES_PER_TOKEN,
    // Hosting: owners are also the signed tokens' principals, which no table lists: the store's default bound.
    maxOwners: settings.auth.mode === "bearer" ? (settings.hosting ? HOSTED_OBSERVATION_OWNERS + settings.auth.grants.length : settings.auth.grants.length) : 1,
  });
  const histories = await openDeferredHistories(flags, io, workspaces, (error) =>
    io.err(`${new Date().toISOString()} internal error: recording a call: ${describeError(error)}\n`),
  );
  return { registry, workspaces, served, callTimeoutMs, pipeline, hasher, version, observations, histories };
}

/** The running server's state, shared by the listener and the stop handler. */
interface Gate {
  readonly inflight: Inflight;
  /** Set by the first stop signal: new requests get a 503 from then on. */
  stopping: boolean;
  /** When the first stop signal came (performance.now()). */
  stopAt: number;
  /** The app's fetch, once built (the app needs the bound port). */
  fetch: ((request: Request) => Promise<Response>) | undefined;
}

/** Bind, then build the app (its allowed hosts name the bound port) and hand it the listener's requests. */
async function listenAndServe(loaded: ServeConfig, opened: Opened, gate: Gate, io: CliIO, listen: Listen): Promise<HttpListener> {
  const { settings } = loaded;
  const listener = await listen(
    (request) => {
      if (gate.stopping || !gate.fetch) return Promise.resolve(unavailable());
      return gate.inflight.track(() => gate.fetch!(request));
    },
    {
      hostname: settings.host,
      port: settings.port,
      requestTimeoutMs: opened.callTimeoutMs,
      maxRequestBodyBytes: importBodyBytes(settings.hosting?.importLimits),
    },
  );
  const app = serveApp(loaded, opened, listener.port, io);
  gate.fetch = (request) => Promise.resolve(app.fetch(request));
  return listener;
}

/** The app over the opened workspaces, logging calls and errors to stderr. */
function serveApp({ config, settings, extraHosts, auth }: ServeConfig, opened: Opened, port: number, io: CliIO): ReturnType<typeof createApp> {
  const { registry, workspaces, served, observations, histories } = opened;
  // Hosting: many agents (signed tokens) share the server, so every line says who (the token's sub) and where.
  const showPrincipal = settings.auth.mode === "bearer" && (settings.auth.grants.length > 1 || settings.hosting !== undefined);
  return createApp({
    pipeline: opened.pipeline,
    auth,
    storageFor: (workspace) => {
      if (registry) return hostedStorage(registry, workspace);
      const found = workspaces.get(workspace);
      if (!found) throw new Error(`no storage for workspace ${workspace}`);
      return found.storage;
    },
    observations: observations.store,
    ...(registry ? { workspaces: registry } : {}),
    historyFor: (workspace) => (registry ? registry.history(workspace) : histories?.get(workspace)),
    hasher: opened.hasher,
    limits: settings.limits,
    version: opened.version,
    storageKind: served ? served.kind : "hosted",
    allowedHosts: [...loopbackHosts(port), ...extraHosts.map((h) => (/:\d+$/.test(h) ? h : `${h}:${port}`))],
    // Over a shared store any instance must answer any request: no session may live in one process's memory.
    mcp: observations.shared
      ? { mode: "stateless" }
      : { mode: "stateful", maxSessionsPerToken: config?.limits?.mcpSessionsPerToken ?? DEFAULT_MCP_SESSIONS_PER_TOKEN },
    onCall: settings.quiet
      ? undefined
      : (info) => io.err(`${formatCallLine(info, new Date(), showPrincipal)}${settings.hosting ? ` ws=${info.workspace}` : ""}\n`),
    onError: (error) => io.err(`${new Date().toISOString()} internal error: ${describeError(error)}\n`),
    onAbort: (request) =>
      io.err(`${new Date().toISOString()} aborted request: ${request.method} ${request.path} (the client closed the connection before sending all of it)\n`),
  });
}

/** Stop at a signal: refuse new requests, let the calls in flight finish, close the stores; resolves with the exit code. */
function stopOnSignal(settings: ServeSettings, opened: Opened, gate: Gate, listener: HttpListener, io: CliIO): Promise<number> {
  const { inflight } = gate;
  return new Promise<number>((resolve) => {
    const unsubscribe = io.onStopSignal((signal) => {
      if (gate.stopping) {
        // A wrapper (npm, deno task) forwards the signal its process group already got: the same
        // Ctrl-C arrives twice within moments. Only a later one means "do not wait".
        if (performance.now() - gate.stopAt < REPEAT_WINDOW_MS) return;
        io.err(`toolwarden: ${signal} again: exiting now with ${inflight.size} call(s) unfinished\n`);
        unsubscribe();
        resolve(1);
        return;
      }
      gate.stopping = true;
      gate.stopAt = performance.now();
      const count = inflight.size;
      if (!settings.quiet || count > 0) {
        io.err(`toolwarden: ${signal}: stopping${count > 0 ? `, waiting for ${count} call(s) in flight (up to ${DRAIN_TIMEOUT_MS / 1000} s)` : ""}\n`);
      }
      const closed = listener.close();
      void drain(inflight, opened.histories, closed, io).then(async (code) => {
        await opened.observations.close();
        unsubscribe();
        resolve(code);
      });
    });
  });
}

/** Wait for the calls in flight, their history records and the responses' flush; 1 when calls were left unfinished. */
async function drain(inflight: Inflight, histories: Opened["histories"], closed: Promise<void>, io: CliIO): Promise<number> {
  const finished = await inflight.idle(DRAIN_TIMEOUT_MS);
  if (!finished) {
    io.err(`toolwarden: ${inflight.size} call(s) still running after ${DRAIN_TIMEOUT_MS / 1000} s; exiting without them\n`);
    return 1;
  }
  // Calls answered before the stop are recorded in full before the process exits.
  const recorded = Promise.all([...(histories?.values() ?? [])].map((h) => h.settled()));
  await Promise.race([recorded, new Promise((r) => setTimeout(r, DRAIN_TIMEOUT_MS))]);
  // The handlers are done; give their responses a moment to reach the clients.
  await Promise.race([closed.catch(() => {}), new Promise((r) => setTimeout(r, FLUSH_TIMEOUT_MS))]);
  return 0;
}

/** The start-up banner: where, what and how to connect (the hosting one when hosting). */
function serveBanner(settings: ServeSettings, opened: Opened, extraHosts: readonly string[], url: string): string {
  const { served } = opened;
  const scopes: readonly Scope[] = settings.auth.mode === "none" ? localScopes(settings.shell.enabled) : (settings.auth.grants[0]?.scopes ?? []);
  return (settings.hosting ? renderHostingBanner : renderBanner)({
    version: opened.version,
    root: served ? served.name : settings.root,
    ...(served ? { storage: `${served.kind} (${served.where})` } : {}),
    observations: opened.observations.describe,
    url,
    auth: settings.auth,
    tools: opened.pipeline.tools.map((t) => t.name),
    scopes,
    ...(isLoopbackHost(settings.host) ? {} : { exposedNote: exposedNote(extraHosts) }),
  });
}

/** Every workspace a token reaches (the served one first). */
function workspaceDirs(settings: ServeSettings): string[] {
  const dirs = [settings.root];
  if (settings.auth.mode === "bearer") for (const grant of settings.auth.grants) dirs.push(grant.workspace);
  return dirs;
}

function authOptions(settings: ServeSettings): AuthOptions {
  if (settings.auth.mode === "bearer" && settings.auth.jwt) {
    const grants = settings.auth.grants.map((g) => ({ token: g.token, workspace: g.workspace, scopes: g.scopes, ...(g.label ? { label: g.label } : {}) }));
    return { mode: "bearer", tokens: grants, jwt: settings.auth.jwt };
  }
  if (settings.auth.mode === "none") {
    return { mode: "none", workspace: settings.root, scopes: localScopes(settings.shell.enabled) };
  }
  return {
    mode: "bearer",
    tokens: settings.auth.grants.map((g) => ({ token: g.token, workspace: g.workspace, scopes: g.scopes, ...(g.label ? { label: g.label } : {}) })),
  };
}

/** Host header values to accept besides the loopback names: the configured ones and the bound --host. Checked before binding. */
function checkHosts(settings: ServeSettings): string[] {
  const extra = [...settings.extraHosts];
  const wildcard = settings.host === "0.0.0.0" || settings.host === "::" || settings.host === "[::]";
  // loopbackHosts() covers these three names; any other bound address (127.0.0.2, a LAN IP) is added.
  const named = ["localhost", "127.0.0.1", "::1", "[::1]"].includes(settings.host.toLowerCase());
  if (!named && !wildcard) extra.push(settings.host.includes(":") && !settings.host.startsWith("[") ? `[${settings.host}]` : settings.host);
  try {
    hostMatcher(extra);
  } catch (error) {
    throw new StartupError(`allowedHosts: ${error instanceof Error ? error.message.replace(/^allowedHosts: /, "") : String(error)}`);
  }
  return extra;
}

function exposedNote(extraHosts: readonly string[]): string {
  const names = extraHosts.length
    ? `${extraHosts.join(", ")} and the loopback names`
    : "only the loopback names (add others with allowedHosts in a config file)";
  return `reachable beyond this machine; Host headers accepted: ${names}`;
}

/** An error for the log: its stack, else its name and message (a DOMException's stack may be empty). */
function describeError(error: unknown): string {
  if (typeof error !== "object" || error === null) return String(error);
  const { stack, name, message } = error as { stack?: unknown; name?: unknown; message?: unknown };
  if (typeof stack === "string" && stack !== "") return stack;
  const text = [name, message].filter((part) => typeof part === "string" && part !== "").join(": ");
  return text || String(error);
}

function unavailable(): Response {
  return new Response(
    JSON.stringify({ error: { code: "INTERNAL_ERROR", message: "The server is shutting down and takes no new calls. Retry once it is back." } }),
    { status: 503, headers: { "content-type": "application/json; charset=utf-8", connection: "close", "retry-after": "5" } },
  );
}

/**
 * The largest archive an import may send: its content limit plus a tar's
 * headers and padding for every entry (a KiB each, at most) and its end
 * blocks. Undefined outside hosting: tool bodies are far under any runtime's
 * default, and the routes bound them themselves.
 */
export function importBodyBytes(limits: ImportLimits | undefined): number | undefined {
  return limits === undefined ? undefined : limits.maxBytes + limits.maxEntries * 1024 + 1024 * 1024;
}
