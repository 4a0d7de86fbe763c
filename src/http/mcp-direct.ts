/**
 * One JSON-RPC request on a live stateful session, answered without the
 * SDK transport's request handling: the message goes straight to the
 * session's server, and its response (caught by the session's tap, see
 * ./mcp-stream.ts) becomes the JSON body the transport would have sent.
 *
 * Why: the transport's generality (batches, SSE, resumability, a zod parse
 * of each message, several more of each response) cost ~150 µs of server
 * CPU per request here, as much as a small tool call itself. Only the
 * plainest request takes this way: one object, not initialize, with the
 * headers the transport requires; anything else (or anything doubtful) is
 * left to the transport, which also words the refusals.
 */
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import type { JSONRPCRequest } from "@modelcontextprotocol/sdk/types";
import type { NotificationTap } from "./mcp-stream.ts";
import { jsonRpcErrorResponse } from "./responses.ts";

/** A live session as the direct way needs it. */
export interface DirectSession {
  readonly id: string;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly tap: NotificationTap;
}

/** `body` as a request the direct way may take: jsonrpc 2.0, a method, an id, params an object if any. */
export function plainRequest(body: unknown): JSONRPCRequest | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const m = body as Record<string, unknown>;
  if (m.jsonrpc !== "2.0" || typeof m.method !== "string" || m.method === "initialize") return undefined;
  if (!(typeof m.id === "string" || (typeof m.id === "number" && Number.isSafeInteger(m.id)))) return undefined;
  if (m.params !== undefined && (typeof m.params !== "object" || m.params === null || Array.isArray(m.params))) return undefined;
  return m as unknown as JSONRPCRequest;
}

/** Whether the headers are what the transport would accept (else it answers, with its own wording). */
function headersFit(headers: Headers): boolean {
  const accept = headers.get("accept");
  if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) return false;
  const type = headers.get("content-type");
  if (type?.split(";")[0].trim().toLowerCase() !== "application/json") return false;
  const version = headers.get("mcp-protocol-version");
  return version === null || SUPPORTED_PROTOCOL_VERSIONS.includes(version);
}

/**
 * The session's answer to `body` as a JSON response, or undefined when the
 * request is not one the direct way takes (the caller hands it to the
 * transport). A session that closes before it answers gets 404.
 */
export function answerDirectly(session: DirectSession, request: Request, body: unknown, authInfo: AuthInfo): Promise<Response> | undefined {
  const message = plainRequest(body);
  if (!message || !headersFit(request.headers)) return undefined;
  const { answers } = session.tap;
  // The id is the correlation: one in flight already (a client reusing ids) stays the transport's problem.
  if (answers.has(message.id)) return undefined;
  const onmessage = session.transport.onmessage;
  if (!onmessage) return undefined;
  return new Promise<Response>((resolve) => {
    answers.set(message.id, (answer) => {
      answers.delete(message.id);
      // Closed before answering (DELETE, expiry): the transport would have left this request waiting forever.
      if (answer === undefined) {
        resolve(jsonRpcErrorResponse(404, -32001, "Session not found: it was closed while this request ran. Start a new session with initialize."));
        return;
      }
      const headers = { "content-type": "application/json", "mcp-session-id": session.id };
      resolve(new Response(JSON.stringify(answer), { status: 200, headers }));
    });
    onmessage.call(session.transport, message, { authInfo, requestInfo: lazyRequestInfo(request) });
  });
}

/** The request's headers and URL, built only if a handler asks for them (none of ours does). */
function lazyRequestInfo(request: Request): { headers: Record<string, string>; url: URL } {
  let headers: Record<string, string> | undefined;
  let url: URL | undefined;
  return {
    get headers() {
      return (headers ??= Object.fromEntries(request.headers.entries()));
    },
    get url() {
      return (url ??= new URL(request.url));
    },
  };
}
