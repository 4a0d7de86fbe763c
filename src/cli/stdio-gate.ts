/**
 * Backpressure for MCP over stdio. The SDK's transport reads stdin as fast
 * as it comes and dispatches every request at once, and each answer waits
 * in stdout's buffer until the client reads it: a client that sends
 * requests and never reads grew the server without bound (200 reads of a
 * 4 MiB file: 1.8 GB). Here at most `inflight` requests run at a time, a
 * slot is free only once its answer has been flushed to the client, and
 * stdin is paused while `queued` requests wait.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport";

export interface GateLimits {
  /** Requests running or with an answer not yet flushed. */
  readonly inflight: number;
  /** Requests waiting before stdin is paused. */
  readonly queued: number;
}

export const DEFAULT_GATE: GateLimits = { inflight: 16, queued: 256 };

type Message = Parameters<NonNullable<Transport["onmessage"]>>[0];
type Extra = Parameters<NonNullable<Transport["onmessage"]>>[1];
type Id = string | number;

const idOf = (m: Message): Id | undefined => (m as { id?: Id }).id;
const isRequest = (m: Message) => "method" in m && idOf(m) !== undefined;
const isAnswer = (m: Message) => !("method" in m) && idOf(m) !== undefined;

/** Gate `transport` (already connected, so its onmessage is the server's) reading from `stdin`. */
export function gateRequests(transport: Transport, stdin: NodeJS.ReadableStream, limits: GateLimits = DEFAULT_GATE): void {
  const dispatch = transport.onmessage!;
  const send = transport.send.bind(transport);
  const running = new Map<Id, number>(); // id -> how many (a client may reuse an id)
  let runningCount = 0;
  const queue: Array<[Message, Extra]> = [];
  let paused = false;

  const release = (id: Id) => {
    const n = running.get(id);
    if (n === undefined) return false;
    if (n === 1) running.delete(id);
    else running.set(id, n - 1);
    runningCount--;
    return true;
  };
  const pump = () => {
    while (queue.length > 0 && runningCount < limits.inflight) {
      const [message, extra] = queue.shift()!;
      const id = idOf(message)!;
      running.set(id, (running.get(id) ?? 0) + 1);
      runningCount++;
      dispatch(message, extra);
    }
    if (paused && queue.length < limits.queued) {
      paused = false;
      stdin.resume();
    }
  };

  transport.onmessage = (message, extra) => {
    if (!isRequest(message)) {
      // A cancelled request is never answered by the SDK: free its slot, or drop it while it waits.
      if ("method" in message && message.method === "notifications/cancelled") {
        const id = (message.params as { requestId?: Id } | undefined)?.requestId;
        if (id !== undefined) {
          const waiting = queue.findIndex(([m]) => idOf(m) === id);
          if (waiting !== -1) queue.splice(waiting, 1);
          else release(id);
          pump();
        }
      }
      return dispatch(message, extra);
    }
    queue.push([message, extra]);
    if (!paused && queue.length >= limits.queued) {
      paused = true;
      stdin.pause();
    }
    pump();
  };

  transport.send = async (message, options) => {
    try {
      await send(message, options);
    } finally {
      if (isAnswer(message) && release(idOf(message)!)) pump();
    }
  };
}
