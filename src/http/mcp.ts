/**
 * `/mcp`: MCP Streamable HTTP with the official SDK's web-standard transport.
 *
 * Two modes, because runtimes differ in what outlives a request:
 *
 * - `stateful` (default; Bun/Deno local mode, one process): the server mints
 *   the `Mcp-Session-Id` at initialize and keeps a server+transport per
 *   session in memory (bounded, idle-expired, bound to the opening token).
 *   Ids cannot be forged and a session cannot be used with another token.
 * - `stateless` (Cloudflare Workers, or any host with many isolates): every
 *   request gets a fresh server+transport; the id minted at initialize is
 *   sent back in `Mcp-Session-Id` and the client carries it on every request,
 *   so any isolate can serve any request. The id names an observation
 *   session of the caller's token; it carries a tag derived from the token's
 *   principal id, so another token sending it is refused (404) like a
 *   stateful session would be. Nothing else is kept.
 *
 * Both answer in JSON rather than SSE (enableJsonResponse): a finished
 * response holds no stream or keep-alive timer. A tools/call that has
 * notifications to send first (progress, log lines) is answered as an SSE
 * stream instead (src/http/mcp-stream.ts).
 *
 * GET (the standalone SSE stream for server-initiated messages) exists only
 * in stateful mode: the session's own transport keeps it (one per session;
 * a second is 409) and `notifications/resources/updated` travels on it, so
 * only stateful sessions offer `resources.subscribe`. It is bound to the
 * session's owner like every POST. Stateless mode answers GET 405 (the MCP
 * client treats that as "no such stream"): no isolate outlives its request,
 * so none could hold the stream or hear another isolate's writes.
 */
import type { Context, Hono } from "hono";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Principal } from "./auth.ts";
import { MAX_JSON_DEPTH, nestsDeeperThan, utf8Body } from "./body.ts";
import type { ToolHost } from "./host.ts";
import { answerDirectly } from "./mcp-direct.ts";
import { answerCallsDirectly, authInfoFor, createMcpServer } from "./mcp-server.ts";
import { createSessionTable, type SessionEntry } from "./mcp-sessions.ts";
import { answerStreaming, streamableCall, tapNotifications, type NotificationTap } from "./mcp-stream.ts";
import type { AppEnv } from "./middleware.ts";
import { jsonRpcErrorResponse } from "./responses.ts";
import { callerSession, isOwnedSessionId, isValidSessionId, MAX_SESSION_ID_CHARS, mintOwnedSessionId, principalSession } from "./sessions.ts";

/** How `/mcp` keeps sessions. See the module comment. */
export type McpMode = "stateful" | "stateless";

/** Options of the `/mcp` endpoint. */
export interface McpOptions {
  /** Default `stateful`; Workers must use `stateless`. */
  readonly mode?: McpMode;
  /**
   * Stateful: most live sessions per token (default {@link DEFAULT_MCP_SESSIONS_PER_TOKEN});
   * a token opening one more closes its own least recently used.
   */
  readonly maxSessionsPerToken?: number;
  /** Stateful: a session idle this long is closed (default 30 minutes). */
  readonly idleTimeoutMs?: number;
  /** Text sent to clients at initialize. */
  readonly instructions?: string;
}

/** Default {@link McpOptions.maxSessionsPerToken}. */
export const DEFAULT_MCP_SESSIONS_PER_TOKEN = 100;

const SESSION_HEADER = "mcp-session-id";
const NOT_FOUND = -32001;
const BAD_REQUEST = -32000;
const PARSE_ERROR = -32700;

interface LiveSession extends SessionEntry {
  /** The workspace of the token that opened it: deleting the workspace ends the session. */
  readonly workspace: string;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly tap: NotificationTap;
}

/** What {@link mountMcp} gives back. */
export interface McpMount {
  /** End every live session of a workspace (it was deleted): their transports close, GET streams included. */
  endSessionsOf(workspace: string): number;
}

