/**
 * One `view` call in a fresh process, reporting its peak resident memory
 * (for bench/memory.ts). Runs on Bun and Deno.
 *
 *   bun bench/memory-child.ts DIR PATH ARGS_JSON [whole]
 *
 * With `whole`, storage hides readStream and maxFileBytes is lifted: the
 * whole-document path, for contrast. Prints one JSON line.
 */
import { readFileSync } from "node:fs";
import process from "node:process";
import { createLocalStorage } from "../src/storage/local/mod.ts";
import type { Storage } from "../src/storage/types.ts";
import { inProcess } from "./lib/inproc.ts";

/** Peak resident set size so far, in MB (VmHWM on Linux, else the runtime's maxRSS). */
function peakRssMB(): number {
  try {
    const status = readFileSync("/proc/self/status", "utf8");
    const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
    if (kb) return Number(kb) / 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS / 1024;
}

const [dir, path, argsJson, mode] = process.argv.slice(2);
const whole = mode === "whole";
const local = await createLocalStorage(dir);
let storage: Storage = local;
if (whole) {
  const { readStream: _hidden, ...rest } = local;
  storage = rest as Storage;
}
const tools = await inProcess(dir, { storage, ...(whole ? { limits: { maxFileBytes: 2 ** 31 - 1 } } : {}) });
const before = peakRssMB();
const started = performance.now();
const result = await tools.call("view", { path, ...JSON.parse(argsJson) });
const ms = performance.now() - started;
const text = result.content.map((c) => c.text).join("\n");
console.log(
  JSON.stringify({
    ok: !result.isError,
    code: result.code ?? null,
    head: text.slice(0, 120),
    outputChars: text.length,
    ms,
    baselineMB: before,
    peakMB: peakRssMB(),
  }),
);
