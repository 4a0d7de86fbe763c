/**
 * Line-hashing benchmark: the JS and the WASM line hasher on 1, 10 and 100 MB
 * of generated source-like text, in every runtime the project ships on (Bun,
 * Deno, workerd via Miniflare) and Node for reference.
 *
 *   bun bench/hash/run.ts --out <file.json> [--quick] [--sizes 1,10,100] [--rounds N]
 *
 * Prints a table and writes `{ kind: "hash", machine, runtimes, date, rows }`
 * (one row per runtime x backend x size: median, p25 and p75 MB/s of input,
 * plus min/max and the sample count). `--quick` (under a minute): 1 and 10 MB,
 * one round. `--sizes` and `--rounds` override either (e.g. `--quick --sizes
1,10,100` for all three sizes in one short round). MB = 1e6 bytes; times are
wall clock (performance.now()).
 *
 * Method: each runtime runs child.ts (workerd: worker.ts through
 * workerd-host.ts) in a fresh process; inside, JS and WASM alternate run by
 * run on the same bytes. Runtimes take turns over several rounds so that a
 * busy spell of the machine does not land on one runtime only. Node and
 * workerd get bundles built with `bun build` into node_modules/.cache/bench-hash.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { arch, cpus, loadavg, platform, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { summarise } from "./measure.ts";
import type { SampleRow, SuiteParams } from "./suite.ts";

/** One cell of the result. */
export interface HashBenchRow {
  runtime: string;
  backend: "js" | "wasm";
  sizeMB: number;
  medianMBps: number;
  p25MBps: number;
  p75MBps: number;
  minMBps: number;
  maxMBps: number;
  /** Number of samples. */
  runs: number;
  /** Lines in the generated text. */
  lines: number;
}

const RUNTIMES = ["bun", "deno", "workerd", "node"] as const;
type Runtime = (typeof RUNTIMES)[number];

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const outAt = args.indexOf("--out");
const outFile = outAt >= 0 ? args[outAt + 1] : undefined;
if (outAt >= 0 && outFile === undefined) throw new Error("--out needs a file name");

const root = fileURLToPath(new URL("../..", import.meta.url));
const cache = join(root, "node_modules", ".cache", "bench-hash");
const wasmPath = join(root, "wasm", "fnv.wasm");
const bun = process.versions.bun !== undefined ? process.execPath : "bun";
const localDeno = join(root, "node_modules", ".bin", "deno");
const deno = existsSync(localDeno) ? localDeno : "deno";

/** The value after `--name`, if given. */
function option(name: string): string | undefined {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  if (args[at + 1] === undefined) throw new Error(`${name} needs a value`);
  return args[at + 1];
}

const sizesArg = option("--sizes");
const roundsArg = option("--rounds");
const rounds = roundsArg !== undefined ? Number(roundsArg) : quick ? 1 : 3;
const defaults: SuiteParams = quick ? { sizes: [1, 10], runs: 5, minSampleMs: 50 } : { sizes: [1, 10, 100], runs: 5, minSampleMs: 200 };
const params: SuiteParams = sizesArg !== undefined ? { ...defaults, sizes: sizesArg.split(",").map(Number) } : defaults;
if (!(rounds >= 1) || !params.sizes.every((s) => s > 0)) throw new Error("--rounds and --sizes take positive numbers");

/** Run a command; its stdout's last line is the JSON a child prints. */
function runJson(cmd: string, argv: string[]): { runtime: string; version: string; rows: SampleRow[] } {
  const r = spawnSync(cmd, argv, { cwd: root, encoding: "utf8", maxBuffer: 64 << 20, timeout: 15 * 60_000 });
  if (r.status !== 0) throw new Error(`${cmd} ${argv[0]} failed (${r.status ?? r.signal}): ${r.error?.message ?? ""}\n${r.stderr}`);
  const last = r.stdout.trim().split("\n").pop() ?? "";
  return JSON.parse(last);
}

function bundle(entry: string, outFile: string, extra: string[]): string {
  const out = join(cache, outFile);
  const r = spawnSync(bun, ["build", join(root, entry), "--format", "esm", "--outfile", out, ...extra], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`bun build ${entry} failed: ${r.stderr}`);
  return out;
}

mkdirSync(cache, { recursive: true });
const nodeChild = bundle("bench/hash/child.ts", "child-node.mjs", ["--target", "node"]);
const workerBundle = bundle("bench/hash/worker.ts", "worker.mjs", ["--target", "browser", "--external", "*.wasm"]);
const workerdHost = bundle("bench/hash/workerd-host.ts", "workerd-host.mjs", ["--target", "node", "--external", "miniflare"]);

