/**
 * The one place both transports (REST and MCP) turn an authenticated request
 * into a pipeline call: storage for the caller's workspace, the per-call
 * context, the timeout, and the log hook.
 */
import type { LineHasher } from "../hash/types.ts";
import type { CallInfo, Pipeline } from "../pipeline/mod.ts";
import type { ObservationStore } from "../policy/types.ts";
import type { ToolResult } from "../result.ts";
import { auditEntryOf, createRecorder, defersRecording, type HistoryStore } from "../history/mod.ts";
import { guardStorage } from "../storage/guard.ts";
import type { Storage } from "../storage/types.ts";
import type { ProgressReporter, ToolContext, ToolLimits } from "../tools/types.ts";
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
  /** The history of a workspace, when calls are recorded (audit log, versions, revert). */
  readonly historyFor?: (workspace: string) => HistoryStore | undefined;
  /** Told when recording a finished call fails (the call's own result stands). */
  readonly onError?: (error: unknown) => void;
}

/** A file a tool call changed: its workspace and path (as results name it). */
export interface FileChange {
  readonly workspace: string;
  readonly path: string;
}

/** The authenticated call path shared by REST and MCP. */
export interface ToolHost {
  /** Every tool, described once at start-up. */
  readonly tools: readonly ToolDescriptor[];
  has(name: string): boolean;
  /** A workspace's storage as tools see it (guarded). */
  storageOf(workspace: string): Promise<Storage>;
  /** A workspace's history, when calls are recorded. */
  historyOf(workspace: string): HistoryStore | undefined;
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
    progress?: ProgressReporter,
  ): Promise<ToolResult>;
  /**
   * Call `listener` after every successful call of a write-scope tool that
   * names the file it changed (write, edit, batch_edit), on any transport and
   * session. Returns the unsubscriber.
   */
  onFileChange(listener: (change: FileChange) => void): () => void;
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

  const writers = new Set(tools.filter((t) => t.scope === "write").map((t) => t.name));
  const changeListeners = new Set<(change: FileChange) => void>();
  const announce = (change: FileChange) => {
    for (const listener of changeListeners) {
      try {
        listener(change);
      } catch {
        // A subscriber's failure must not turn a completed write into a failed call.
      }
    }
  };

  return {
    tools,
    has: (name) => options.pipeline.has(name),
    storageOf: async (workspace) => guard(await options.storageFor(workspace)),
    historyOf: (workspace) => options.historyFor?.(workspace),
    onFileChange(listener) {
      changeListeners.add(listener);
      return () => void changeListeners.delete(listener);
    },
    async call(transport, principal, session, name, args, signal, progress) {
      const started = performance.now();
      // The history first, in the same turn as the storage: a hosted workspace hands both out behind
      // the same fence then, so a DELETE fences both (./hosting/fences.ts).
      const history = options.historyFor?.(principal.workspace);
      const guardedStorage = guard(await options.storageFor(principal.workspace));
      const recorder = history ? createRecorder(guardedStorage, history) : undefined;
      const ctx: ToolContext = {
        storage: recorder?.storage ?? guardedStorage,
        observations: options.observations,
        hasher: options.hasher,
        limits: options.limits,
        caller: { session, scopes: principal.scopes },
        signal,
        ...(progress ? { progress } : {}),
      };
      const timeout = options.callTimeoutMs === undefined ? {} : { timeoutMs: options.callTimeoutMs };
      const result = await options.pipeline.call(name, args, ctx, timeout);
      if (!result.isError && writers.has(name) && result.facts?.path !== undefined && result.facts.version !== undefined) {
        announce({ workspace: principal.workspace, path: result.facts.path });
      }
      if (history && recorder) {
        const finished = {
          principal: principal.label,
          session: sessionLabel(session),
          tool: name,
          args,
          code: result.code,
          result: modelText(result),
          ms: performance.now() - started,
          time: new Date(),
        };
        const record = async (store: HistoryStore) => {
          const changes = await recorder.changes();
          await store.append(auditEntryOf({ ...finished, changes, bytes: recorder.bytesWritten() }));
        };
        // The call has finished (a write may have landed): a failure to record it is the operator's, not the model's.
        if (defersRecording(history)) await history.later(record);
        else await record(history).catch((error: unknown) => options.onError?.(error));
      }
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

/** What the model reads of a result: the content blocks, then the notices (as MCP sends them). */
function modelText(result: ToolResult): string {
  return [...result.content.map((b) => b.text), ...(result.notices ?? []).map((n) => n.text)].join("\n");
}

/** The client's own session id within a namespaced session key (its last segment). */
export function sessionLabel(key: string): string {
  const last = key.slice(key.lastIndexOf("/") + 1);
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}
