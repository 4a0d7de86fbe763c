/** Serving on Deno (`Deno.serve`), typed structurally so this file also type-checks under tsc, which has no Deno types. */
import { listenError, StartupError } from "./errors.ts";
import type { Listen } from "./io.ts";

interface DenoServer {
  readonly addr: { readonly port: number };
  readonly finished: Promise<void>;
  shutdown(): Promise<void>;
}

/** The part of the `Deno` global the CLI uses. */
export interface DenoRuntime {
  readonly args: readonly string[];
  serve(options: { hostname: string; port: number; onListen?: (addr: unknown) => void }, handler: (request: Request) => Promise<Response>): DenoServer;
}

/** {@link Listen} with `Deno.serve`. */
export const denoListen: Listen = (handler, options) => {
  const deno = (globalThis as { Deno?: DenoRuntime }).Deno;
  if (!deno) return Promise.reject(new StartupError("Deno.serve is only there on Deno", 1));
  let server: DenoServer;
  try {
    // onListen replaced so Deno prints nothing of its own: the banner says where we listen.
    server = deno.serve({ hostname: options.hostname, port: options.port, onListen: () => {} }, handler);
  } catch (error) {
    return Promise.reject(listenError(error, options.hostname, options.port));
  }
  // shutdown() stops accepting and resolves once the requests in flight have been answered.
  return Promise.resolve({ port: server.addr.port, close: () => server.shutdown() });
};
