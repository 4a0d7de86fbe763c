/**
 * Runs bench/hash/worker.ts in workerd through Miniflare (Node):
 * `node <bundle of this file> <worker bundle.mjs> <fnv.wasm> '<SuiteParams JSON>'`
 * prints one JSON line `{ runtime: "workerd", version, rows }` like child.ts.
 * The worker bundle imports "./fnv.wasm", supplied here as a CompiledWasm module.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Miniflare } from "miniflare";

const [workerPath, wasmPath, paramsJson] = process.argv.slice(-3);
const dir = dirname(workerPath);
const mf = new Miniflare({
  compatibilityDate: "2025-01-01",
  modulesRoot: dir,
  modules: [
    { type: "ESModule", path: workerPath, contents: await readFile(workerPath, "utf8") },
    { type: "CompiledWasm", path: join(dir, "fnv.wasm"), contents: await readFile(wasmPath) },
  ],
});
try {
  const response = await mf.dispatchFetch(`http://bench.local/?params=${encodeURIComponent(paramsJson)}`);
  const text = await response.text();
  if (!response.ok) throw new Error(`worker answered ${response.status}: ${text.slice(0, 2000)}`);
  const { rows, clock } = JSON.parse(text) as { rows: unknown[]; clock: number };
  if (!(clock > 0)) throw new Error(`performance.now() did not advance inside workerd (${clock} ms): timings would be meaningless`);
  const require = createRequire(import.meta.url);
  const version = (require("workerd/package.json") as { version: string }).version;
  console.log(JSON.stringify({ runtime: "workerd", version, rows }));
} finally {
  await mf.dispose();
}
