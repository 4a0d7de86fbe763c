/**
 * Before/after of small edits in one run: `edit` and `batch_edit` of a
 * 1k-line local file in-process (no audit log), this checkout's tools and
 * another checkout's (`--vs DIR`, with node_modules), alternating call by
 * call with the write floor; the ratios are taken within each round.
 *
 *   bun bench/edit-vs.ts --vs DIR [--lines 1000] [--rounds 60] [--no-fsync] [--json out.json]
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { codeText, tempDir } from "./lib/fixtures.ts";
import { floorWrite } from "./lib/floor.ts";
import { ROOT } from "./lib/machine.ts";
import { alternate } from "./lib/measure.ts";
import { row, type Row, type Section, renderTable } from "./lib/report.ts";
import { ratios, summarise } from "./lib/stats.ts";
import { batchEditCalls, type CallTool, editCalls, writeEditFile } from "./lib/workloads.ts";

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

/** In-process tools of the checkout at `root`, serving `dir`. */
async function toolsOf(root: string, dir: string, fsync: boolean): Promise<CallTool> {
  const { inProcess } = await import(join(root, "bench/lib/inproc.ts"));
  const { createLocalStorage } = await import(join(root, "src/storage/local/mod.ts"));
  // Without fdatasync the rows are the CPU side alone: on a loaded machine the flush varies 100x.
  const tools = await inProcess(dir, fsync ? {} : { storage: await createLocalStorage(dir, { fsync: false }) });
  return (tool, args) => tools.call(tool, args);
}

export async function runEditVs(vs: string, lines: number, rounds: number, fsync = true): Promise<Section> {
  const dir = tempDir("tw-bench-editvs-");
  const rows: Row[] = [];
  try {
    const sides = { after: ROOT, before: vs };
    const calls: { name: string; run: () => Promise<void> }[] = [];
    for (const [name, root] of Object.entries(sides)) {
      const work = join(dir.path, name);
      mkdirSync(work, { recursive: true });
      const file = writeEditFile(work, "e.txt", lines);
      const call = await toolsOf(root, work, fsync);
      await call("view", { path: file.path, start: 1, end: 1 });
      calls.push({ name: `edit.${name}`, run: editCalls(file, call) }, { name: `batch.${name}`, run: batchEditCalls(file, call) });
    }
    const floorDir = join(dir.path, "floor");
    mkdirSync(floorDir, { recursive: true });
    const floor = floorWrite(floorDir, new TextEncoder().encode(codeText(lines, 20)));
    const s = await alternate([...calls, { name: "floor", run: floor }], { rounds, warmup: 50 });
    rows.push(row("editvs.floor", `write floor, ${lines}-line file`, "ms", summarise(s.floor)));
    for (const tool of ["edit", "batch"]) {
      for (const side of ["before", "after"]) {
        const key = `${tool}.${side}`;
        rows.push(row(`editvs.${key}`, `${tool === "edit" ? "edit" : "batch_edit (3 replaces)"} ${side}, ${lines}-line file`, "ms", summarise(s[key])));
        rows.push(row(`editvs.${key}.over`, `  minus the floor of the same round`, "ms", summarise(s[key].map((v, i) => v - s.floor[i]))));
      }
      rows.push(row(`editvs.${tool}.ratio`, `  ${tool} before / after, per round`, "x", summarise(ratios(s[`${tool}.before`], s[`${tool}.after`]))));
    }
  } finally {
    dir.remove();
  }
  const flush = fsync ? "with fdatasync" : "WITHOUT fdatasync (--no-fsync: the CPU side only)";
  return { name: "editvs", rows, notes: [`before: ${vs}; after: ${ROOT}; in-process, local storage ${flush}, no audit log`] };
}

if (import.meta.main) {
  const vs = arg("--vs");
  if (!vs) throw new Error("--vs DIR (another checkout) is required");
  const section = await runEditVs(vs, Number(arg("--lines") ?? 1000), Number(arg("--rounds") ?? 60), !process.argv.includes("--no-fsync"));
  console.log(renderTable([section]));
  const json = arg("--json");
  if (json) writeFileSync(json, JSON.stringify(section, null, 2));
}