/** Register `/mcp` on `app` (auth and the body limit are applied by the caller). */
export function mountMcp(app: Hono<AppEnv>, host: ToolHost, version: string, options: McpOptions = {}): McpMount {
  const mode = options.mode ?? "stateful";
  const serverOptions = { host, version, instructions: options.instructions, initialLogLevel: null };
  const sessions = createSessionTable<LiveSession>({
    maxSessionsPerOwner: options.maxSessionsPerToken ?? DEFAULT_MCP_SESSIONS_PER_TOKEN,
    idleMs: options.idleTimeoutMs ?? 30 * 60 * 1000,
  });
  const allow = mode === "stateful" ? "GET, POST, DELETE" : "POST";

  function notAllowed(c: Context<AppEnv>): Response {
    const why =
      mode === "stateless"
        ? "this stateless server keeps nothing between requests, so there is no GET stream for server-initiated messages and sessions need no DELETE"
        : "use POST for JSON-RPC requests, GET (Accept: text/event-stream) for the session's notification stream, DELETE to end the session";
    return jsonRpcErrorResponse(405, BAD_REQUEST, `Method ${c.req.method} is not supported on /mcp: ${why}. Send JSON-RPC requests with POST.`, { allow });
  }

  async function stateless(c: Context<AppEnv>, principal: Principal, body: unknown): Promise<Response> {
    const init = isInitialize(body);
    let id: string | undefined;
    if (init) {
      id = await mintOwnedSessionId(principal.id);
    } else {
      const header = c.req.header(SESSION_HEADER);
      if (header !== undefined && !isValidSessionId(header)) return badSessionId();
      if (header !== undefined && !(await isOwnedSessionId(header, principal.id))) return sessionNotFound();
      id = header;
    }
    const session = id === undefined ? principalSession(principal) : callerSession(principal, "mcp", id);
    const server = createMcpServer(serverOptions);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const tap = tapNotifications(transport);
    await server.connect(transport);
    answerCallsDirectly(server, transport);
    const streamed = init ? undefined : streamableCall(body, c.req.header("accept"));
    if (streamed !== undefined) {
      const handle = () => transport.handleRequest(c.req.raw, { parsedBody: body, authInfo: authInfoFor({ principal, session }) });
      return answerStreaming(tap, streamed, handle, () => void server.close().catch(() => {}));
    }
    try {
      const response = await transport.handleRequest(c.req.raw, {
        parsedBody: body,
        authInfo: authInfoFor({ principal, session }),
      });
      if (!init || !response.ok || id === undefined) return response;
      const headers = new Headers(response.headers);
      headers.set(SESSION_HEADER, id);
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    } finally {
      // In JSON mode every response is complete when handleRequest resolves: nothing is left to send.
      server.close().catch(() => {});
    }
  }

  async function stateful(c: Context<AppEnv>, principal: Principal, body: unknown): Promise<Response> {
    const id = c.req.header(SESSION_HEADER);
    if (id === undefined) {
      if (!isInitialize(body)) {
        return jsonRpcErrorResponse(
          400,
          BAD_REQUEST,
          "Bad Request: the Mcp-Session-Id header is required. Send initialize first and repeat the Mcp-Session-Id it returns on every later request.",
        );
      }
      return open(c, principal, body);
    }
    const live = sessions.get(id, principal.id);
    if (!live) return sessionNotFound();
    const authInfo = authInfoFor({ principal, session: callerSession(principal, "mcp", id) });
    // The plainest requests skip the transport's own handling (./mcp-direct.ts); it takes everything else.
    const handle = () =>
      answerDirectly({ id, transport: live.transport, tap: live.tap }, c.req.raw, body, authInfo) ??
      live.transport.handleRequest(c.req.raw, { parsedBody: body, authInfo });
    const streamed = streamableCall(body, c.req.raw.headers.get("accept") ?? undefined);
    return streamed === undefined ? handle() : answerStreaming(live.tap, streamed, handle);
  }

  async function open(c: Context<AppEnv>, principal: Principal, body: unknown): Promise<Response> {
    // The session keeps its transport, so its GET stream can carry resource updates.
    const server = createMcpServer({ ...serverOptions, resourceSubscriptions: true });
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        sessions.add(id, { owner: principal.id, workspace: principal.workspace, transport, tap, close: () => void server.close().catch(() => {}) });
      },
      onsessionclosed: (id) => sessions.delete(id),
    });
    const tap = tapNotifications(transport);
    await server.connect(transport);
    answerCallsDirectly(server, transport);
    // initialize calls no tool, so the session key here is never used; the caller's own keeps it well-formed.
    return transport.handleRequest(c.req.raw, {
      parsedBody: body,
      authInfo: authInfoFor({ principal, session: principalSession(principal) }),
    });
  }

  app.all("/mcp", async (c) => {
    const principal = c.get("principal");
    switch (c.req.method) {
      case "POST": {
        const body = await readJson(c);
        if (body instanceof Response) return body;
        return mode === "stateless" ? stateless(c, principal, body.value) : stateful(c, principal, body.value);
      }
      case "GET":
      case "DELETE": {
        if (mode === "stateless") return notAllowed(c);
        const id = c.req.header(SESSION_HEADER);
        if (id === undefined && c.req.method === "GET") {
          return jsonRpcErrorResponse(
            400,
            BAD_REQUEST,
            "Bad Request: GET /mcp opens a session's notification stream and needs its Mcp-Session-Id header. Send initialize first and repeat the Mcp-Session-Id it returns.",
          );
        }
        // Only the token that opened the session may use it: another token's GET or DELETE is 404, as its POST is.
        const live = id === undefined ? undefined : sessions.get(id, principal.id);
        if (!live) return sessionNotFound();
        // GET: the transport opens the session's one standalone SSE stream (409 while one is open).
        // DELETE: the transport answers, then calls onsessionclosed, which drops the session from the table.
        const response = await live.transport.handleRequest(c.req.raw, {
          authInfo: authInfoFor({ principal, session: callerSession(principal, "mcp", id!) }),
        });
        return c.req.method === "GET" ? primed(response) : response;
      }
      default:
        return notAllowed(c);
    }
  });
  return { endSessionsOf: (workspace) => sessions.deleteWhere((entry) => entry.workspace === workspace) };
}

