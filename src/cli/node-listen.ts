/**
 * Serving on Node with Hono's adapter (`@hono/node-server`). Loaded only on
 * Node (see runtime-listen.ts), so Bun and Deno never import `node:http`.
 */
import type { Server } from "node:http";
import { listenError } from "./errors.ts";
import type { Listen } from "./io.ts";

/** {@link Listen} with `@hono/node-server`. */
export const nodeListen: Listen = async (handler, options) => {
  const { createAdaptorServer } = await import("@hono/node-server");
  const server = createAdaptorServer({ fetch: (request: Request) => handler(request) }) as Server;
  // Node cuts a request off after requestTimeout (default 5 min): a call allowed to run longer keeps its request.
  server.requestTimeout = options.requestTimeoutMs;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) => reject(listenError(error, options.hostname, options.port)));
    server.listen(options.port, options.hostname, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : options.port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        // close() waits for open connections; an idle keep-alive one would hold it until its client lets go.
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
};
