/**
 * Streaming a call's notifications over `/mcp`, which otherwise answers in
 * JSON. The SDK transport in JSON mode drops notifications related to a
 * request (progress, log lines). Here a `tools/call` response turns into an
 * SSE stream as soon as the call has something to send before its result:
 * the notifications as they come, then the result as the last event. A call
 * with nothing to send (no progressToken, no log level set) stays one JSON
 * body, so plain clients and scripts see no change.
 */
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types";

type RequestId = string | number;

/** Where a transport's messages for some requests go instead of the transport. */
export interface NotificationTap {
  /** Notifications related to a request being streamed (see {@link answerStreaming}). */
  readonly sinks: Map<RequestId, (message: JSONRPCMessage) => void>;
  /** Responses to requests answered past the transport (see ./mcp-direct.ts); undefined once it closed. */
  readonly answers: Map<RequestId, (message: JSONRPCMessage | undefined) => void>;
}

/**
 * Divert `transport`'s messages: notifications for requests being streamed
 * go to their sink, responses to requests answered directly go to their
 * waiter (and their other notifications nowhere, as the transport's JSON
 * mode drops them); all else passes. Call it before the server connects:
 * the server chains the close handler set here.
 */
export function tapNotifications(transport: WebStandardStreamableHTTPServerTransport): NotificationTap {
  const sinks = new Map<RequestId, (message: JSONRPCMessage) => void>();
  const answers = new Map<RequestId, (message: JSONRPCMessage | undefined) => void>();
  const send = transport.send.bind(transport);
  transport.onclose = () => {
    for (const answer of [...answers.values()]) answer(undefined);
  };
  transport.send = (message, options) => {
    if ("id" in message && !("method" in message)) {
      const answer = message.id === undefined ? undefined : answers.get(message.id);
      if (answer) {
        answer(message);
        return Promise.resolve();
      }
      return send(message, options);
    }
    const related = options?.relatedRequestId;
    if (related !== undefined && !("id" in message)) {
      const sink = sinks.get(related);
      if (sink) sink(message);
      if (sink || answers.has(related)) return Promise.resolve();
    }
    return send(message, options);
  };
  return { sinks, answers };
}

/** The id of a single `tools/call` request whose client takes SSE, else undefined (batches are answered as they are). */
export function streamableCall(body: unknown, accept: string | undefined): RequestId | undefined {
  if (!accept?.includes("text/event-stream") || typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const message = body as { method?: unknown; id?: unknown };
  if (message.method !== "tools/call") return undefined;
  return typeof message.id === "string" || typeof message.id === "number" ? message.id : undefined;
}

const encoder = new TextEncoder();

function event(data: string): Uint8Array {
  return encoder.encode(`event: message\ndata: ${data}\n\n`);
}

/**
 * Answer request `id` with `handle` (the transport's JSON-mode handling):
 * its JSON response when the call sends no notification, else an SSE stream
 * of the notifications followed by the result. `done` runs once handling has
 * finished either way (e.g. closing a one-request server).
 */
export function answerStreaming(tap: NotificationTap, id: RequestId, handle: () => Promise<Response>, done: () => void = () => {}): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
    tap.sinks.set(id, (message) => {
      if (!controller) {
        const stream = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
        resolve(new Response(stream, { status: 200, headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } }));
      }
      controller!.enqueue(event(JSON.stringify(message)));
    });
    handle().then(
      async (response) => {
        tap.sinks.delete(id);
        if (!controller) {
          resolve(response);
        } else {
          // The call was accepted before it could notify, so this is its 200 JSON-RPC response.
          controller.enqueue(event((await response.text()).trim()));
          controller.close();
        }
        done();
      },
      (error: unknown) => {
        tap.sinks.delete(id);
        if (controller) controller.error(error);
        else reject(error);
        done();
      },
    );
  });
}
