/**
 * The storage registry: the one place a {@link StorageSpec} becomes a
 * provider. Each kind has one entry that opens it; an entry point (the CLI,
 * the Deno entry, the Worker) hands the registry the kinds its runtime has
 * (`local` only where there is a file system, `r2` only on a Worker).
 *
 * Adding a provider: its module under `src/storage/<name>/`, one entry here
 * (or in the entry point's registry when it needs a runtime's API), and one
 * run of `test/helpers/storage-conformance.ts` against it.
 */
import { CodedError } from "../errors.ts";
import { guardStorage, RESERVED_SEGMENT } from "./guard.ts";
import { createMemoryStorage } from "./memory/mod.ts";
import { createR2Storage, probeR2Conditions, type R2BucketLike } from "./r2/mod.ts";
import { connectS3Bucket, type S3Bucket, s3ConfigFromSpec } from "./s3/mod.ts";
import { resolveS3Config } from "./s3/config.ts";
import { formatStorageSpec, parseStorageSpec, type StorageKind, type StorageSpec } from "./spec.ts";
import type { Storage } from "./types.ts";

/** One opened workspace storage. */
export interface OpenedStorage {
  readonly kind: StorageKind;
  /** The guarded provider. */
  readonly storage: Storage;
  /** The spec in its canonical text (a directory: its real path): equal on every instance serving the same files. */
  readonly name: string;
  /** Where the bytes are, for the banner and logs (an endpoint and bucket, never a credential). */
  readonly where: string;
  /** The real path of a local directory (the shell runs there); absent for every other kind. */
  readonly localRoot?: string;
  /**
   * Where the workspace's audit log and history live, when not in a local
   * state directory: an unguarded provider at the reserved prefix
   * (`<prefix>/.toolwarden/history/`) of an object store, shared by every
   * instance on it, or a memory sandbox's own memory. Absent for `local`.
   */
  readonly history?: Storage;
}

/** What opening may need besides the spec. */
export interface OpenContext {
  /** Environment variables (S3 endpoint and keys). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The fetch S3 requests go through. Default: the global fetch. */
  readonly fetch?: typeof fetch;
  /** The Worker's R2 binding, for `r2:`. */
  readonly r2?: R2BucketLike;
  /** Base directory of relative directories (a config file's folder). */
  readonly cwd?: string;
  /** Local only: remove temp files a crashed write left behind (the server does, once at start-up). */
  readonly sweep?: boolean;
}

/** How one kind of storage is opened. */
export interface StorageProvider<K extends StorageKind = StorageKind> {
  readonly kind: K;
  open(spec: Extract<StorageSpec, { kind: K }>, context: OpenContext, registry: StorageRegistry): Promise<OpenedStorage>;
}

/** The providers an entry point offers, by kind. */
export type StorageRegistry = { readonly [K in StorageKind]?: StorageProvider<K> };

/** A spec that cannot be opened; `message` is one line naming the spec (and the endpoint) and the reason. */
export class StorageOpenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StorageOpenError";
  }
}

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, " ");

/** Open a spec (text or parsed) with the registry's provider for its kind. Rejects with {@link StorageOpenError}. */
export async function openStorage(registry: StorageRegistry, spec: string | StorageSpec, context: OpenContext): Promise<OpenedStorage> {
  let parsed: StorageSpec;
  try {
    parsed = typeof spec === "string" ? parseStorageSpec(spec) : spec;
  } catch (error) {
    throw new StorageOpenError(oneLine(error instanceof Error ? error.message : String(error)), { cause: error });
  }
  const provider = registry[parsed.kind] as StorageProvider | undefined;
  const text = formatStorageSpec(parsed);
  if (!provider) {
    const offered = Object.keys(registry).join(", ");
    throw new StorageOpenError(`storage ${text}: ${parsed.kind} storage is not available here (this entry offers ${offered})`);
  }
  try {
    return await provider.open(parsed as never, context, registry);
  } catch (error) {
    if (error instanceof StorageOpenError) throw error;
    const reason = oneLine(error instanceof Error ? error.message : String(error));
    throw new StorageOpenError(`storage ${text}: ${reason}`, { cause: error });
  }
}

/** The history's place below a workspace's prefix, which no tool call reaches (see ./guard.ts). */
const HISTORY_PREFIX = `${RESERVED_SEGMENT}/history`;

/** Copy every file of `from` into `to` (seeding a sandbox). */
async function copyFiles(from: Storage, to: Storage): Promise<number> {
  const listing = await from.list("", { recursive: true });
  let copied = 0;
  for (const entry of listing.entries) {
    if (entry.kind !== "file") continue;
    const { bytes } = await from.read(entry.path);
    await to.write(entry.path, bytes);
    copied++;
  }
  return copied;
}

