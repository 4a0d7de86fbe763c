/**
 * `toolwarden mcp [DIR]`: MCP over stdio, the way local clients (Claude
 * Code, Claude Desktop, Cursor, VS Code) launch a server as a child process.
 * The same tools, policy and rules as `serve`; one session that lives as
 * long as the process. stdout carries protocol messages only: every log
 * line, and anything a dependency prints with console.log, goes to stderr.
 */
import process from "node:process";
import type { Principal } from "../http/auth.ts";
import { createToolHost, type ToolHost } from "../http/host.ts";
import { answerCallsDirectly, createMcpServer } from "../http/mcp-server.ts";
import { callerSession } from "../http/sessions.ts";
import { createMemoryObservationStore } from "../policy/memory.ts";
import { parseArgs, UsageError, type FlagSpec } from "./args.ts";
import { StartupError } from "./errors.ts";
import { readConfigFile } from "./config-file.ts";
import { loadHasher } from "./hasher.ts";
import { createInflight } from "./inflight.ts";
import type { CliIO } from "./io.ts";
import { formatCallLine } from "./log.ts";
import { localScopes, resolveToolSettings } from "./settings.ts";
import { buildPipeline, callTimeoutFor, toolLimits } from "./toolset.ts";
import { MCP_USAGE } from "./usage.ts";
import { openDeferredHistories } from "./state.ts";
import { readVersion } from "./version.ts";
import { openWorkspace } from "./workspaces.ts";
import { gateRequests } from "./stdio-gate.ts";
import { LineStdioTransport } from "./stdio-transport.ts";

/** Flags of `mcp`. */
export const MCP_FLAGS: FlagSpec = {
  "allow-shell": "boolean",
  config: "string",
  state: "string",
  "no-history": "boolean",
  quiet: "boolean",
};

/** How long a closing session waits for calls in flight (a write finishes on its own terms). */
const DRAIN_TIMEOUT_MS = 10_000;

/** Where the protocol runs; the real process's stdin/stdout unless a test gives others. */
export interface StdioStreams {
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: NodeJS.WritableStream;
}

/**
 * Run `mcp` with `argv` (the words after `mcp`). Resolves with the exit
 * code once stdin ends (the client went away) or a stop signal arrives.
 */
export async function runMcp(argv: readonly string[], io: CliIO, streams?: StdioStreams): Promise<number> {
  const { flags, positionals } = parseArgs(argv, MCP_FLAGS);
  if (flags.help) {
    io.out(MCP_USAGE);
    return 0;
  }
  if (positionals.length > 1) throw new UsageError(`mcp takes one directory (got ${positionals.length}: ${positionals.join(" ")})`);
  const config = flags.config === undefined ? undefined : await readConfigFile(flags.config as string);
  const settings = resolveToolSettings(flags, positionals[0], config, io.cwd);
  const workspace = await openWorkspace(settings.root, { env: io.env, cwd: io.cwd, sweep: true });
  if (settings.shell.enabled && workspace.localRoot === undefined) {
    throw new StartupError(
      `the shell (--allow-shell or shell.enabled) runs commands in a local directory; ${workspace.name} is ${workspace.kind} storage, so turn the shell off`,
    );
  }
  const callTimeoutMs = callTimeoutFor(settings);
  const pipeline = buildPipeline(settings, workspace.localRoot ?? workspace.name, callTimeoutMs);
  const [hasher, version] = await Promise.all([loadHasher(), readVersion()]);
  // The same audit log and file history as serve keeps, unless --no-history, recorded after each reply as serve does.
  const recordingFailed = (error: unknown) => io.err(`toolwarden: recording a call failed: ${error instanceof Error ? error.message : String(error)}\n`);
  const history = (await openDeferredHistories(flags, io, new Map([[settings.root, workspace]]), recordingFailed))?.get(settings.root);
  const inflight = createInflight();
  const quiet = flags.quiet === true;

  const host = createToolHost({
    pipeline,
    storageFor: () => workspace.storage,
    observations: createMemoryObservationStore(),
    hasher,
    limits: toolLimits(settings.limits),
    callTimeoutMs,
    onCall: quiet ? undefined : (info) => io.err(`${formatCallLine(info, new Date())}\n`),
    historyFor: () => history,
    onError: recordingFailed,
  });
  const tracked: ToolHost = { ...host, call: (...args) => inflight.track(() => host.call(...args)) };
  const principal: Principal = {
    id: "local",
    label: "local",
    workspace: settings.root,
    scopes: new Set(localScopes(settings.shell.enabled)),
  };
  const server = createMcpServer({
    host: tracked,
    version,
    identity: { principal, session: callerSession(principal, "mcp", "stdio") },
    resourceSubscriptions: true,
  });

  routeConsoleToStderr();
  const stdin = streams?.stdin ?? process.stdin;
  const transport = new LineStdioTransport(stdin, streams?.stdout ?? process.stdout);
  transport.onerror = (error) => io.err(`toolwarden: stdio: ${error instanceof Error ? error.message : String(error)}\n`);

  const done = new Promise<number>((resolve) => {
    let closing = false;
    const finish = async (why: string, failed = false) => {
      if (closing) return;
      closing = true;
      unsubscribe();
      if (!quiet || failed || inflight.size > 0)
        io.err(`toolwarden: ${why}: closing the session${inflight.size ? `, waiting for ${inflight.size} call(s)` : ""}\n`);
      const finished = await inflight.idle(DRAIN_TIMEOUT_MS);
      // A call that just returned sends its answer a turn later; the exit must not cut that write off.
      await new Promise((r) => setTimeout(r, 0));
      await Promise.race([transport.flushed(), new Promise((r) => setTimeout(r, DRAIN_TIMEOUT_MS))]);
      // Calls answered before the close are recorded in full before the process exits.
      if (history) await Promise.race([history.settled(), new Promise((r) => setTimeout(r, DRAIN_TIMEOUT_MS))]);
      await server.close().catch(() => {});
      resolve(finished && !failed ? 0 : 1);
    };
    const unsubscribe = io.onStopSignal((signal) => void finish(signal));
    stdin.once("end", () => void finish("stdin closed"));
    // The transport closes itself when a message overflows its buffer, and then reads no more: without
    // this the process would stay up, deaf, and the client would wait for answers forever.
    const dropResources = server.onclose;
    server.onclose = () => {
      dropResources?.();
      void finish("the stdio transport closed", true);
    };
  });

  await server.connect(transport);
  answerCallsDirectly(server, transport);
  gateRequests(transport, stdin);
  // Each answer waiting for the client to read adds a drain listener; the gate allows 16 of them.
  (streams?.stdout ?? process.stdout).setMaxListeners?.(64);
  if (!quiet) {
    io.err(`toolwarden ${version} mcp over stdio on ${workspace.where} (tools: ${pipeline.tools.map((t) => t.name).join(", ")}; hasher: ${hasher.backend})\n`);
  }
  return done;
}

/** A dependency's console.log would corrupt the protocol stream: in this mode it writes to stderr. */
function routeConsoleToStderr(): void {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}
