/**
 * Builds worker.ts exactly as a deploy would (`wrangler deploy --dry-run`,
 * offline) and runs the bundle in workerd under Miniflare with the bindings
 * wrangler.toml declares (read through wrangler's own config loader), so the
 * end-to-end tests exercise the real bundle, the precompiled WASM module, the
 * R2 bucket and the Durable Object.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";

const ROOT = new URL("../../", import.meta.url).pathname;
const WRANGLER = join(ROOT, "node_modules/.bin/wrangler");

/** The bundle `wrangler deploy --dry-run` wrote. */
export interface WorkerBundle {
  readonly outdir: string;
  readonly scriptPath: string;
  /** Total bytes of the uploaded modules (script + wasm), and gzipped. */
  readonly bytes: number;
  readonly gzipBytes: number;
  /** The module files next to the script (e.g. the hashed fnv.wasm). */
  readonly modules: readonly string[];
  readonly buildMs: number;
  dispose(): void;
}

/** Bundle worker.ts with wrangler, offline. Rejects with wrangler's output when the build fails. */
export async function buildWorkerBundle(): Promise<WorkerBundle> {
  const outdir = mkdtempSync(join(tmpdir(), "tw-worker-bundle-"));
  const started = performance.now();
  const proc = Bun.spawn([WRANGLER, "deploy", "--dry-run", "--outdir", outdir], {
    cwd: ROOT,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1", NO_COLOR: "1" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  if (code !== 0) throw new Error(`wrangler deploy --dry-run failed (${code}):\n${out}\n${err}`);
  const files = readdirSync(outdir).filter((f) => !f.endsWith(".map") && f !== "README.md");
  const uploaded = files.map((f) => readFileSync(join(outdir, f)));
  return {
    outdir,
    scriptPath: join(outdir, "worker.js"),
    bytes: uploaded.reduce((n, b) => n + b.length, 0),
    gzipBytes: uploaded.reduce((n, b) => n + Bun.gzipSync(b).length, 0),
    modules: files.filter((f) => f !== "worker.js"),
    buildMs: performance.now() - started,
    dispose: () => rmSync(outdir, { recursive: true, force: true }),
  };
}

/** Options of {@link startWorker}. */
export interface StartWorkerOptions {
  /** Secrets and vars (e.g. TOOLWARDEN_TOKENS). */
  readonly vars: Record<string, string>;
  /** Keep R2 and Durable Object state here, so a restarted runtime finds it. */
  readonly persistDir?: string;
}

/** The bundle running in workerd. */
export interface RunningWorker {
  readonly url: URL;
  /** Everything the worker printed so far (console.log and console.error). */
  logs(): string;
  /** Store `bytes` at `key` in the R2 bucket directly (`<workspace>/<path>`), e.g. a file larger than any request may carry. */
  putObject(key: string, bytes: Uint8Array): Promise<void>;
  /** Every object under `prefix` in the R2 bucket, as key -> text. */
  objects(prefix: string): Promise<Record<string, string>>;
  /** The bytes at `key` in the R2 bucket, or undefined. */
  getObject(key: string): Promise<Uint8Array | undefined>;
  /** Wait until the logs match `pattern` (the runtime flushes them asynchronously). */
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<string>;
  dispose(): Promise<void>;
}

function collect(stream: Readable, sink: string[]): void {
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => sink.push(chunk));
}

/** Run `bundle` under Miniflare with wrangler.toml's bindings and `options.vars`. */
export async function startWorker(bundle: WorkerBundle, options: StartWorkerOptions): Promise<RunningWorker> {
  const { workerOptions } = unstable_getMiniflareWorkerOptions(join(ROOT, "wrangler.toml"));
  const output: string[] = [];
  const mf = new Miniflare({
    ...workerOptions,
    name: "toolwarden",
    modules: true,
    scriptPath: bundle.scriptPath,
    modulesRoot: bundle.outdir,
    bindings: { ...workerOptions.bindings, ...options.vars },
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      collect(stdout, output);
      collect(stderr, output);
    },
    ...(options.persistDir ? { r2Persist: join(options.persistDir, "r2"), durableObjectsPersist: join(options.persistDir, "do") } : {}),
  } as ConstructorParameters<typeof Miniflare>[0]);
  const url = await mf.ready;
  const logs = () => output.join("");
  return {
    url,
    logs,
    async putObject(key, bytes) {
      const bucket = await mf.getR2Bucket("FILES");
      await bucket.put(key, bytes);
    },
    async objects(prefix) {
      const bucket = await mf.getR2Bucket("FILES");
      const out: Record<string, string> = {};
      let cursor: string | undefined;
      do {
        const page = await bucket.list({ prefix, ...(cursor ? { cursor } : {}) });
        for (const object of page.objects) out[object.key] = (await (await bucket.get(object.key))?.text()) ?? "";
        cursor = page.truncated ? page.cursor : undefined;
      } while (cursor);
      return out;
    },
    async getObject(key) {
      const bucket = await mf.getR2Bucket("FILES");
      const object = await bucket.get(key);
      return object ? new Uint8Array(await object.arrayBuffer()) : undefined;
    },
    async waitForLog(pattern, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(logs())) {
        if (Date.now() > deadline) throw new Error(`no log line matching ${pattern} within ${timeoutMs} ms; logs:\n${logs()}`);
        await Bun.sleep(20);
      }
      return logs();
    },
    dispose: () => mf.dispose(),
  };
}
