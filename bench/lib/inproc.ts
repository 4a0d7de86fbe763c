/**
 * The tools in this process exactly as `toolwarden serve` runs them (the
 * same pipeline with its loud-failure rules, guarded local storage, the
 * WASM hasher, memory observations), minus HTTP: the "in-process" column.
 */
import { buildPipeline } from "../../src/cli/toolset.ts";
import { loadHasher } from "../../src/cli/hasher.ts";
import { openWorkspace } from "../../src/cli/workspaces.ts";
import type { HttpLimits } from "../../src/http/mod.ts";
import type { LineHasher } from "../../src/hash/types.ts";
import { createMemoryObservationStore } from "../../src/policy/memory.ts";
import type { ToolResult } from "../../src/result.ts";
import type { Storage } from "../../src/storage/types.ts";
import { guardStorage } from "../../src/storage/guard.ts";
import { DEFAULT_LIMITS, type ToolContext } from "../../src/tools/types.ts";

/** Tool calls in-process against one workspace. */
export interface InProcess {
  call(tool: string, args: Record<string, unknown>, session?: string): Promise<ToolResult>;
  readonly hasher: LineHasher;
}

/** Options of {@link inProcess}. */
export interface InProcessOptions {
  /** Limits as a config file would give them. */
  readonly limits?: HttpLimits;
  /** Storage to use instead of the local directory (e.g. memory). */
  readonly storage?: Storage;
}

/** Serve the directory `root` in-process. */
export async function inProcess(root: string, options: InProcessOptions = {}): Promise<InProcess> {
  const limits = options.limits ?? {};
  const pipeline = buildPipeline({ root, limits, shell: { enabled: false }, rules: {} }, root);
  const storage = options.storage ? guardStorage(options.storage) : (await openWorkspace(root, { env: process.env })).storage;
  const hasher = await loadHasher();
  const observations = createMemoryObservationStore();
  const toolLimits = { ...DEFAULT_LIMITS, ...limits };
  return {
    hasher,
    call(tool, args, session = "bench") {
      const ctx: ToolContext = {
        storage,
        observations,
        hasher,
        limits: toolLimits,
        caller: { session, scopes: new Set(["read", "write"]) },
      };
      return pipeline.call(tool, args, ctx);
    },
  };
}

/** The text of a result, or a thrown error when the call failed (a benchmark must not time failures). */
export function expectOk(result: ToolResult, what: string): string {
  const text = result.content.map((c) => c.text).join("\n");
  if (result.isError) throw new Error(`${what} failed (${result.code}): ${text.slice(0, 500)}`);
  return text;
}
