/** Serving on Bun (`Bun.serve`), typed structurally so this file also type-checks where Bun's types are absent. */
import { listenError, StartupError } from "./errors.ts";
import type { Listen } from "./io.ts";

interface BunServer {
  readonly port: number;
  stop(closeActiveConnections?: boolean): Promise<void> | void;
  timeout(request: Request, seconds: number): void;
}

interface BunServeOptions {
  hostname: string;
  port: number;
  idleTimeout: number;
  maxRequestBodySize?: number;
  fetch(request: Request, server: BunServer): Promise<Response>;
}

interface BunRuntime {
  serve(options: BunServeOptions): BunServer;
}

/** Bun's longest idle timeout, in seconds. */
const MAX_IDLE_SECONDS = 255;

/** {@link Listen} with `Bun.serve`. */
export const bunListen: Listen = (handler, options) => {
  const bun = (globalThis as { Bun?: BunRuntime }).Bun;
  if (!bun) return Promise.reject(new StartupError("this entry runs on Bun (try: npx bun src/cli.ts, or deno task serve)", 1));
  // Bun closes a connection idle this long, even while the handler works: a call allowed to take
  // longer must lift the limit for its own request.
  const unbounded = options.requestTimeoutMs === 0 || options.requestTimeoutMs > (MAX_IDLE_SECONDS - 5) * 1000;
  let server: BunServer;
  try {
    server = bun.serve({
      hostname: options.hostname,
      port: options.port,
      idleTimeout: MAX_IDLE_SECONDS,
      ...(options.maxRequestBodyBytes !== undefined ? { maxRequestBodySize: options.maxRequestBodyBytes } : {}),
      fetch(request, srv) {
        if (unbounded && request.method === "POST") srv.timeout(request, 0);
        return handler(request);
      },
    });
  } catch (error) {
    return Promise.reject(listenError(error, options.hostname, options.port));
  }
  return Promise.resolve({ port: server.port, close: async () => void (await server.stop(false)) });
};
