/**
 * Measures the cost of one local atomic write (temp file + optional fsync +
 * rename, under the lock, with the version hash), against a plain
 * fs.writeFile. Not a test: run `bun bench/local-write.ts`.
 */
import * as fs from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalStorage } from "../src/storage/local/mod.ts";
import { Cond } from "../src/storage/types.ts";

const runs = Number(process.argv[2] ?? 200);

function summary(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(3);
  const mean = (samples.reduce((a, b) => a + b, 0) / samples.length).toFixed(3);
  return `median ${at(0.5)} ms  p90 ${at(0.9)} ms  mean ${mean} ms`;
}

async function measure(label: string, write: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 10; i++) await write(i); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await write(i);
    samples.push(performance.now() - start);
  }
  console.log(`${label.padEnd(44)} ${summary(samples)}`);
}

const root = await fs.mkdtemp(join(tmpdir(), "tw-bench-"));
try {
  for (const size of [4 * 1024, 1024 * 1024]) {
    const payload = (i: number) => new Uint8Array(size).fill(i % 251);
    const synced = await createLocalStorage(root, { fsync: true });
    const unsynced = await createLocalStorage(root, { fsync: false });
    const kib = `${size / 1024} KiB`;
    await measure(`fs.writeFile (not atomic), ${kib}`, (i) => fs.writeFile(join(root, "plain"), payload(i)));
    await measure(`atomic write, fsync, ${kib}`, (i) => synced.write("synced", payload(i)));
    await measure(`atomic write, no fsync, ${kib}`, (i) => unsynced.write("unsynced", payload(i)));
    let version = (await synced.write("cas", payload(0))).version;
    await measure(`ifVersion write (reads + hashes), fsync, ${kib}`, async (i) => {
      version = (await synced.write("cas", payload(i + 1), Cond.ifVersion(version))).version;
    });
    await measure(`read + version, ${kib}`, () => synced.read("synced"));
  }
} finally {
  await fs.rm(root, { recursive: true, force: true });
}
