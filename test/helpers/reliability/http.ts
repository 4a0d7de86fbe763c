/**
 * Plain HTTP calls for the reliability suites: every reply is kept whole
 * (status, headers, raw text), because the suites scan what came back for
 * canary markers and tokens, not only the fields they expect.
 */

/** One HTTP reply. */
export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  /** The raw body text. */
  readonly text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: unknown;
}

/** A tool result as REST returns it (200). */
export interface ToolReply {
  readonly isError: boolean;
  readonly code?: string;
  readonly content: ReadonlyArray<{ readonly type: string; readonly text: string }>;
}

/** A transport-level error body (non-200). */
export interface ErrorReply {
  readonly error: { readonly code: string; readonly message: string };
}

/** How to send one request. */
export interface SendOptions {
  readonly token?: string;
  /** X-Session-Id. */
  readonly session?: string;
  /** Sent as is instead of JSON.stringify(args). */
  readonly rawBody?: string | Uint8Array;
  readonly headers?: Record<string, string>;
  readonly method?: string;
}

/** Send `args` (or a raw body) to `POST {base}/v1/tools/{tool}`. */
export async function callTool(base: string | URL, tool: string, args: unknown, options: SendOptions = {}): Promise<Reply> {
  return send(new URL(`/v1/tools/${tool}`, base), args, options);
}

/** Send a request to any URL; `args` is JSON-encoded unless `rawBody` is given. */
export async function send(url: URL, args: unknown, options: SendOptions = {}): Promise<Reply> {
  const method = options.method ?? "POST";
  const headers: Record<string, string> = { "content-type": "application/json", ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.session !== undefined) headers["x-session-id"] = options.session;
  const body = method === "GET" || method === "HEAD" ? undefined : ((options.rawBody ?? JSON.stringify(args)) as BodyInit);
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** The tool result of a 200 reply, or throws with the reply shown. */
export function toolResult(reply: Reply): ToolReply {
  const body = reply.json as ToolReply | undefined;
  if (reply.status !== 200 || typeof body?.isError !== "boolean") {
    throw new Error(`expected a tool result (200), got ${reply.status}: ${reply.text.slice(0, 500)}`);
  }
  return body;
}

/** All text blocks of a tool result. */
export function textOf(result: ToolReply): string {
  return result.content.map((c) => c.text).join("\n");
}

/** The `code` of a tool result, or "ok" for a success. */
export function codeOf(result: ToolReply): string {
  return result.isError ? (result.code ?? "<no code>") : "ok";
}

/** `{base}/healthz` answers 200 {ok: true}. */
export async function healthy(base: string | URL): Promise<boolean> {
  try {
    const response = await fetch(new URL("/healthz", base));
    return response.status === 200 && ((await response.json()) as { ok?: boolean }).ok === true;
  } catch {
    return false;
  }
}

/** The markers of `secrets` that occur in `text` (each secret is a string no reply may contain). */
export function leaked(text: string, secrets: readonly string[]): string[] {
  return secrets.filter((s) => text.includes(s));
}

/** The MCP protocol version the raw MCP calls announce. */
export const MCP_PROTOCOL_VERSION = "2025-06-18";

/** How to send one raw MCP request (JSON-RPC over Streamable HTTP, JSON responses). */
export interface McpSendOptions {
  /** The whole Authorization header value; null sends none. */
  readonly authorization: string | null;
  /** Mcp-Session-Id. */
  readonly session?: string;
  readonly rawBody?: string | Uint8Array;
}

let rpcId = 0;

/** POST one JSON-RPC message (or a raw body) to `{base}/mcp`. */
export async function mcpSend(base: string | URL, message: unknown, options: McpSendOptions): Promise<Reply> {
  const headers: Record<string, string> = {
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MCP_PROTOCOL_VERSION,
  };
  if (options.authorization !== null) headers.authorization = options.authorization;
  if (options.session !== undefined) headers["mcp-session-id"] = options.session;
  return send(new URL("/mcp", base), message, { headers, ...(options.rawBody !== undefined ? { rawBody: options.rawBody } : {}) });
}

/** A JSON-RPC initialize request. */
export function mcpInitialize(): Record<string, unknown> {
  return {
    jsonrpc: "2.0",
    id: ++rpcId,
    method: "initialize",
    params: { protocolVersion: MCP_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "reliability", version: "1" } },
  };
}

/** A JSON-RPC tools/call request. */
export function mcpToolCall(name: string, args: unknown): Record<string, unknown> {
  return { jsonrpc: "2.0", id: ++rpcId, method: "tools/call", params: { name, arguments: args } };
}

/** Open a session with `authorization` (initialize + initialized); resolves its Mcp-Session-Id. */
export async function mcpOpen(base: string | URL, authorization: string): Promise<string> {
  const reply = await mcpSend(base, mcpInitialize(), { authorization });
  const session = reply.headers.get("mcp-session-id");
  if (reply.status !== 200 || !session) throw new Error(`initialize failed: ${reply.status} ${reply.text.slice(0, 300)}`);
  await mcpSend(base, { jsonrpc: "2.0", method: "notifications/initialized" }, { authorization, session });
  return session;
}

/** An MCP tools/call result (`result` of the JSON-RPC response). */
export interface McpToolResult {
  readonly isError?: boolean;
  readonly content: ReadonlyArray<{ readonly type: string; readonly text: string }>;
  readonly _meta?: Record<string, unknown>;
}

/** The tools/call result of a reply, or throws with the reply shown. */
export function mcpResult(reply: Reply): McpToolResult {
  const body = reply.json as { result?: McpToolResult } | undefined;
  if (reply.status !== 200 || !body?.result) throw new Error(`expected a JSON-RPC result, got ${reply.status}: ${reply.text.slice(0, 500)}`);
  return body.result;
}

/** The code of an MCP tool result (from `_meta`), or "ok". */
export function mcpCode(result: McpToolResult): string {
  return result.isError ? String(result._meta?.["toolwarden/code"] ?? "<no code>") : "ok";
}
