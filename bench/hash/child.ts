/**
 * The hashing benchmark inside one local runtime (Bun, Deno, or Node via a
 * bundle): `<runtime> bench/hash/child.ts <path of fnv.wasm> '<SuiteParams JSON>'`
 * prints one JSON line `{ runtime, version, rows }` on stdout. Spawned by
 * run.ts (the path is an argument because Node runs a bundle from elsewhere).
 */
import { readFile } from "node:fs/promises";
import { runSuite, type SuiteParams } from "./suite.ts";

const g = globalThis as { Deno?: { version: { deno: string } }; Bun?: { version: string } };
const [runtime, version] =
  g.Bun !== undefined ? ["bun", g.Bun.version] : g.Deno !== undefined ? ["deno", g.Deno.version.deno] : ["node", process.versions.node];

const [wasmPath, paramsJson] = process.argv.slice(-2);
const params = JSON.parse(paramsJson) as SuiteParams;
const wasm = new Uint8Array(await readFile(wasmPath));
const rows = await runSuite(wasm, params);
console.log(JSON.stringify({ runtime, version, rows }));
