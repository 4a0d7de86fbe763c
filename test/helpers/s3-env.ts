/**
 * Helpers for the S3 tests: the live server's config from the environment
 * (scripts/s3-test.sh exports it), bucket set-up, prefix clean-up, and a
 * fetch that counts and can fail requests on purpose.
 */
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { AwsClient } from "aws4fetch";
import { s3ConfigFromEnv, type S3Config } from "../../src/storage/s3/config.ts";
import { parseListObjectsV2 } from "../../src/storage/s3/xml.ts";

/** The bucket the live tests use unless S3_BUCKET names another. */
export const TEST_BUCKET = "toolwarden-test";

/** The live server's config, or undefined when S3_ENDPOINT is not set. */
export function liveS3Config(env: Record<string, string | undefined> = process.env): S3Config | undefined {
  if (!env.S3_ENDPOINT) return undefined;
  return s3ConfigFromEnv({ S3_BUCKET: TEST_BUCKET, S3_REGION: "us-east-1", ...env, S3_PREFIX: undefined });
}

function clientFor(config: S3Config): AwsClient {
  return new AwsClient({
    accessKeyId: config.accessKeyId,
    secretAccessKey: config.secretAccessKey,
    service: "s3",
    region: config.region,
    retries: 0,
  });
}

function bucketUrl(config: S3Config): string {
  return `${config.endpoint.replace(/\/+$/, "")}/${config.bucket}`;
}

/** Create the bucket (path style) unless it exists. */
export async function ensureBucket(config: S3Config): Promise<void> {
  const response = await clientFor(config).fetch(bucketUrl(config), { method: "PUT" });
  const body = await response.text();
  if (!response.ok && !body.includes("BucketAlreadyOwnedByYou")) {
    throw new Error(`cannot create bucket ${config.bucket}: HTTP ${response.status} ${body}`);
  }
}

/** Every key under `prefix`, raw (no provider in between). */
export async function listKeys(config: S3Config, prefix: string): Promise<string[]> {
  const client = clientFor(config);
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const query = new URLSearchParams({ "list-type": "2", prefix });
    if (token) query.set("continuation-token", token);
    const response = await client.fetch(`${bucketUrl(config)}?${query.toString().replaceAll("+", "%20")}`);
    const page = parseListObjectsV2(await response.text());
    keys.push(...page.objects.map((o) => o.key));
    token = page.isTruncated ? page.nextContinuationToken : undefined;
  } while (token);
  return keys;
}

/** Delete every key under `prefix`. */
export async function deletePrefix(config: S3Config, prefix: string): Promise<void> {
  const client = clientFor(config);
  const keys = await listKeys(config, prefix);
  for (let i = 0; i < keys.length; i += 16) {
    await Promise.all(
      keys.slice(i, i + 16).map(async (key) => {
        const path = key.split("/").map(encodeURIComponent).join("/");
        const response = await client.fetch(`${bucketUrl(config)}/${path}`, { method: "DELETE" });
        await response.arrayBuffer();
      }),
    );
  }
}

/** A fresh prefix per call: `<run>/<n>/`, so tests never see each other's keys. */
export function prefixMaker(label: string): () => string {
  const run = `${label}-${Date.now().toString(36)}-${crypto.getRandomValues(new Uint32Array(1))[0].toString(36)}`;
  let n = 0;
  return () => `${run}/t${++n}/`;
}

/** One request as a counting fetch saw it. */
export interface SeenRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Headers;
}

/**
 * A fetch that records every request and lets a test answer some of them
 * itself: `intercept` returns a Response, throws to fake a network error, or
 * returns undefined to pass the request on to `inner`; `send` passes it on
 * and hands back the real answer (to let a request land and lose its answer).
 */
export function recordingFetch(
  inner: typeof fetch = globalThis.fetch,
  intercept?: (request: SeenRequest, index: number, send: () => Promise<Response>) => Response | undefined | Promise<Response | undefined>,
): { fetch: typeof fetch; requests: SeenRequest[] } {
  const requests: SeenRequest[] = [];
  const wrapped = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const seen = { method: request.method, url: new URL(request.url), headers: request.headers };
    requests.push(seen);
    const answer = await intercept?.(seen, requests.length - 1, () => inner(request.clone()));
    if (answer) return answer;
    return inner(request);
  };
  return { fetch: wrapped as typeof fetch, requests };
}

/**
 * How many TCP connections this process holds open to `endpoint` (Linux
 * only: undefined elsewhere). Only this process's sockets count, found
 * through /proc/self/fd, so other test runs against the same server do not.
 */
export function openConnections(endpoint: string): number | undefined {
  if (!existsSync("/proc/self/net/tcp")) return undefined;
  const port = Number(new URL(endpoint).port || 80)
    .toString(16)
    .toUpperCase()
    .padStart(4, "0");
  const mine = new Set<string>();
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) mine.add(inode);
    } catch {
      // The descriptor closed while listing.
    }
  }
  let count = 0;
  for (const table of ["/proc/self/net/tcp", "/proc/self/net/tcp6"]) {
    if (!existsSync(table)) continue;
    for (const line of readFileSync(table, "utf8").split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // fields: sl, local, remote, state (01 = ESTABLISHED), ..., inode at 9
      if (fields.length > 9 && fields[2].endsWith(`:${port}`) && fields[3] === "01" && mine.has(fields[9])) count++;
    }
  }
  return count;
}
