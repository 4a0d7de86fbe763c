/**
 * A ToolContext for tool tests: guarded storage (memory unless given), an
 * in-memory observation store, the JS hasher and DEFAULT_LIMITS (any of
 * which a test may override). Shared by every tool's tests.
 */
import type { Scope } from "../../src/scopes.ts";
import { jsHasher } from "../../src/hash/js.ts";
import type { LineHasher } from "../../src/hash/types.ts";
import { createMemoryObservationStore } from "../../src/policy/memory.ts";
import type { ObservationStore } from "../../src/policy/types.ts";
import { guardStorage } from "../../src/storage/guard.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import type { Storage } from "../../src/storage/types.ts";
import { DEFAULT_LIMITS, type ToolContext, type ToolLimits } from "../../src/tools/types.ts";

/** What {@link makeContext} may be told; everything has a default. */
export interface MakeContextOptions {
  /** Storage to use (wrapped in `guardStorage`); default a fresh memory storage. */
  readonly storage?: Storage;
  /** Observation store; default a fresh in-memory one. */
  readonly observations?: ObservationStore;
  /** Session id of the caller; default "test-session". */
  readonly session?: string;
  /** Caller scopes; default all of read, write and exec. */
  readonly scopes?: Iterable<Scope>;
  /** Limits merged over DEFAULT_LIMITS. */
  readonly limits?: Partial<ToolLimits>;
  /** Line hasher; default the JS reference. */
  readonly hasher?: LineHasher;
  readonly signal?: AbortSignal;
}

/** A fresh ToolContext over memory (or the given) storage. */
export function makeContext(options: MakeContextOptions = {}): ToolContext {
  return {
    storage: guardStorage(options.storage ?? createMemoryStorage()),
    observations: options.observations ?? createMemoryObservationStore(),
    hasher: options.hasher ?? jsHasher,
    limits: { ...DEFAULT_LIMITS, ...options.limits },
    caller: {
      session: options.session ?? "test-session",
      scopes: new Set(options.scopes ?? ["read", "write", "exec"]),
    },
    signal: options.signal,
  };
}

/** The same context as another session would see it (shared storage and observations). */
export function asSession(ctx: ToolContext, session: string): ToolContext {
  return { ...ctx, caller: { ...ctx.caller, session } };
}

const encoder = new TextEncoder();

/** Write files into storage (strings as UTF-8); returns path -> version. */
export async function seed(storage: Storage, files: Record<string, string | Uint8Array>): Promise<Record<string, string>> {
  const versions: Record<string, string> = {};
  for (const [path, content] of Object.entries(files)) {
    const bytes = typeof content === "string" ? encoder.encode(content) : content;
    versions[path] = (await storage.write(path, bytes)).version;
  }
  return versions;
}

/** A file's current content as UTF-8 text. */
export async function readText(storage: Storage, path: string): Promise<string> {
  return new TextDecoder().decode((await storage.read(path)).bytes);
}
