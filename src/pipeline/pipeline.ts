/**
 * The one path every tool call takes, whatever the transport (REST, MCP, CLI):
 *
 *   look up -> scope check -> validate -> pre-execute -> run -> post-execute -> render
 *
 * Every outcome is a {@link ToolResult}; nothing a tool, a listener or the
 * model does makes `call` reject.
 *
 * The scope check comes before validation: a model should not spend a turn
 * fixing the arguments of a call its token can never make.
 * A call refused before the tool runs (unknown tool, scope, bad arguments,
 * pre-execute denial) does not reach the post-execute listeners: they look at
 * what a tool did, and no tool did anything.
 */
import { isCodedError } from "../errors.ts";
import { fail, type ToolResult } from "../result.ts";
import type { ToolCaller, ToolContext, ToolDef } from "../tools/types.ts";
import {
  createListenerList,
  errorMessage,
  isResult,
  runPostExecute,
  runPreExecute,
  type ListenerOptions,
  type PostExecuteListener,
  type PreExecuteListener,
  type ToolCall,
} from "./listeners.ts";
import { renderResult } from "./render.ts";
import { closestName } from "./suggest.ts";
import { validateArgs } from "./validate.ts";

/** What the `onCall` hook learns about each finished call (one log line's worth). */
export type CallInfo = {
  /** The tool name as requested (also for unknown tools). */
  readonly tool: string;
  /** Wall time of the whole call, in milliseconds. */
  readonly ms: number;
} & Pick<ToolResult, "isError" | "code">;

/** Options for {@link createPipeline}. */
export interface PipelineOptions {
  /** Default time limit per call in ms (pre-execute through post-execute); none if unset or 0. */
  readonly timeoutMs?: number;
  /** Called once per call after the result is final. Errors it throws are ignored. */
  readonly onCall?: (info: CallInfo) => void;
  /** Most argument problems listed in one INVALID_ARGUMENT result (default 10). */
  readonly maxProblems?: number;
}

/** Per-call options for {@link Pipeline.call}. */
export interface CallOptions {
  /** Time limit for this call in ms, overriding the pipeline's; 0 means none. */
  readonly timeoutMs?: number;
}

/** A set of tools behind the one call path. */
export interface Pipeline {
  /** The tools, in the order given. */
  readonly tools: readonly ToolDef[];
  /** Whether a tool of that name exists (the HTTP layer answers 404 when not). */
  has(name: string): boolean;
  get(name: string): ToolDef | undefined;
  /** Run one call through every stage. Never rejects. */
  call(name: string, rawArgs: unknown, ctx: ToolContext, options?: CallOptions): Promise<ToolResult>;
  /** Register a pre-execute listener; returns its remover. */
  onPreExecute(listener: PreExecuteListener, options?: ListenerOptions): () => void;
  /** Register a post-execute listener; returns its remover. */
  onPostExecute(listener: PostExecuteListener, options?: ListenerOptions): () => void;
}

/** Build the pipeline over `tools` (names must be unique). */
export function createPipeline(tools: readonly ToolDef[], options: PipelineOptions = {}): Pipeline {
  const byName = new Map<string, ToolDef>();
  for (const tool of tools) {
    if (byName.has(tool.name)) throw new Error(`duplicate tool name: ${tool.name}`);
    byName.set(tool.name, tool);
  }
  const list = Object.freeze([...tools]);
  const pre = createListenerList<PreExecuteListener>();
  const post = createListenerList<PostExecuteListener>();

  async function dispatch(name: string, rawArgs: unknown, ctx: ToolContext, callOptions: CallOptions): Promise<ToolResult> {
    const tool = byName.get(name);
    if (!tool) return unknownTool(name, list);
    const refusal = scopeRefusal(tool, ctx.caller, list);
    if (refusal) return refusal;
    const validation = validateArgs(tool, rawArgs, { maxProblems: options.maxProblems });
    if (!validation.ok) return validation.result;

    const timeoutMs = callOptions.timeoutMs ?? options.timeoutMs ?? 0;
    const controller = new AbortController();
    const unlink = follow(ctx.signal, controller);
    const call: ToolCall = { tool, name, args: validation.value, ctx: { ...ctx, signal: controller.signal } };
    const progress: Progress = { stage: "pre-execute" };
    const work = runStages(call, progress);
    try {
      if (!(timeoutMs > 0)) return await work;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const expired = new Promise<ToolResult>((resolve) => {
        timer = setTimeout(() => {
          controller.abort(new DOMException(`tool call timed out after ${timeoutMs} ms`, "TimeoutError"));
          resolve(timeoutResult(tool, timeoutMs, progress.stage));
        }, timeoutMs);
      });
      try {
        return await Promise.race([work, expired]);
      } finally {
        clearTimeout(timer);
      }
    } finally {
      unlink();
    }
  }

  async function runStages(call: ToolCall, progress: Progress): Promise<ToolResult> {
    const verdict = await runPreExecute(pre.snapshot(), call);
    if (!verdict.allow) return fail(verdict.code ?? "FORBIDDEN", verdict.reason);
    progress.stage = "execute";
    const result = await execute(call);
    progress.stage = "post-execute";
    return runPostExecute(post.snapshot(), call, result);
  }

  return {
    tools: list,
    has: (name) => byName.has(name),
    get: (name) => byName.get(name),
    async call(name, rawArgs, ctx, callOptions = {}) {
      const started = performance.now();
      let result: ToolResult;
      try {
        result = renderResult(await dispatch(name, rawArgs, ctx, callOptions));
      } catch (error) {
        // Only a pipeline bug (or a schema whose own code throws) lands here.
        result = renderResult(fail("INTERNAL_ERROR", `Internal error while calling \`${name}\`: ${errorMessage(error)}`));
      }
      if (options.onCall) {
        const info: CallInfo = { tool: name, isError: result.isError, ms: performance.now() - started };
        try {
          options.onCall(result.code ? { ...info, code: result.code } : info);
        } catch {
          // A logging hook must not turn a finished call (perhaps a completed write) into a failure.
        }
      }
      return result;
    },
    onPreExecute: (listener, listenerOptions) => pre.add(listener, listenerOptions),
    onPostExecute: (listener, listenerOptions) => post.add(listener, listenerOptions),
  };
}

