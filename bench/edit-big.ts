/**
 * `edit` and `batch_edit` of a 100k-line (~5 MB) local file, in-process,
 * each run in a fresh Bun process that also reports its peak resident
 * memory (VmHWM): the time of an edit of a few lines of a large file, and
 * how much memory beyond the process's own it takes (target: 3x the file).
 *
 *   bun bench/edit-big.ts [--quick] [--json out.json] [--vs OTHER_CHECKOUT]
 *
 * With `--vs DIR` (a checkout of another commit with node_modules), its
 * tools run in alternating child processes with this checkout's, and the
 * rows are printed for both: a before/after in one run.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./lib/fixtures.ts";
import { ROOT } from "./lib/machine.ts";
import { row, type Row, type Section, renderTable } from "./lib/report.ts";
import { summarise } from "./lib/stats.ts";
import type { SectionOptions } from "./tools.ts";
import { writeEditFile } from "./lib/workloads.ts";

interface ChildReport {
  editMs: number[];
  batchMs: number[];
  baselineMB: number;
  peakMB: number;
}

const LINES = 100_000;

/** A child on a freshly written file (every child starts from the same toggle states). */
function child(codeRoot: string, dir: string, rounds: number, only?: "edit" | "batch"): ChildReport {
  const file = writeEditFile(dir, "e100k.txt", LINES);
  const script = join(ROOT, "bench", "edit-big-child.ts");
  const out = spawnSync(process.execPath, [script, codeRoot, dir, JSON.stringify(file), String(rounds), ...(only ? [only] : [])], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  const line = out.stdout.trim().split("\n").pop() ?? "";
  if (out.status !== 0 || !line.startsWith("{")) throw new Error(`child failed (${out.status}): ${out.stderr.slice(0, 400)}`);
  return JSON.parse(line) as ChildReport;
}

const median = (xs: readonly number[]) => summarise(xs).median;

/** Run the big-file edit section; `vs` is another checkout to run alternately. */
export async function runEditBig(options: SectionOptions & { vs?: string }): Promise<Section> {
  const processes = options.quick ? 3 : 6;
  const rounds = options.quick ? 5 : 10;
  const contenders = options.vs
    ? [
        ["after", ROOT],
        ["before", options.vs],
      ]
    : [["", ROOT]];
  const dir = tempDir("tw-bench-bigedit-");
  const rows: Row[] = [];
  const notes: string[] = [];
  try {
    const fileMB = Bun.file(join(dir.path, writeEditFile(dir.path, "e100k.txt", LINES).path)).size / 1e6;
    notes.push(
      `file: ${LINES} lines, ${fileMB.toFixed(1)} MB; times: ${processes} fresh processes per contender, ${rounds} timed calls each ` +
        `after one untimed (median per process, then the median of those); memory: one call per fresh process, peak RSS (VmHWM) ` +
        `minus the peak before the call, over the file size`,
    );
    const reports = new Map<string, ChildReport[]>(contenders.map(([name]) => [name, []]));
    const memory = new Map<string, { edit: ChildReport[]; batch: ChildReport[] }>(contenders.map(([name]) => [name, { edit: [], batch: [] }]));
    for (let p = 0; p < processes; p++) {
      for (const [name, root] of p % 2 === 0 ? contenders : [...contenders].reverse()) {
        reports.get(name)!.push(child(root, dir.path, rounds));
        memory.get(name)!.edit.push(child(root, dir.path, 0, "edit"));
        memory.get(name)!.batch.push(child(root, dir.path, 0, "batch"));
      }
    }
    const growth = (r: ChildReport) => (r.peakMB - r.baselineMB) / (fileMB / 1.048576);
    for (const [name] of contenders) {
      const all = reports.get(name)!;
      const mem = memory.get(name)!;
      const tag = name === "" ? "" : `.${name}`;
      const label = name === "" ? "" : ` (${name})`;
      rows.push(
        row(`bigedit.edit${tag}`, `edit, ${LINES / 1000}k-line file, in-process${label}`, "ms", summarise(all.map((r) => median(r.editMs))), {
          target: { kind: "max", value: 30 },
        }),
      );
      rows.push(
        row(`bigedit.batch${tag}`, `batch_edit (3 replaces), ${LINES / 1000}k-line file${label}`, "ms", summarise(all.map((r) => median(r.batchMs))), {
          target: { kind: "max", value: 30 },
        }),
      );
      rows.push(row(`bigedit.edit.first${tag}`, `  first edit of a fresh process${label}`, "ms", summarise(mem.edit.map((r) => r.editMs[0]))));
      rows.push(
        row(`bigedit.edit.memory${tag}`, `  edit: peak memory over the process's own / file size${label}`, "x", summarise(mem.edit.map(growth)), {
          target: { kind: "max", value: 3 },
        }),
      );
      rows.push(
        row(`bigedit.batch.memory${tag}`, `  batch_edit: peak memory over the process's own / file size${label}`, "x", summarise(mem.batch.map(growth)), {
          target: { kind: "max", value: 3 },
        }),
      );
    }
  } finally {
    dir.remove();
  }
  return { name: "bigedit", rows, notes };
}

if (import.meta.main) {
  const quick = process.argv.includes("--quick");
  const jsonAt = process.argv.indexOf("--json");
  const vsAt = process.argv.indexOf("--vs");
  const section = await runEditBig({ quick, ...(vsAt === -1 ? {} : { vs: process.argv[vsAt + 1] }) });
  console.log(renderTable([section]));
  if (jsonAt !== -1) writeFileSync(process.argv[jsonAt + 1], JSON.stringify(section, null, 2));
}
