/**
 * `toolwarden serve` on Deno: `deno task serve [DIR] [options]`. The same
 * app, options and shutdown as the Bun command (src/cli/serve.ts); only the
 * listening is `Deno.serve`.
 */
import process from "node:process";
import { denoListen, type DenoRuntime } from "./cli/deno-listen.ts";
import { processIO } from "./cli/io.ts";
import { report } from "./cli/main.ts";
import { runServe } from "./cli/serve.ts";
import { SERVE_USAGE } from "./cli/usage.ts";

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
