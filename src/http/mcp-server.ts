/**
 * The MCP server: `tools/list` and `tools/call` over the same tool host the
 * REST routes use. Who is calling (principal and observation session) is
 * decided per HTTP request by the route and reaches the handlers through the
 * transport's `authInfo`, so one server instance can serve a whole session
 * while each request is still authenticated on its own.
 */
import { Server, type ServerOptions } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/types"
import { CallToolRequestSchema, ListToolsRequestSchema, SetLevelRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
import type { CallToolResult, LoggingLevel, Tool } from "@modelcontextprotocol/sdk/types";
import { isCodedError } from "../errors.ts";
import { fail, type ToolResult } from "../result.ts";
import type { Principal } from "./auth.ts";
import { FACTS_PROPERTIES } from "./facts-schema.ts";
import { usableTools, type ToolDescriptor } from "./catalog.ts";
import type { ToolHost } from "./host.ts";
import { defaultLogLevel, logCall, progressFor } from "./mcp-notify.ts";
import { installResources } from "./mcp-resources.ts";
import { answerToolCallsDirectly, type ToolCallHandler } from "./mcp-direct-call.ts";

/** `_meta` key carrying a failed result's stable error code. */
export const META_CODE = "toolwarden/code";
/** `_meta` key carrying the result's notices (also appended as text blocks). */
export const META_NOTICES = "toolwarden/notices";

/** Who one MCP HTTP request acts as. */
export interface McpIdentity {
  readonly principal: Principal;
  /** The namespaced observation session key for this request. */
  readonly session: string;
}

const IDENTITY_KEY = "toolwarden";

/** The `authInfo` to hand the transport for a request made as `identity` (never the raw token). */
export function authInfoFor(identity: McpIdentity): AuthInfo {
  return {
    token: identity.principal.id,
    clientId: identity.principal.id,
    scopes: [...identity.principal.scopes],
    extra: { [IDENTITY_KEY]: identity },
  };
}

function identityOf(authInfo: AuthInfo | undefined, fallback: McpIdentity | undefined): McpIdentity {
  const identity = (authInfo?.extra?.[IDENTITY_KEY] as McpIdentity | undefined) ?? fallback;
  // Only reachable if a route forgot authInfo: a server bug, never a client's doing.
  if (!identity) throw new Error("internal: MCP request without identity");
  return identity;
}

/**
 * The `outputSchema` of every tool: what `structuredContent` carries, `ok`
 * and a failure's `code` plus the result's facts. Fields a result has no use
 * for are absent: a directory listing has no version, a failure no changes.
 */
export const RESULT_SCHEMA = {
  type: "object",
  properties: {
    ok: { type: "boolean", description: "false exactly when isError" },
    code: { type: "string", description: "the stable error code of a failure (docs/errors.md)" },
    ...FACTS_PROPERTIES,
  },
  required: ["ok"],
} as const;

/** A tool as MCP `tools/list` shows it. */
export function toMcpTool(tool: ToolDescriptor): Tool {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool["inputSchema"],
    outputSchema: RESULT_SCHEMA as unknown as Tool["outputSchema"],
    annotations: { ...tool.annotations },
  };
}

/**
 * A pipeline result as an MCP `tools/call` result: `isError` and the content
 * pass through; `structuredContent` has the code and the result's facts (path,
 * version, lines, changes; {@link RESULT_SCHEMA}); the code also travels in `_meta`; notices
 * follow the content as extra text blocks (what the model reads) and also sit
 * in `_meta` with their sources (what UIs attribute).
 */
export function toMcpResult(result: ToolResult): CallToolResult {
  const notices = result.notices ?? [];
  const meta: Record<string, unknown> = {};
  if (result.code) meta[META_CODE] = result.code;
  if (notices.length) meta[META_NOTICES] = notices;
  return {
    content: [
      ...result.content.map((block) => ({ type: "text" as const, text: block.text })),
      ...notices.map((notice) => ({ type: "text" as const, text: notice.text })),
    ],
    structuredContent: { ok: !result.isError, ...(result.code ? { code: result.code } : {}), ...result.facts },
    isError: result.isError,
    ...(Object.keys(meta).length ? { _meta: meta } : {}),
  };
}

