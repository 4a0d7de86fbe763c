/**
 * Throughput of small `view` calls over HTTP (REST on 127.0.0.1) with 1, 8
 * and 32 concurrent clients, on Bun (`toolwarden serve`), Deno (src/deno.ts)
 * and workerd (worker.ts bundled by wrangler, run by Miniflare with an R2
 * bucket and the observations Durable Object).
 *
 *   bun bench/http.ts [--quick] [--json out.json]
 *
 * The three servers run side by side; each round measures every runtime at
 * every concurrency in turn (order rotating), so the Deno/Bun and
 * workerd/Bun ratios are taken within a round. Clients are keep-alive fetch
 * loops in this (Bun) process, each its own observation session; on a
 * 2-core machine they compete with the server for the cores, which caps
 * every runtime alike.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { codeText, tempDir } from "./lib/fixtures.ts";
import { ROOT } from "./lib/machine.ts";
import { row, type Row, type Section, renderTable } from "./lib/report.ts";
import { restClient, startServer } from "./lib/server.ts";
import { ratios, summarise } from "./lib/stats.ts";
import type { SectionOptions } from "./tools.ts";

const CONCURRENCY = [1, 8, 32] as const;
const SMALL_FILE = "src/small.ts";
const WORKER_TOKEN = "bench-token-0123456789abcdef";

/** A server to load: where to send calls and how to stop it. */
interface Target {
  readonly name: string;
  readonly call: (session: string) => () => Promise<void>;
  stop(): Promise<void>;
}

/** Calls per second from `clients` loops calling for `ms`. */
async function throughput(target: Target, clients: number, ms: number): Promise<number> {
  let done = 0;
  let failure: unknown;
  const deadline = performance.now() + ms;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, k) => {
      const call = target.call(`bench-${target.name}-${clients}-${k}`);
      while (performance.now() < deadline && failure === undefined) {
        try {
          await call();
          done++;
        } catch (error) {
          failure = error;
        }
      }
    }),
  );
  if (failure !== undefined) throw failure;
  return done / ((performance.now() - started) / 1000);
}

function restTarget(name: string, url: string, headers: Record<string, string> = {}, stop: () => Promise<void>): Target {
  return {
    name,
    call(session) {
      const rest = restClient(url, session, headers);
      return async () => {
        const result = await rest("view", { path: SMALL_FILE });
        if (result.isError) throw new Error(`${name}: view failed: ${result.content[0]?.text}`);
      };
    },
    stop,
  };
}

/** workerd under Miniflare with wrangler.toml's bindings, the file written through the Worker itself. */
async function workerTarget(text: string): Promise<Target> {
  const { buildWorkerBundle, startWorker } = await import(join(ROOT, "test", "helpers", "worker-e2e.ts"));
  const bundle = await buildWorkerBundle();
  const grants = JSON.stringify([{ token: WORKER_TOKEN, workspace: "bench", scopes: ["read", "write"] }]);
  const worker = await startWorker(bundle, { vars: { TOOLWARDEN_TOKENS: grants } });
  const url = String(worker.url).replace(/\/$/, "");
  const headers = { authorization: `Bearer ${WORKER_TOKEN}` };
  const written = await restClient(url, "seed", headers)("write", { path: SMALL_FILE, content: text });
  if (written.isError) throw new Error(`seeding R2 failed: ${written.content[0]?.text}`);
  return restTarget("workerd", url, headers, async () => {
    await worker.dispose();
    bundle.dispose();
  });
}

/** Run the throughput section. */
export async function runThroughput(options: SectionOptions): Promise<Section> {
  const rounds = options.quick ? 2 : 5;
  const ms = options.quick ? 1_000 : 2_000;
  const dir = tempDir("tw-bench-http-");
  const rows: Row[] = [];
  const notes: string[] = [];
  const targets: Target[] = [];
  try {
    const work = join(dir.path, "ws");
    mkdirSync(join(work, "src"), { recursive: true });
    const text = codeText(60, 5);
    writeFileSync(join(work, SMALL_FILE), text);
    notes.push(`the file viewed: ${SMALL_FILE}, 60 lines, ${new TextEncoder().encode(text).length} bytes, whole`);
    for (const runtime of ["bun", "deno"] as const) {
      try {
        const server = await startServer(runtime, work);
        targets.push(restTarget(runtime, server.url, {}, () => server.stop()));
      } catch (error) {
        notes.push(`${runtime} skipped: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
      }
    }
    try {
      targets.push(await workerTarget(text));
      notes.push("workerd: Miniflare running the wrangler dry-run bundle; files in R2, observations in the Durable Object, bearer auth");
    } catch (error) {
      notes.push(`workerd skipped: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
    }

    const samples: Record<string, number[]> = {};
    for (const t of targets) for (const c of CONCURRENCY) samples[`${t.name}.${c}`] = [];
    // Warm-up: JIT, connection pools, the Durable Object.
    for (const t of targets) await throughput(t, 8, 300);
    for (let r = 0; r < rounds; r++) {
      for (const c of CONCURRENCY) {
        for (let k = 0; k < targets.length; k++) {
          const t = targets[(r + k) % targets.length];
          samples[`${t.name}.${c}`].push(await throughput(t, c, ms));
        }
      }
    }
    for (const t of targets) {
      for (const c of CONCURRENCY) {
        rows.push(
          row(`throughput.${t.name}.${c}`, `small view calls/s, ${t.name}, ${c} client${c === 1 ? "" : "s"}`, "calls/s", summarise(samples[`${t.name}.${c}`])),
        );
      }
    }
    for (const t of targets.filter((x) => x.name !== "bun")) {
      if (!targets.some((x) => x.name === "bun")) break;
      for (const c of CONCURRENCY) {
        const ratio = ratios(samples[`${t.name}.${c}`], samples[`bun.${c}`]);
        rows.push(row(`throughput.${t.name}.${c}.vs-bun`, `${t.name} / Bun throughput, ${c} client${c === 1 ? "" : "s"}`, "x", summarise(ratio)));
      }
    }
    notes.push(`${rounds} rounds of ${ms} ms per runtime and concurrency, runtimes interleaved within each round`);
  } finally {
    for (const t of targets) await t.stop().catch(() => {});
    dir.remove();
  }
  return { name: "throughput", rows, notes };
}

if (import.meta.main) {
  const quick = process.argv.includes("--quick");
  const jsonAt = process.argv.indexOf("--json");
  const section = await runThroughput({ quick });
  console.log(renderTable([section]));
  if (jsonAt !== -1) writeFileSync(process.argv[jsonAt + 1], JSON.stringify(section, null, 2));
}