interface Progress {
  stage: "pre-execute" | "execute" | "post-execute";
}

/** Run the tool itself; a throw becomes a result (a CodedError keeps its code and message). */
async function execute(call: ToolCall): Promise<ToolResult> {
  try {
    const result: unknown = await call.tool.run(call.args, call.ctx);
    if (isResult(result)) return result;
    return fail("INTERNAL_ERROR", `Internal error: tool \`${call.name}\` returned no result. This is a server fault.`);
  } catch (error) {
    if (isCodedError(error)) return fail(error.code, error.message);
    return fail(
      "INTERNAL_ERROR",
      `Internal error in tool \`${call.name}\`: ${errorMessage(error)}. This is a server fault, not a problem with your arguments.`,
    );
  }
}

/** Abort `controller` when `signal` does; returns the unsubscriber. */
function follow(signal: AbortSignal | undefined, controller: AbortController): () => void {
  if (!signal) return () => {};
  if (signal.aborted) {
    controller.abort(signal.reason);
    return () => {};
  }
  const onAbort = () => controller.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}

function unknownTool(name: string, tools: readonly ToolDef[]): ToolResult {
  const names = tools.map((t) => t.name);
  const guess = closestName(name, names);
  const hint = guess ? ` Did you mean \`${guess}\`?` : "";
  const available = names.length ? names.map((n) => `\`${n}\``).join(", ") : "none";
  return fail("INVALID_ARGUMENT", `Unknown tool \`${name}\`.${hint} Available tools: ${available}.`);
}

/** The marker the shell tools also print; the rule engine and harnesses recognise it. */
const READ_ONLY_MARKER = "[sandbox: file access denied under read-only mode]";

function scopeRefusal(tool: ToolDef, caller: ToolCaller, tools: readonly ToolDef[]): ToolResult | undefined {
  if (caller.scopes.has(tool.scope)) return undefined;
  const usable = tools.filter((t) => caller.scopes.has(t.scope)).map((t) => `\`${t.name}\``);
  const instead = usable.length ? ` Tools this token can use: ${usable.join(", ")}.` : "";
  const ask = ` To ${tool.scope === "read" ? "read files" : tool.scope === "write" ? "change files" : "run commands"}, the operator must issue a token with the ${tool.scope} scope.`;
  if (tool.scope === "write") {
    return fail(
      "FS_ACCESS_DENIED",
      `${READ_ONLY_MARKER}\nThis token is read-only: \`${tool.name}\` changes files and needs the write scope, so nothing was changed.${instead}${ask}`,
    );
  }
  return fail("FORBIDDEN", `This token lacks the ${tool.scope} scope, so \`${tool.name}\` cannot run.${instead}${ask}`);
}

function timeoutResult(tool: ToolDef, ms: number, stage: Progress["stage"]): ToolResult {
  const head = `\`${tool.name}\` timed out after ${ms} ms and was stopped.`;
  const changes = tool.scope !== "read";
  let status: string;
  if (stage === "pre-execute") {
    status = "It timed out in the server's checks before the tool ran, so nothing was done; retry the same call.";
  } else if (stage === "execute") {
    status = changes
      ? "It may have partly or fully taken effect before it was stopped: check the current state (e.g. view the file) before retrying, then retry with a narrower request (fewer operations, a smaller file range, a shorter command)."
      : "Retry with a narrower request: a smaller line range, a more specific path or pattern, or less output.";
  } else {
    status = changes
      ? "The tool finished (any change it made has happened) but checking its result did not: view the affected file to confirm the outcome before doing anything else."
      : "The tool finished but checking its result did not; retry the call, narrower if you can.";
  }
  return fail("TIMEOUT", `${head} ${status}`);
}
