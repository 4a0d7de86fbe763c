/**
 * `/ui/events`: new calls as server-sent events. Stateless on purpose: each
 * stream polls the audit log from its cursor, so it works on the Worker,
 * where requests share no memory. A stream ends after a bounded number of
 * polls; the browser reconnects by itself and sends the last event id
 * (an entry id) as `Last-Event-ID`, which is the next stream's cursor.
 */
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { Authenticator } from "../auth.ts";
import type { ToolHost } from "../host.ts";
import type { AppEnv } from "../middleware.ts";
import { feedRow } from "./data.ts";
import { currentSession } from "./session.ts";

/** The stream polls the log this often, this many times, then ends. */
const POLL_MS = 250;
const POLLS_PER_STREAM = 80;
/** A comment every this many idle polls keeps proxies from closing a quiet stream. */
const KEEPALIVE_POLLS = 20;
/** The browser waits this long before reconnecting. */
const RETRY_MS = 500;

export function eventStream(auth: Authenticator, host: ToolHost) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    const session = await currentSession(c, auth);
    const history = session ? host.historyOf(session.principal.workspace) : undefined;
    let cursor = c.req.header("last-event-id") || c.req.query("after") || undefined;
    return streamSSE(c, async (stream) => {
      if (!history) {
        // Signed out (or a revoked token): say so, and nothing else; the page goes to the sign-in form.
        await stream.writeSSE({ event: "signed-out", data: "" });
        return;
      }
      let closed = false;
      stream.onAbort(() => {
        closed = true;
      });
      await stream.writeSSE({ event: "ready", data: "", retry: RETRY_MS });
      let idle = 0;
      for (let poll = 0; poll < POLLS_PER_STREAM && !closed; poll++) {
        const page = await history.query({ limit: 100, ...(cursor ? { cursor } : {}) });
        for (const entry of page.entries) {
          await stream.writeSSE({ event: "call", id: entry.id, data: JSON.stringify(feedRow(entry)) });
          cursor = entry.id;
        }
        if (page.entries.length === 0 && ++idle % KEEPALIVE_POLLS === 0) await stream.write(": keep-alive\n\n");
        if (!page.cursor) await stream.sleep(POLL_MS);
      }
    });
  };
}
