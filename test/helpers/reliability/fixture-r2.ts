/**
 * The deployed Worker (worker.ts bundled by `wrangler deploy --dry-run`, run
 * in workerd under Miniflare with wrangler.toml's bindings), with a handle on
 * its R2 bucket from the test side, so a suite can seed keys outside any
 * workspace and prove, key by key and ETag by ETag, that none of them was
 * read, written or deleted.
 */
import type { Scope } from "../../../src/scopes.ts";
import { join } from "node:path";
import { Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { buildWorkerBundle, type WorkerBundle } from "../worker-e2e.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;

/** The part of the R2 bucket API the suites use (Miniflare's proxy of the real binding). */
export interface BucketHandle {
  put(key: string, value: string | Uint8Array): Promise<unknown>;
  get(key: string): Promise<{ text(): Promise<string> } | null>;
  delete(keys: string | string[]): Promise<void>;
  list(options?: { prefix?: string; cursor?: string; limit?: number; delimiter?: string }): Promise<{
    objects: Array<{ key: string; etag: string; size: number }>;
    delimitedPrefixes?: string[];
    truncated: boolean;
    cursor?: string;
  }>;
}

/** A running Worker plus its bucket. */
export interface R2Worker {
  readonly url: URL;
  readonly bucket: BucketHandle;
  logs(): string;
  dispose(): Promise<void>;
}

/** A token grant as TOOLWARDEN_TOKENS takes it. */
export interface WorkerGrant {
  readonly token: string;
  readonly workspace: string;
  readonly scopes: readonly Scope[];
  readonly label?: string;
}

/** Build the bundle and start it with `grants`. Dispose of it when done (it also removes the bundle). */
export async function startR2Worker(grants: readonly WorkerGrant[]): Promise<R2Worker> {
  const bundle: WorkerBundle = await buildWorkerBundle();
  const { workerOptions } = unstable_getMiniflareWorkerOptions(join(ROOT, "wrangler.toml"));
  const output: string[] = [];
  const mf = new Miniflare({
    ...workerOptions,
    name: "toolwarden",
    modules: true,
    scriptPath: bundle.scriptPath,
    modulesRoot: bundle.outdir,
    bindings: { ...workerOptions.bindings, TOOLWARDEN_TOKENS: JSON.stringify(grants) },
    handleRuntimeStdio(stdout: NodeJS.ReadableStream, stderr: NodeJS.ReadableStream) {
      for (const stream of [stdout, stderr]) {
        stream.setEncoding("utf8");
        stream.on("data", (chunk: string) => output.push(chunk));
      }
    },
  } as ConstructorParameters<typeof Miniflare>[0]);
  const url = await mf.ready;
  const bucket = (await mf.getR2Bucket("FILES")) as unknown as BucketHandle;
  return {
    url,
    bucket,
    logs: () => output.join(""),
    async dispose() {
      await mf.dispose();
      bundle.dispose();
    },
  };
}

/**
 * Every key in the bucket with its ETag and size (key -> "etag:size"),
 * except below the prefixes in `skip` (each ending in "/"): listed one
 * "directory" at a time, so a large skipped part (an audit log that grows
 * with every call) costs nothing.
 */
export async function snapshotBucket(bucket: BucketHandle, skip: readonly string[] = []): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const pending = [""];
  while (pending.length > 0) {
    const prefix = pending.pop()!;
    let cursor: string | undefined;
    do {
      const page = await bucket.list({ prefix, delimiter: "/", limit: 1000, ...(cursor ? { cursor } : {}) });
      for (const object of page.objects) out.set(object.key, `${object.etag}:${object.size}`);
      for (const below of page.delimitedPrefixes ?? []) if (!skip.includes(below)) pending.push(below);
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
  }
  return out;
}
