/**
 * `toolwarden serve` on Deno: `deno task serve [DIR] [options]`. The same
 * app, options and shutdown as the Bun command (src/cli/serve.ts); only the
 * listening is `Deno.serve`.
 */
import process from "node:process";
import { listenError, StartupError } from "./cli/errors.ts";
import { processIO, type Listen } from "./cli/io.ts";
import { report } from "./cli/main.ts";
import { runServe } from "./cli/serve.ts";
import { SERVE_USAGE } from "./cli/usage.ts";

// Typed structurally, so this file also type-checks under tsc, which has no Deno types.
interface DenoServer {
  readonly addr: { readonly port: number };
  readonly finished: Promise<void>;
  shutdown(): Promise<void>;
}

interface DenoRuntime {
  readonly args: readonly string[];
  serve(
    options: { hostname: string; port: number; onListen?: (addr: unknown) => void },
    handler: (request: Request) => Promise<Response>,
  ): DenoServer;
}

/** {@link Listen} with `Deno.serve`. */
export const denoListen: Listen = (handler, options) => {
  const deno = (globalThis as { Deno?: DenoRuntime }).Deno;
  if (!deno) return Promise.reject(new StartupError("src/deno.ts runs on Deno (on Bun: npx bun src/cli.ts serve)", 1));
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

const io = processIO();
const args = (globalThis as { Deno?: DenoRuntime }).Deno?.args ?? process.argv.slice(2);
let code: number;
try {
  code = await runServe(args, io, denoListen);
} catch (error) {
  code = report(error, SERVE_USAGE, io);
}
await io.flush();
process.exit(code);
