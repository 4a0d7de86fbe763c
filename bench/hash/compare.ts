/**
 * Side-by-side comparison of wasm builds (a development tool, not part of the
 * orchestrated benchmark): `bun bench/hash/compare.ts [--sizes 1,10]
 * [--runs 15] [--js] [--cpu] a.wasm b.wasm ...` hashes the same generated text with
 * each module through the real loader, alternating them within each run,
 * and prints median [p25..p75] MB/s (of process CPU time with --cpu, which
 * a busy shared machine disturbs less than wall time). For Node, bundle it first:
 * `bun build bench/hash/compare.ts --target node --outfile /tmp/compare.mjs`.
 */
import { readFile } from "node:fs/promises";
import { jsHasher } from "../../src/hash/js.ts";
import { loadWasmHasher } from "../../src/hash/loader.ts";
import { type Contender, measure, summarise } from "./measure.ts";
import { sourceLikeText } from "./text.ts";

const args = process.argv.slice(2);
let sizes = [10];
let runs = 15;
let withJs = false;
let cpu = false;
const files: string[] = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--sizes") sizes = args[++i].split(",").map(Number);
  else if (args[i] === "--runs") runs = Number(args[++i]);
  else if (args[i] === "--js") withJs = true;
  else if (args[i] === "--cpu") cpu = true;
  else files.push(args[i]);
}

/** Process CPU time in ms: on a shared machine it counts only the time this process ran. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

const contenders: Contender[] = [];
for (const file of files) {
  const hasher = await loadWasmHasher(await readFile(file));
  contenders.push({ name: file.replace(/^.*\//, ""), hashLines: hasher.hashLines });
}
if (withJs) contenders.push({ name: "js", hashLines: jsHasher.hashLines });

for (const mb of sizes) {
  const bytes = sourceLikeText(Math.round(mb * 1e6));
  const samples = measure(contenders, bytes, { runs, minSampleMs: 100, now: cpu ? cpuMs : undefined });
  for (const c of contenders) {
    const s = summarise(samples[c.name]);
    console.log(`${mb} MB ${c.name.padEnd(24)} ${s.median.toFixed(0).padStart(6)} [${s.p25.toFixed(0)}..${s.p75.toFixed(0)}]`);
  }
}