const paramsJson = JSON.stringify(params);
const commands: Record<Runtime, [string, string[]]> = {
  bun: [bun, [join(root, "bench/hash/child.ts"), wasmPath, paramsJson]],
  deno: [deno, ["run", "--allow-read", join(root, "bench/hash/child.ts"), wasmPath, paramsJson]],
  node: ["node", [nodeChild, wasmPath, paramsJson]],
  workerd: ["node", [workerdHost, workerBundle, wasmPath, paramsJson]],
};

const loadStart = loadavg();
const versions: Partial<Record<Runtime, string>> = {};
const samples = new Map<string, { runtime: Runtime; backend: "js" | "wasm"; sizeMB: number; lines: number; values: number[] }>();
for (let round = 0; round < rounds; round++) {
  // rotate the order so no runtime always runs first (cold machine) or last
  for (let k = 0; k < RUNTIMES.length; k++) {
    const runtime = RUNTIMES[(round + k) % RUNTIMES.length];
    process.stderr.write(`round ${round + 1}/${rounds}: ${runtime}\n`);
    const [cmd, argv] = commands[runtime];
    const result = runJson(cmd, argv);
    versions[runtime] = result.version;
    for (const row of result.rows) {
      const key = `${runtime}/${row.backend}/${row.sizeMB}`;
      const cell = samples.get(key) ?? { runtime, backend: row.backend, sizeMB: row.sizeMB, lines: row.lines, values: [] };
      cell.values.push(...row.samples);
      samples.set(key, cell);
    }
  }
}
const loadEnd = loadavg();

const rows: HashBenchRow[] = [];
for (const runtime of RUNTIMES) {
  for (const sizeMB of params.sizes) {
    for (const backend of ["js", "wasm"] as const) {
      const cell = samples.get(`${runtime}/${backend}/${sizeMB}`);
      if (cell === undefined) continue;
      const s = summarise(cell.values);
      rows.push({
        runtime,
        backend,
        sizeMB,
        medianMBps: Math.round(s.median),
        p25MBps: Math.round(s.p25),
        p75MBps: Math.round(s.p75),
        minMBps: Math.round(s.min),
        maxMBps: Math.round(s.max),
        runs: cell.values.length,
        lines: cell.lines,
      });
    }
  }
}

const cpu = cpus();
const machine = `${cpu[0]?.model ?? "unknown CPU"} x${cpu.length}, ${Math.round(totalmem() / 2 ** 30)} GiB, ${platform()}-${arch()}`;
const report = {
  kind: "hash" as const,
  machine,
  runtimes: { node: versions.node, deno: versions.deno, bun: versions.bun, workerd: versions.workerd },
  date: new Date().toISOString(),
  quick,
  load: { start: loadStart.map((x) => +x.toFixed(2)), end: loadEnd.map((x) => +x.toFixed(2)) },
  rows,
};
if (outFile !== undefined) writeFileSync(outFile, `${JSON.stringify(report, null, 2)}\n`);

const fmt = (r: HashBenchRow | undefined) => (r === undefined ? "-" : `${r.medianMBps} [${r.p25MBps}..${r.p75MBps}]`);
const lines = [
  `line hashing, MB/s of input (median [p25..p75] of ${rounds * params.runs} runs), ${machine}`,
  `load average ${loadStart[0].toFixed(1)} at start, ${loadEnd[0].toFixed(1)} at end; ${Object.entries(versions)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ")}`,
  "",
  `${"runtime".padEnd(8)} ${"size".padStart(6)}  ${"js".padEnd(20)} ${"wasm".padEnd(20)} wasm/js`,
];
for (const runtime of RUNTIMES) {
  for (const sizeMB of params.sizes) {
    const js = rows.find((r) => r.runtime === runtime && r.backend === "js" && r.sizeMB === sizeMB);
    const wasm = rows.find((r) => r.runtime === runtime && r.backend === "wasm" && r.sizeMB === sizeMB);
    const ratio = js && wasm ? (wasm.medianMBps / js.medianMBps).toFixed(1) : "-";
    lines.push(`${runtime.padEnd(8)} ${`${sizeMB} MB`.padStart(6)}  ${fmt(js).padEnd(20)} ${fmt(wasm).padEnd(20)} ${ratio}x`);
  }
}
console.log(lines.join("\n"));