/** `memory:` and `memory:DIR` (the directory is opened with the registry's `local` entry and copied once). */
export const memoryProvider: StorageProvider<"memory"> = {
  kind: "memory",
  async open(spec, context, registry) {
    const storage = guardStorage(createMemoryStorage());
    const history = createMemoryStorage();
    if (spec.seed === undefined) return { kind: "memory", storage, name: "memory:", where: "process memory (empty at start)", history };
    if (spec.seed === "") throw new CodedError("INVALID_ARGUMENT", "memory: takes a directory to copy after the colon, or nothing");
    const source = await openStorage(registry, { kind: "local", dir: spec.seed }, { ...context, sweep: false });
    const copied = await copyFiles(source.storage, storage);
    return {
      kind: "memory",
      storage,
      name: `memory:${source.name}`,
      where: `process memory (seeded with ${copied} file${copied === 1 ? "" : "s"} from ${source.name}; changes are not written back)`,
      history,
    };
  },
};

/** Refuse a workspace prefix inside some workspace's reserved folder: its tools would read and forge that history. */
function refuseReservedPrefix(prefix: string): void {
  if (prefix.split("/").includes(RESERVED_SEGMENT)) {
    throw new CodedError(
      "INVALID_ARGUMENT",
      `the prefix ${JSON.stringify(prefix)} is inside ${RESERVED_SEGMENT}/, where a workspace keeps its history; choose a prefix outside it`,
    );
  }
}

/** `s3://BUCKET[/PREFIX]`: endpoint and keys from the environment; the start-up probe runs before it is handed out. */
export const s3Provider: StorageProvider<"s3"> = {
  kind: "s3",
  async open(spec, context) {
    refuseReservedPrefix(spec.prefix);
    const config = { ...s3ConfigFromSpec(spec.bucket, spec.prefix, context.env), ...(context.fetch ? { fetch: context.fetch } : {}) };
    const resolved = resolveS3Config(config);
    const where = `${resolved.endpoint.href.replace(/\/+$/, "")} bucket ${resolved.bucket}${resolved.prefix ? ` prefix ${resolved.prefix}` : ""}`;
    let bucket: S3Bucket;
    try {
      bucket = await connectS3Bucket(config);
    } catch (error) {
      throw new StorageOpenError(`storage ${formatStorageSpec(spec)} at ${where}: ${s3StartupReason(error, resolved.bucket)}`, { cause: error });
    }
    return { kind: "s3", storage: guardStorage(bucket.storage("")), name: formatStorageSpec(spec), where, history: bucket.storage(HISTORY_PREFIX) };
  },
};

/** Why an S3 bucket could not be opened, in words an operator acts on (the probe's own verdicts pass as they are). */
function s3StartupReason(error: unknown, bucket: string): string {
  const text = oneLine(error instanceof Error ? error.message : String(error));
  const response = error instanceof Error ? (error.cause as { status?: unknown; s3Code?: unknown } | undefined) : undefined;
  const detail = response && typeof response.status === "number" ? `HTTP ${response.status}${response.s3Code ? ` ${String(response.s3Code)}` : ""}` : "";
  if (response?.s3Code === "NoSuchBucket") return `bucket ${bucket} does not exist (${detail}); create it or fix the name`;
  if (response?.status === 403 || response?.status === 401) {
    return `the server refused the credentials (${detail}); check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY)`;
  }
  if (/network error/.test(text)) return `cannot reach the endpoint (${text.replace(/^.*network error[^:]*: /, "")})`;
  return text.replace(/^S3 storage at .*? cannot be used: /, "cannot be used: ");
}

/** `r2:[PREFIX]`: the Worker's R2 binding, probed for conditional puts. */
export const r2Provider: StorageProvider<"r2"> = {
  kind: "r2",
  async open(spec, context) {
    if (!context.r2) throw new CodedError("INVALID_ARGUMENT", "r2: needs the Worker's R2 binding");
    refuseReservedPrefix(spec.prefix);
    const prefix = spec.prefix === "" ? "" : `${spec.prefix}/`;
    await probeR2Conditions(context.r2, prefix);
    return {
      kind: "r2",
      storage: guardStorage(createR2Storage(context.r2, prefix)),
      name: formatStorageSpec(spec),
      where: "R2 binding",
      history: createR2Storage(context.r2, `${prefix}${HISTORY_PREFIX}/`),
    };
  },
};

/** The providers every runtime has (no file system needed). */
export const NEUTRAL_PROVIDERS = { memory: memoryProvider, s3: s3Provider, r2: r2Provider } as const satisfies StorageRegistry;
