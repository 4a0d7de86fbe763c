/**
 * The benchmark suite: `npm run bench` (= `bun bench/run.ts`).
 *
 *   bun bench/run.ts [--quick] [--only tools,floor,throughput,reference,memory,bigedit,search,hash] [--out bench/results.json]
 *
 * Runs each section in a fresh Bun process (so one section's JIT state,
 * heap and cached files cannot flatter or burden the next), prints one
 * table, and writes the results with the machine, runtime versions, commit
 * and date. Line hashing is the other half of the performance work and has
 * its own entry, bench/hash/run.ts; its JSON is merged in as `hash` (and
 * skipped with a note when that entry is missing).
 *
 * Every number is a median over interleaved rounds with its quartiles and
 * range; every comparison is a ratio taken round by round within one run.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HashBenchRow } from "./hash/run.ts";
import { machineInfo, ROOT } from "./lib/machine.ts";
import { renderMarkdown, renderTable, row, type Section } from "./lib/report.ts";

/** The sections, each a script that writes one Section as JSON with `--json FILE`. */
const SECTIONS: Record<string, string> = {
  tools: "bench/tools.ts",
  floor: "bench/edit-floor.ts",
  throughput: "bench/http.ts",
  reference: "bench/vs-reference.ts",
  memory: "bench/memory.ts",
  bigedit: "bench/edit-big.ts",
  search: "bench/search.ts",
};
const HASH_ENTRY = "bench/hash/run.ts";

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

/** Run `script` in a fresh Bun; its JSON, or the reason it produced none. */
function runChild(script: string, args: string[], out: string): { ok: true; json: unknown } | { ok: false; why: string } {
  const started = performance.now();
  const child = spawnSync(process.execPath, [join(ROOT, script), ...args], { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
  const secs = ((performance.now() - started) / 1000).toFixed(0);
  if (child.status !== 0 || !existsSync(out)) return { ok: false, why: `${script} exited ${child.status ?? child.signal} after ${secs} s` };
  console.error(`${script}: done in ${secs} s`);
  return { ok: true, json: JSON.parse(readFileSync(out, "utf8")) };
}

/** The hash entry's rows as table rows (its JSON stays whole in results.json). */
function hashSection(json: unknown): Section {
  const rows = (json as { rows?: HashBenchRow[] }).rows ?? [];
  return {
    name: "hash",
    rows: rows.map((r) =>
      row(`hash.${r.runtime}.${r.backend}.${r.sizeMB}`, `line hashing, ${r.backend}, ${r.runtime}, ${r.sizeMB} MB`, "MB/s", {
        n: r.runs,
        median: r.medianMBps,
        p25: r.p25MBps,
        p75: r.p75MBps,
        min: r.minMBps,
        max: r.maxMBps,
      }),
    ),
    notes: ["from bench/hash/run.ts (its full JSON is under `hash` in results.json)"],
  };
}

const quick = process.argv.includes("--quick");
const only = arg("--only")?.split(",");
const outPath = arg("--out") ?? join(ROOT, "bench", "results.json");
const wanted = (name: string) => only === undefined || only.includes(name);
const machine = machineInfo();
const tmp = mkdtempSync(join(tmpdir(), "tw-bench-run-"));
const sections: Section[] = [];
const skipped: string[] = [];
let hash: unknown;

try {
  for (const [name, script] of Object.entries(SECTIONS)) {
    if (!wanted(name)) continue;
    const out = join(tmp, `${name}.json`);
    const ran = runChild(script, [...(quick ? ["--quick"] : []), "--json", out], out);
    if (ran.ok) sections.push(ran.json as Section);
    else skipped.push(`${name}: ${ran.why}`);
  }
  if (wanted("hash")) {
    if (!existsSync(join(ROOT, HASH_ENTRY))) {
      skipped.push(`hash: ${HASH_ENTRY} does not exist yet`);
    } else {
      const out = join(tmp, "hash.json");
      const ran = runChild(HASH_ENTRY, ["--out", out, ...(quick ? ["--quick"] : [])], out);
      if (ran.ok) {
        hash = ran.json;
        sections.push(hashSection(hash));
      } else skipped.push(`hash: ${ran.why}`);
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

const results = { machine, quick, command: `bun bench/run.ts${quick ? " --quick" : ""}`, sections, skipped, ...(hash ? { hash } : {}) };
writeFileSync(outPath, `${JSON.stringify(results, null, 2)}\n`);
console.log(`\n${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}; load ${machine.loadAtStart} at start`);
console.log(
  `bun ${machine.runtimes.bun}, deno ${machine.runtimes.deno}, node ${machine.runtimes.node}; commit ${machine.commit}${machine.dirty ? " (dirty)" : ""}; ${machine.date}\n`,
);
console.log(renderTable(sections));
for (const s of skipped) console.log(`skipped: ${s}`);
console.log(`\nwritten: ${outPath}`);
if (process.argv.includes("--markdown")) console.log(`\n${renderMarkdown(sections)}`);
