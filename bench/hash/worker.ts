/**
 * The hashing benchmark inside workerd: a module worker that imports
 * wasm/fnv.wasm as a compiled module (as the production worker.ts does),
 * generates the text itself and runs the same suite as the other runtimes.
 * `GET /?params=<SuiteParams JSON>` answers `{ rows, clock }`.
 *
 * Timing: deployed Workers advance performance.now() only across I/O (a
 * Spectre mitigation), but local workerd lets timers run freely (Cloudflare's
 * "Performance and timers" page says so for local development). The worker
 * does not take that on trust: `clock` is how far performance.now() moved
 * over a busy loop, and workerd-host.ts refuses results whose clock stood still.
 */
import fnvWasm from "./fnv.wasm";
import { runSuite, type SuiteParams } from "./suite.ts";

/** Milliseconds performance.now() advanced during ~20M multiply steps with no I/O. */
function clockProbe(): number {
  const t0 = performance.now();
  let h = 1;
  for (let i = 0; i < 20_000_000; i++) h = Math.imul(h ^ i, 0x01000193);
  const ms = performance.now() - t0;
  return h === 0.5 ? -1 : ms;
}

export default {
  async fetch(request: Request): Promise<Response> {
    const params = JSON.parse(new URL(request.url).searchParams.get("params") ?? "") as SuiteParams;
    const clock = clockProbe();
    const rows = await runSuite(fnvWasm, params);
    return Response.json({ rows, clock });
  },
};
