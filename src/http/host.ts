/**
 * The one place both transports (REST and MCP) turn an authenticated request
 * into a pipeline call: storage for the caller's workspace, the per-call
 * context, the timeout, and the log hook.
 */
import type { LineHasher } from "../hash/types.ts";
import type { CallInfo, Pipeline } from "../pipeline/mod.ts";
import type { ObservationStore } from "../policy/types.ts";
import type { ToolResult } from "../result.ts";
import { guardStorage } from "../storage/guard.ts";
import type { Storage } from "../storage/types.ts";
import type { ToolContext, ToolLimits } from "../tools/types.ts";
import type { Principal } from "./auth.ts";
import { describeTool, type ToolDescriptor } from "./catalog.ts";

/** Which transport a call came in on. */
export type Transport = "rest" | "mcp";

/** What the `onCall` log hook learns about each finished call. Never the token or the arguments. */
export type HttpCallInfo = CallInfo & {
  readonly transport: Transport;
  readonly workspace: string;
  /** The principal's label (a grant label, a token-hash id, or `local`). */
  readonly principal: string;
};

/** What {@link createToolHost} needs. */
export interface ToolHostOptions {
  readonly pipeline: Pipeline;
  readonly storageFor: (workspace: string) => Storage | Promise<Storage>;
  readonly observations: ObservationStore;
  readonly hasher: LineHasher;
  readonly limits: ToolLimits;
  /** Per-call time limit in ms (0: none); undefined leaves the pipeline's own. */
  readonly callTimeoutMs?: number;
  readonly onCall?: (info: HttpCallInfo) => void;
}

/** The authenticated call path shared by REST and MCP. */
export interface ToolHost {
  /** Every tool, described once at start-up. */
  readonly tools: readonly ToolDescriptor[];
  has(name: string): boolean;
  /**
   * Run one call as `principal` in observation session `session` (already a
   * namespaced key). Rejects only when `storageFor` does; the tool path itself
   * never rejects.
   */
  call(
    transport: Transport,
    principal: Principal,
    session: string,
    name: string,
    args: unknown,
    signal?: AbortSignal,
  ): Promise<ToolResult>;
}

/** Build the shared call path. */
export function createToolHost(options: ToolHostOptions): ToolHost {
  const tools = options.pipeline.tools.map(describeTool);
  // Guard each provider once: the guard is where paths are normalised and contained,
  // and ToolContext promises tools an already guarded storage whatever storageFor returns.
  const guarded = new WeakMap<Storage, Storage>();
  const guard = (storage: Storage) => {
    let wrapped = guarded.get(storage);
    if (!wrapped) guarded.set(storage, (wrapped = guardStorage(storage)));
    return wrapped;
  };

  return {
    tools,
    has: (name) => options.pipeline.has(name),
    async call(transport, principal, session, name, args, signal) {
      const started = performance.now();
      const storage = guard(await options.storageFor(principal.workspace));
      const ctx: ToolContext = {
        storage,
        observations: options.observations,
        hasher: options.hasher,
        limits: options.limits,
        caller: { session, scopes: principal.scopes },
        signal,
      };
      const timeout = options.callTimeoutMs === undefined ? {} : { timeoutMs: options.callTimeoutMs };
      const result = await options.pipeline.call(name, args, ctx, timeout);
      if (options.onCall) {
        const info: HttpCallInfo = {
          transport,
          tool: name,
          isError: result.isError,
          ms: performance.now() - started,
          workspace: principal.workspace,
          principal: principal.label,
          ...(result.code ? { code: result.code } : {}),
        };
        try {
          options.onCall(info);
        } catch {
          // A log hook must not turn a finished call (perhaps a completed write) into a failure.
        }
      }
      return result;
    },
  };
}
