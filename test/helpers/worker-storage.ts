/**
 * Runs test/fixtures/worker-storage (the R2 provider and the Durable Object
 * observation store) inside workerd under Miniflare, and hands the tests a
 * bun-side {@link Storage} and {@link ObservationStore} that forward every
 * call to it over HTTP. The code under test therefore runs in the real
 * Workers runtime against Miniflare's R2 and Durable Object implementations.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { Miniflare } from "miniflare";
import { CodedError, type ErrorCode } from "../../src/errors.ts";
import type { Observation, ObservationStore } from "../../src/policy/types.ts";
import { FileTooLargeError, FsError, type FsErrorCode } from "../../src/storage/errors.ts";
import type {
  ListOptions,
  ListResult,
  ReadOptions,
  ReadResult,
  ReadStreamResult,
  StatResult,
  Storage,
  Version,
  WriteCondition,
  WriteResult,
} from "../../src/storage/types.ts";

const FIXTURE = new URL("../fixtures/worker-storage/worker.ts", import.meta.url).pathname;

/** Compatibility date used for the fixture; the same as wrangler.toml's. */
export async function wranglerCompatibilityDate(): Promise<string> {
  const toml = await Bun.file(new URL("../../wrangler.toml", import.meta.url).pathname).text();
  const date = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  if (!date) throw new Error("wrangler.toml has no compatibility_date");
  return date;
}

/** Bundle the fixture worker into one ES module (what wrangler would upload). */
async function bundleFixture(outdir: string): Promise<string> {
  const outfile = join(outdir, "worker.js");
  await build({
    entryPoints: [FIXTURE],
    outfile,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "browser"],
    logLevel: "error",
  });
  return outfile;
}

/** Options of {@link startStorageWorker}. */
export interface StorageWorkerOptions {
  /** Extra vars for the worker (and so for the Durable Object), e.g. TOOLWARDEN_MAX_PATHS_PER_SESSION. */
  readonly vars?: Record<string, string>;
  /** Keep R2 and Durable Object state in this directory (so a restart finds it again). */
  readonly persistDir?: string;
}

/** How a stream came when read inside workerd (see {@link StorageWorker.streamChunks}). */
export interface ChunksSeen {
  readonly chunks: number;
  readonly bytes: number;
  readonly emptyChunks: number;
  readonly largest: number;
  readonly cancelled: boolean;
  readonly size: number;
  readonly version: Version;
}

/** A running fixture worker. */
export interface StorageWorker {
  readonly url: URL;
  /** The R2 provider for keys under `prefix`, running in workerd. */
  storage(prefix: string, options?: { pageSize?: number }): Storage;
  /** Open `path` with readStream inside workerd and read it there (cancelling after `cancelAfter` chunks). */
  streamChunks(prefix: string, path: string, cancelAfter?: number): Promise<ChunksSeen>;
  /** Run the R2 start-up probe in workerd; rejects with its error. */
  probe(): Promise<void>;
  /** The Durable Object observation store, running in workerd. */
  readonly observations: ObservationStore;
  dispose(): Promise<void>;
}

function rethrow(body: { error: { code: string; message: string; path?: string; size?: number; limit?: number } }): never {
  const { code, message, path, size, limit } = body.error;
  if (code === "FS_TOO_LARGE" && path !== undefined && size !== undefined && limit !== undefined) {
    throw new FileTooLargeError(path, size, limit);
  }
  if (code.startsWith("FS_")) throw new FsError(code as FsErrorCode, message, { path });
  throw new CodedError(code as ErrorCode, message);
}

/** Build the fixture and start it under Miniflare (R2 bucket `FILES`, Durable Object `OBSERVATIONS`). */
export async function startStorageWorker(options: StorageWorkerOptions = {}): Promise<StorageWorker> {
  const outdir = mkdtempSync(join(tmpdir(), "tw-worker-storage-"));
  const scriptPath = await bundleFixture(outdir);
  const mf = new Miniflare({
    modules: true,
    scriptPath,
    modulesRoot: outdir,
    compatibilityDate: await wranglerCompatibilityDate(),
    r2Buckets: ["FILES"],
    durableObjects: { OBSERVATIONS: { className: "ObservationsDO", useSQLite: true } },
    bindings: options.vars ?? {},
    ...(options.persistDir ? { r2Persist: join(options.persistDir, "r2"), durableObjectsPersist: join(options.persistDir, "do") } : {}),
  });
  const url = await mf.ready;

  async function op(call: Record<string, unknown>, body?: Uint8Array): Promise<Response> {
    const response = await fetch(new URL("/op", url), {
      method: "POST",
      headers: { "x-op": encodeURIComponent(JSON.stringify(call)) },
      ...(body ? { body: body.slice() } : {}),
    });
    if (response.status === 409) rethrow(await response.json());
    if (!response.ok) throw new Error(`fixture worker failed (${response.status}): ${await response.text()}`);
    return response;
  }

  function storage(prefix: string, storageOptions: { pageSize?: number } = {}): Storage {
    const base = { prefix, ...(storageOptions.pageSize ? { pageSize: storageOptions.pageSize } : {}) };
    return {
      kind: "r2",
      async stat(path): Promise<StatResult | null> {
        return (await op({ ...base, op: "stat", path })).json();
      },
      async read(path, readOptions?: ReadOptions): Promise<ReadResult> {
        const response = await op({ ...base, op: "read", path, options: readOptions });
        const version = decodeURIComponent(response.headers.get("x-version") ?? "");
        return { bytes: new Uint8Array(await response.arrayBuffer()), version };
      },
      // The stream workerd answers is the provider's stream: cancelling it here aborts the response there.
      async readStream(path): Promise<ReadStreamResult> {
        const response = await op({ ...base, op: "readStream", path });
        const version = decodeURIComponent(response.headers.get("x-version") ?? "");
        const stream = response.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
        return { stream, size: Number(response.headers.get("x-size")), version: Promise.resolve(version) };
      },
      async write(path, bytes, condition?: WriteCondition): Promise<WriteResult> {
        return (await op({ ...base, op: "write", path, condition }, bytes)).json();
      },
      async list(path, listOptions?: ListOptions): Promise<ListResult> {
        return (await op({ ...base, op: "list", path, options: listOptions })).json();
      },
      async delete(path, deleteOptions?: { ifVersion?: Version }): Promise<void> {
        await op({ ...base, op: "delete", path, options: deleteOptions });
      },
    };
  }

  async function obs(call: { op: string; session: string; path: string; observation?: Observation }): Promise<Observation | undefined> {
    const response = await fetch(new URL("/obs", url), { method: "POST", body: JSON.stringify(call) });
    if (response.status === 409) rethrow(await response.json());
    if (!response.ok) throw new Error(`fixture worker failed (${response.status}): ${await response.text()}`);
    return ((await response.json()) as { observation: Observation | null }).observation ?? undefined;
  }

  return {
    url,
    storage,
    async streamChunks(prefix, path, cancelAfter) {
      return (await op({ op: "streamChunks", prefix, path, cancelAfter })).json();
    },
    async probe() {
      const response = await fetch(new URL("/probe", url), { method: "POST" });
      if (response.status === 409) rethrow(await response.json());
      if (!response.ok) throw new Error(`fixture worker failed (${response.status}): ${await response.text()}`);
    },
    observations: {
      get: (session, path) => obs({ op: "get", session, path }),
      set: async (session, path, observation) => void (await obs({ op: "set", session, path, observation })),
      forget: async (session, path) => void (await obs({ op: "forget", session, path })),
    },
    async dispose() {
      await mf.dispose();
      rmSync(outdir, { recursive: true, force: true });
    },
  };
}
