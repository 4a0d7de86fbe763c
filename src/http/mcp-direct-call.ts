/**
 * `tools/call` answered without the SDK's request machinery: a plain call
 * goes from the transport straight to the server's tools/call handler, and
 * its result straight back to the transport.
 *
 * Why: for every call the SDK's Server parses the request with its zod
 * schemas three times (message kind, the method's schema, then again in
 * the tools/call wrapper) and the result once more, ~0.1-0.2 ms of CPU per
 * call here, a third of what a small edit itself costs. Our handler makes
 * its result by construction (./mcp-server.ts, toMcpResult) and validates
 * the arguments with the tool's own schema. Only the plainest call takes
 * this way: exactly the fields the SDK's schema allows, no task, no related
 * task; anything else goes to the SDK, which also words its refusals.
 */
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";
import type { CallToolRequest, CallToolResult, JSONRPCMessage, ServerNotification } from "@modelcontextprotocol/sdk/types";

type RequestId = string | number;
type Message = Parameters<NonNullable<Transport["onmessage"]>>[0];
type MessageExtra = Parameters<NonNullable<Transport["onmessage"]>>[1];

/** What the tools/call handler uses of the SDK's request context. */
export interface ToolCallExtra {
  readonly signal: AbortSignal;
  readonly authInfo?: AuthInfo;
  readonly requestId: RequestId;
  readonly sendNotification: (notification: ServerNotification) => Promise<void>;
}

/** The server's tools/call handler, as registered with the SDK and as called directly. */
export type ToolCallHandler = (request: CallToolRequest, extra: ToolCallExtra) => Promise<CallToolResult>;

/** A plain tools/call request (see {@link plainToolCall}). */
export type PlainToolCall = CallToolRequest & { readonly jsonrpc: "2.0"; readonly id: RequestId };

const RELATED_TASK = "io.modelcontextprotocol/related-task";
const REQUEST_KEYS = new Set(["jsonrpc", "id", "method", "params"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const isId = (value: unknown) => typeof value === "string" || (typeof value === "number" && Number.isSafeInteger(value));

/**
 * `message` as a tools/call the direct way takes, else undefined: what the
 * SDK's schemas accept (a strict JSON-RPC request; a name; arguments an
 * object; a progress token a string or integer), without `task` or a
 * related task (the SDK's task machinery handles those). Arguments with an
 * own `__proto__` key are left to the SDK too, which copies them its way.
 */
export function plainToolCall(message: unknown): PlainToolCall | undefined {
  if (!isRecord(message) || message.method !== "tools/call" || message.jsonrpc !== "2.0" || !isId(message.id)) return undefined;
  for (const key in message) if (!REQUEST_KEYS.has(key)) return undefined;
  const params = message.params;
  if (!isRecord(params) || typeof params.name !== "string" || params.task !== undefined) return undefined;
  const args = params.arguments;
  if (args !== undefined && (!isRecord(args) || Object.hasOwn(args, "__proto__"))) return undefined;
  const meta = params._meta;
  if (meta !== undefined) {
    if (!isRecord(meta) || meta[RELATED_TASK] !== undefined) return undefined;
    if (meta.progressToken !== undefined && !isId(meta.progressToken)) return undefined;
  }
  return message as unknown as PlainToolCall;
}

/** A JSON-RPC error answer to a handler that threw, worded as the SDK words it. */
function errorAnswer(id: RequestId, error: unknown): JSONRPCMessage {
  const e = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code: Number.isSafeInteger(e.code) ? (e.code as number) : -32603,
      message: typeof e.message === "string" ? e.message : "Internal error",
      ...(e.data !== undefined ? { data: e.data } : {}),
    },
  };
}

/**
 * Take plain tools/calls arriving on `transport` (already connected to a
 * server, so its onmessage is the server's) to `handler` directly; every
 * other message passes on. A cancelled call (notifications/cancelled, or the
 * transport closing) is aborted and never answered, as the SDK does.
 * `notify` sends a notification related to a request (the server's own
 * `notification`, so capabilities are checked as always).
 */
export function answerToolCallsDirectly(
  transport: Transport,
  handler: ToolCallHandler,
  notify: (notification: ServerNotification, relatedRequestId: RequestId) => Promise<void>,
): void {
  const pass = transport.onmessage;
  if (!pass) throw new Error("internal: connect the server before answering calls directly");
  const running = new Map<RequestId, AbortController>();
  const closed = transport.onclose;
  transport.onclose = () => {
    for (const controller of running.values()) controller.abort();
    running.clear();
    closed?.();
  };

  const answer = async (request: PlainToolCall, extra: MessageExtra) => {
    const { id } = request;
    const controller = new AbortController();
    running.set(id, controller);
    const { signal } = controller;
    let reply: JSONRPCMessage;
    try {
      const result = await handler(request, {
        signal,
        authInfo: extra?.authInfo,
        requestId: id,
        sendNotification: async (notification) => {
          if (!signal.aborted) await notify(notification, id);
        },
      });
      reply = { jsonrpc: "2.0", id, result };
    } catch (error) {
      reply = errorAnswer(id, error);
    } finally {
      if (running.get(id) === controller) running.delete(id);
    }
    if (signal.aborted) return;
    // The live send (a gate or tap may wrap it after this was installed).
    await transport.send(reply).catch((error: unknown) => transport.onerror?.(error as Error));
  };

  transport.onmessage = (message: Message, extra: MessageExtra) => {
    const call = plainToolCall(message);
    if (call) {
      void answer(call, extra);
      return;
    }
    // Only the notification (no id) cancels: a request by that name is the SDK's to refuse (Method not found).
    if ("method" in message && message.method === "notifications/cancelled" && !("id" in message)) {
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (id !== undefined) running.get(id)?.abort();
    }
    pass.call(transport, message, extra);
  };
}
