/**
 * Peak memory of a ranged view of a 500 MB file: a child process (Bun, and
 * Deno) views its last 100 lines, and reports its peak resident set size
 * (VmHWM). Target: under 128 MB. For contrast, the whole-document path
 * (storage without readStream, size limit lifted) on the same file. Then a
 * content search of a 120 MB file (under the 4 x maxFileBytes search limit),
 * streamed and read whole.
 *
 *   bun bench/memory.ts [--quick] [--json out.json]
 *
 * `--quick` uses a 200 MB file. Each measurement is its own process, a few
 * times over, so the medians are of independent runs.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { freeGiB, DENO, ROOT } from "./lib/machine.ts";
import { tempDir, writeLargeFile } from "./lib/fixtures.ts";
import { row, type Row, type Section, renderTable } from "./lib/report.ts";
import { summarise } from "./lib/stats.ts";
import type { SectionOptions } from "./tools.ts";

interface ChildReport {
  ok: boolean;
  code: string | null;
  head: string;
  ms: number;
  baselineMB: number;
  peakMB: number;
}

function child(runtime: "bun" | "deno", dir: string, args: Record<string, unknown>, whole: boolean, file = "big.txt"): ChildReport {
  const script = join(ROOT, "bench", "memory-child.ts");
  const argv = [dir, file, JSON.stringify(args), ...(whole ? ["whole"] : [])];
  const command = runtime === "bun" ? [process.execPath, script, ...argv] : [DENO, "run", "-A", `--config=${join(ROOT, "deno.json")}`, script, ...argv];
  const out = spawnSync(command[0], command.slice(1), { cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 20 });
  const line = out.stdout.trim().split("\n").pop() ?? "";
  if (out.status !== 0 || !line.startsWith("{")) throw new Error(`${runtime} child failed (${out.status}): ${out.stderr.slice(0, 400)}`);
  return JSON.parse(line) as ChildReport;
}

/** Run the memory section. */
export async function runMemory(options: SectionOptions): Promise<Section> {
  const targetBytes = options.quick ? 200e6 : 500e6;
  const runs = options.quick ? 2 : 3;
  const rows: Row[] = [];
  const notes: string[] = [];
  if (freeGiB() < 2.5) {
    return { name: "memory", rows, notes: [`skipped: ${freeGiB().toFixed(1)} GiB free, the whole-document contrast needs ~2.5 GiB`] };
  }
  const dir = tempDir("tw-bench-mem-");
  try {
    const bytes = writeLargeFile(join(dir.path, "big.txt"), targetBytes);
    const mb = (bytes / 1e6).toFixed(0);
    notes.push(`file: ${mb} MB of generated source text (${Math.round(bytes / 50)} lines, roughly)`);
    for (const runtime of ["bun", "deno"] as const) {
      const reports: ChildReport[] = [];
      try {
        for (let k = 0; k < runs; k++) reports.push(child(runtime, dir.path, { start: -100 }, false));
      } catch (error) {
        notes.push(`${runtime} skipped: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
        continue;
      }
      const bad = reports.find((r) => !r.ok);
      if (bad) throw new Error(`${runtime}: the view failed (${bad.code}): ${bad.head}`);
      rows.push(
        row(`memory.tail.${runtime}.peak`, `peak RSS, view last 100 lines of ${mb} MB, ${runtime}`, "MB", summarise(reports.map((r) => r.peakMB)), {
          target: { kind: "max", value: 128 },
        }),
      );
      rows.push(row(`memory.tail.${runtime}.ms`, `time, view last 100 lines of ${mb} MB, ${runtime}`, "ms", summarise(reports.map((r) => r.ms))));
      notes.push(`${runtime}: resident before the call ${reports[0].baselineMB.toFixed(0)} MB (runtime, tools, WASM hasher)`);
    }
    // A content search of a whole file streams too; the file must be under 4 x maxFileBytes (128 MiB).
    const searchBytes = writeLargeFile(join(dir.path, "search.txt"), options.quick ? 50e6 : 120e6, 9);
    const smb = (searchBytes / 1e6).toFixed(0);
    const searchArgs = { content: "needle that is not there" };
    for (const whole of [false, true]) {
      const reports: ChildReport[] = [];
      for (let k = 0; k < (whole ? 1 : runs); k++) reports.push(child("bun", dir.path, searchArgs, whole, "search.txt"));
      const bad = reports.find((r) => !r.ok);
      if (bad) throw new Error(`search failed (${bad.code}): ${bad.head}`);
      const how = whole ? "read whole (no readStream)" : "streamed";
      rows.push(
        row(
          `memory.search.${whole ? "whole-document" : "bun"}.peak`,
          `peak RSS, search a ${smb} MB file, ${how}, bun`,
          "MB",
          summarise(reports.map((r) => r.peakMB)),
          whole ? {} : { target: { kind: "max", value: 128 } },
        ),
      );
      rows.push(
        row(`memory.search.${whole ? "whole-document" : "bun"}.ms`, `time, search a ${smb} MB file, ${how}, bun`, "ms", summarise(reports.map((r) => r.ms))),
      );
    }

    const whole = child("bun", dir.path, { start: -100 }, true);
    rows.push(
      row(`memory.tail.whole-document.peak`, `peak RSS, same view read whole (no readStream), bun`, "MB", summarise([whole.peakMB]), {
        note: "contrast: the path storage without readStream takes, size limit lifted",
      }),
    );
    rows.push(row(`memory.tail.whole-document.ms`, `time, same view read whole, bun`, "ms", summarise([whole.ms])));
    if (!whole.ok) notes.push(`whole-document contrast: ${whole.code}: ${whole.head}`);
  } finally {
    dir.remove();
  }
  return { name: "memory", rows, notes };
}

if (import.meta.main) {
  const quick = process.argv.includes("--quick");
  const jsonAt = process.argv.indexOf("--json");
  const section = await runMemory({ quick });
  console.log(renderTable([section]));
  if (jsonAt !== -1) writeFileSync(process.argv[jsonAt + 1], JSON.stringify(section, null, 2));
}
