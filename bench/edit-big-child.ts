/**
 * `edit` and `batch_edit` of one large file in a fresh process (for
 * bench/edit-big.ts): times each call and reports the peak resident memory.
 *
 *   bun bench/edit-big-child.ts CODE_ROOT DIR FILE_JSON ROUNDS [edit|batch]
 *
 * With `edit` or `batch`, one call of that tool only (for its memory).
 * CODE_ROOT is the checkout whose tools run (this one, or another commit's
 * for a before/after in one run). Prints one JSON line.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { EditFile } from "./lib/workloads.ts";

function peakRssMB(): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
  return kb ? Number(kb) / 1024 : process.resourceUsage().maxRSS / 1024;
}

function rssMB(): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
  return Number(kb) / 1024;
}

const [codeRoot, dir, fileJson, roundsArg, only] = process.argv.slice(2);
const file = JSON.parse(fileJson) as EditFile;
const rounds = Number(roundsArg);
const { inProcess, expectOk } = await import(join(codeRoot, "bench/lib/inproc.ts"));
const { editCalls, batchEditCalls, writeEditFile } = await import(join(codeRoot, "bench/lib/workloads.ts"));
const tools = await inProcess(dir);
const call = (tool: string, args: Record<string, unknown>) => tools.call(tool, args);
expectOk(await call("view", { path: file.path, start: 1, end: 1 }), "view");
const edit = editCalls(file, call);
const batch = batchEditCalls(file, call);
if (only === "edit" || only === "batch") {
  // The code paths are compiled on a small file first: the memory counted is the large edit's, not the JIT's.
  const small = writeEditFile(dir, "warm-1k.txt", 1_000);
  expectOk(await call("view", { path: small.path, start: 1, end: 1 }), "view");
  await (only === "edit" ? editCalls(small, call) : batchEditCalls(small, call))();
  (globalThis as { Bun?: { gc(full: boolean): void } }).Bun?.gc(true);
  // Linux resets the high-water mark to the current RSS on "5" (proc(5), clear_refs): the peak is then this call's.
  writeFileSync("/proc/self/clear_refs", "5");
  const baselineMB = rssMB();
  // One call in a fresh process: the memory of that edit alone (peak over the process's own).
  const t = performance.now();
  await (only === "edit" ? edit() : batch());
  const ms = performance.now() - t;
  console.log(JSON.stringify({ editMs: only === "edit" ? [ms] : [], batchMs: only === "batch" ? [ms] : [], baselineMB, peakMB: peakRssMB() }));
  process.exit(0);
}
const baselineMB = peakRssMB();
const editMs: number[] = [];
const batchMs: number[] = [];
// The first call of each compiles the path: untimed, as a server has long done it.
await edit();
await batch();
for (let i = 0; i < rounds; i++) {
  let t = performance.now();
  await edit();
  editMs.push(performance.now() - t);
  t = performance.now();
  await batch();
  batchMs.push(performance.now() - t);
}
console.log(JSON.stringify({ editMs, batchMs, baselineMB, peakMB: peakRssMB() }));