/** The server never validates client-supplied JSON Schemas (no elicitation); this keeps Ajv's code generation, which Workers forbid, out of the way. */
const noSchemaValidation: NonNullable<ServerOptions["jsonSchemaValidator"]> = {
  getValidator: () => () => ({
    valid: false,
    data: undefined,
    errorMessage: "toolwarden does not validate client JSON Schemas",
  }),
};

/** Options for {@link createMcpServer}. */
export interface McpServerOptions {
  readonly host: ToolHost;
  readonly version: string;
  /** Sent to clients at initialize (how to use the tools); optional. */
  readonly instructions?: string;
  /**
   * Who every request acts as when the transport carries no per-request
   * `authInfo` (stdio: the process is the session and its user the caller).
   */
  readonly identity?: McpIdentity;
  /**
   * Offer resources/subscribe (default false): only where the server can
   * send a notification outside any request (stdio; stateful HTTP, on the
   * session's GET stream). Stateless HTTP has no such stream.
   */
  readonly resourceSubscriptions?: boolean;
  /**
   * The log level before the client sets one (default `warning`: a failed
   * call's line is sent unasked, a success's only at `info`, since every
   * extra message costs both ends of a stdio pipe). HTTP passes null:
   * nothing, so a call with nothing to send stays one JSON body
   * (src/http/mcp-stream.ts).
   */
  readonly initialLogLevel?: LoggingLevel | null;
}

const toolCallHandlers = new WeakMap<Server, ToolCallHandler>();

/**
 * Answer `transport`'s plain tools/calls with `server`'s handler directly
 * (./mcp-direct-call.ts). Call it once the server is connected to it.
 */
export function answerCallsDirectly(server: Server, transport: Transport): void {
  const handler = toolCallHandlers.get(server);
  if (!handler) throw new Error("internal: not a server made by createMcpServer");
  answerToolCallsDirectly(transport, handler, (notification, relatedRequestId) => server.notification(notification, { relatedRequestId }));
}

/** A fresh MCP server over the tool host (connect it to one transport). */
export function createMcpServer(options: McpServerOptions): Server {
  const { host } = options;
  const server = new Server(
    { name: "toolwarden", version: options.version },
    {
      capabilities: {
        tools: { listChanged: false },
        logging: {},
        resources: { listChanged: false, subscribe: options.resourceSubscriptions === true },
      },
      jsonSchemaValidator: noSchemaValidation,
      ...(options.instructions ? { instructions: options.instructions } : {}),
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, (_request, extra) => {
    const { principal } = identityOf(extra.authInfo, options.identity);
    return { tools: usableTools(host.tools, principal.scopes).map(toMcpTool) };
  });

  // One server serves one session (stateful HTTP, stdio), so the level lives here; replaces the SDK's own handler.
  const logLevel = defaultLogLevel(options.initialLogLevel === null ? undefined : (options.initialLogLevel ?? "warning"));
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    logLevel.current = request.params.level;
    return {};
  });

  const callTool: ToolCallHandler = async (request, extra) => {
    const { principal, session } = identityOf(extra.authInfo, options.identity);
    const { name, arguments: args } = request.params;
    const progress = progressFor(request.params._meta?.progressToken, extra.sendNotification);
    const started = performance.now();
    try {
      // MCP clients omit `arguments` for a call without any; the schema sees an empty object.
      const result = await host.call("mcp", principal, session, name, args ?? {}, extra.signal, progress);
      logCall(name, result, performance.now() - started, logLevel, extra.sendNotification);
      return toMcpResult(result);
    } catch (error) {
      // Only storageFor can throw here (the tool did not run); the model gets it as a result it can read.
      const why = error instanceof Error ? error.message : String(error);
      const code = isCodedError(error) ? error.code : "INTERNAL_ERROR";
      return toMcpResult(fail(code, `The server could not open storage for this workspace (${why}). \`${name}\` did not run.`));
    }
  };
  server.setRequestHandler(CallToolRequestSchema, callTool);
  toolCallHandlers.set(server, callTool);

  const dropResources = installResources(server, host, (authInfo) => identityOf(authInfo, options.identity).principal, options.resourceSubscriptions === true);
  server.onclose = dropResources;

  return server;
}