const OPENED = new TextEncoder().encode(": stream open\n\n");

/**
 * An SSE response that starts with a comment, so the status and headers
 * reach the client now rather than with the first notification or keep-alive
 * (servers flush nothing before the first body chunk). Closing it closes
 * the transport's stream, which frees the session's one GET slot.
 */
function primed(response: Response): Response {
  if (!response.ok || !response.body || !response.headers.get("content-type")?.startsWith("text/event-stream")) return response;
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(OPENED),
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** The parsed JSON-RPC body, or the parse-error response. */
async function readJson(c: Context<AppEnv>): Promise<{ value: unknown } | Response> {
  const body = await utf8Body(c.req);
  if (body === undefined) {
    return jsonRpcErrorResponse(400, PARSE_ERROR, "Parse error: the request body is not valid UTF-8. Send JSON-RPC messages as JSON encoded in UTF-8.");
  }
  if (nestsDeeperThan(body)) {
    return jsonRpcErrorResponse(
      400,
      PARSE_ERROR,
      `Parse error: the request body nests arrays/objects more than ${MAX_JSON_DEPTH} levels deep; no MCP message needs that. Send one JSON-RPC message (or a batch array).`,
    );
  }
  try {
    return { value: JSON.parse(body) };
  } catch {
    return jsonRpcErrorResponse(400, PARSE_ERROR, "Parse error: the request body is not valid JSON. Send one JSON-RPC message (or a batch array) as JSON.");
  }
}

/** Whether a JSON-RPC body (one message or a batch) contains an initialize request. */
export function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => typeof m === "object" && m !== null && (m as { method?: unknown }).method === "initialize" && "id" in m);
}

function sessionNotFound(): Response {
  return jsonRpcErrorResponse(404, NOT_FOUND, "Session not found: it expired, was closed, or belongs to another token. Start a new session with initialize.");
}

function badSessionId(): Response {
  return jsonRpcErrorResponse(
    400,
    BAD_REQUEST,
    `Bad Request: Mcp-Session-Id must be 1-${MAX_SESSION_ID_CHARS} visible ASCII characters. Send the id the server returned at initialize.`,
  );
}
