/**
 * Throughput of `view` in-process (not a test: run it by hand).
 *
 *   npx bun bench/tool-view.ts
 *
 * A 10 MB / 200k-line file over memory storage with limits lifted: whole
 * view, a 2000-line window in the middle, and searches (literal, regex,
 * case-insensitive) over the same file and over 500 small files. Reports the
 * best of several runs in wall time and in process CPU time (the latter is
 * steadier on a busy machine).
 */
import { createHasher } from "../src/hash/loader.ts";
import { readWasmBytes } from "../src/hash/wasm-file.ts";
import { jsHasher } from "../src/hash/js.ts";
import type { LineHasher } from "../src/hash/types.ts";
import { viewTool } from "../src/tools/view/run.ts";
import type { ToolContext } from "../src/tools/types.ts";
import { makeContext, seed } from "../test/helpers/tool-context.ts";

const RUNS = 7;
const lines: string[] = [];
for (let i = 0; i < 200_000; i++) lines.push(`    const value${i} = compute(alpha, beta) + ${i}; // note`.padEnd(50, " "));
const big = `${lines.join("\n")}\n`;
const mb = new TextEncoder().encode(big).length / 1e6;

async function best(ctx: ToolContext, args: Record<string, unknown>): Promise<{ wall: number; cpu: number }> {
  let wall = Infinity;
  let cpu = Infinity;
  for (let k = 0; k < RUNS; k++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const result = await viewTool.run(args as never, ctx);
    const t1 = performance.now();
    const c1 = process.cpuUsage(c0);
    if (result.isError) throw new Error(result.content[0].text);
    wall = Math.min(wall, t1 - t0);
    cpu = Math.min(cpu, (c1.user + c1.system) / 1000);
  }
  return { wall, cpu };
}

function report(name: string, sizeMb: number, t: { wall: number; cpu: number }): void {
  const rate = (ms: number) => `${((sizeMb / ms) * 1000).toFixed(0)} MB/s`;
  console.log(`${name.padEnd(44)} wall ${t.wall.toFixed(1).padStart(7)} ms (${rate(t.wall)})  cpu ${t.cpu.toFixed(1).padStart(7)} ms (${rate(t.cpu)})`);
}

const hashers: [string, LineHasher][] = [
  ["js", jsHasher],
  ["wasm", await createHasher({ wasm: await readWasmBytes() })],
];
for (const [label, hasher] of hashers) {
  const ctx = makeContext({
    hasher,
    limits: { maxViewLines: Number.POSITIVE_INFINITY, maxOutputBytes: Number.POSITIVE_INFINITY, maxFileBytes: 1 << 30 },
  });
  const files: Record<string, string> = { "big.txt": big };
  for (let f = 0; f < 500; f++) files[`src/m${f}.ts`] = lines.slice(f * 400, f * 400 + 400).join("\n");
  await seed(ctx.storage, files);
  console.log(`hasher ${label} (${hasher.backend}), ${mb.toFixed(1)} MB, ${lines.length} lines`);
  report("whole-file view", mb, await best(ctx, { path: "big.txt" }));
  report("2000-line window (default limit)", mb, await best(ctx, { path: "big.txt", start: 100_000, end: 101_999 }));
  report("search literal, 1 file", mb, await best(ctx, { path: "big.txt", content: "value199999 " }));
  report("search regex, 1 file", mb, await best(ctx, { path: "big.txt", content: "value19999\\d =", regex: true }));
  report("search case-insensitive, 1 file", mb, await best(ctx, { path: "big.txt", content: "VALUE199999 ", case_sensitive: false }));
  const dirMb = mb * 0.98;
  report("search literal, 500 files", dirMb, await best(ctx, { path: "src", content: "value199999 " }));
  report("search regex, 500 files", dirMb, await best(ctx, { path: "src", content: "value19999\\d =", regex: true }));
}
