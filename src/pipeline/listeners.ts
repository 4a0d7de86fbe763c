/**
 * Pre- and post-execute listeners: ordered waterfalls around every tool call.
 *
 * Order: each listener has an `order` (default 0); lower runs first, i.e.
 * outermost. Equal orders run in registration order. A listener registered
 * during a call does not join that call; a listener removed during a call is
 * skipped if the call has not reached it yet, and nothing else changes.
 *
 * Pre-execute (`(call, next) => allow() | deny(reason, code?)`): a guard
 * says no with `deny`; `next()` asks the listeners after it. Guards only add
 * restrictions: returning `allow()` without calling `next()` still runs the
 * later listeners, and `allow()` after `next()` came back denied keeps the
 * denial — so registration order can never let one listener skip a later
 * guard (e.g. the shell guard). A listener may replace a denial with another
 * denial (to reword it).
 *
 * Post-execute (`(call, result, next) => result`): `next(result?)` hands a
 * result (the one received, or an enriched one) to the later listeners and
 * resolves to what they make of it; a listener may enrich before `next` (the
 * later listeners see it) or after (wrapping them). Returning without calling
 * `next` ends the chain: later listeners do not run. That is how a listener
 * blocks: `return blockResult(result, "why")`. The rule engine (src/rules)
 * sits below this layer, renders its own block text and is wired in as a
 * post-execute listener by the host; it should register with a low `order`
 * so that no other listener can end the chain before it runs.
 *
 * A listener that throws (or returns something that is not a decision /
 * result) turns the call into an INTERNAL_ERROR result naming it; it never
 * crashes the server.
 */
import type { ErrorCode } from "../errors.ts";
import type { Notice, ToolResult } from "../result.ts";
import type { ToolContext, ToolDef } from "../tools/types.ts";

/** What every listener is told about the call in flight. */
export interface ToolCall {
  readonly tool: ToolDef;
  /** The tool name the caller used (same as `tool.name`). */
  readonly name: string;
  /** The arguments after validation (valibot's output: defaults applied, transforms run). */
  readonly args: unknown;
  /** The call's context; its `signal` aborts on timeout or when the caller's own signal aborts. */
  readonly ctx: ToolContext;
}

/** A pre-execute verdict. Build with {@link allow} and {@link deny}. */
export type PreDecision = { readonly allow: true } | { readonly allow: false; readonly reason: string; readonly code?: ErrorCode };

/** Decides whether a call may run. See the module comment for the waterfall rules. */
export type PreExecuteListener = (call: ToolCall, next: () => Promise<PreDecision>) => PreDecision | Promise<PreDecision>;

/** Sees (and may enrich or block) a tool's result. See the module comment for the waterfall rules. */
export type PostExecuteListener = (call: ToolCall, result: ToolResult, next: (result?: ToolResult) => Promise<ToolResult>) => ToolResult | Promise<ToolResult>;

/** How a listener is registered. */
export interface ListenerOptions {
  /** Shown in the INTERNAL_ERROR text if the listener throws; defaults to the function's own name. */
  readonly name?: string;
  /** Lower runs first (outermost); ties keep registration order. Default 0. */
  readonly order?: number;
}

const ALLOW: PreDecision = Object.freeze({ allow: true });

/** The "no objection" pre-execute verdict. */
export function allow(): PreDecision {
  return ALLOW;
}

/** Refuse the call; `reason` is what the model reads. `code` defaults to FORBIDDEN. */
export function deny(reason: string, code: ErrorCode = "FORBIDDEN"): PreDecision {
  return { allow: false, reason, code };
}

/**
 * The result of blocking `original`: an error whose content starts with
 * `explanation` and then carries the original output unchanged (same blocks,
 * same notices), so the model sees both why and what the tool said.
 */
export function blockResult(original: ToolResult, explanation: string, code: ErrorCode = "RULE_BLOCKED"): ToolResult {
  const blocked: ToolResult = {
    isError: true,
    code,
    content: [{ type: "text", text: explanation }, ...original.content],
  };
  return original.notices?.length ? { ...blocked, notices: original.notices } : blocked;
}

/** `result` with `notices` appended after any it already has. */
export function addNotices(result: ToolResult, ...notices: Notice[]): ToolResult {
  if (notices.length === 0) return result;
  return { ...result, notices: [...(result.notices ?? []), ...notices] };
}

// --- registry ---------------------------------------------------------------

/** One registered listener. */
export interface ListenerEntry<L> {
  readonly listener: L;
  readonly name?: string;
  readonly order: number;
  /** Set by the remover; a call in flight checks it before running the listener. */
  removed: boolean;
}

/** An ordered set of listeners with removal handles. */
export interface ListenerList<L> {
  /** Register; the returned function removes it (calling it again does nothing). */
  add(listener: L, options?: ListenerOptions): () => void;
  /** The listeners in run order, as of now; later additions/removals make a new array. */
  snapshot(): readonly ListenerEntry<L>[];
}

/** A new, empty {@link ListenerList}. */
export function createListenerList<L extends (...args: never[]) => unknown>(): ListenerList<L> {
  // Replaced, never mutated, so a call iterating a snapshot is unaffected by (un)registration.
  let entries: readonly ListenerEntry<L>[] = [];
  return {
    add(listener, options = {}) {
      if (typeof listener !== "function") throw new TypeError("a listener must be a function");
      const entry: ListenerEntry<L> = {
        listener,
        name: options.name ?? (listener.name || undefined),
        order: options.order ?? 0,
        removed: false,
      };
      // Stable insertion: after every entry whose order is <= this one.
      const at = entries.findIndex((e) => e.order > entry.order);
      entries = at === -1 ? [...entries, entry] : [...entries.slice(0, at), entry, ...entries.slice(at)];
      return () => {
        if (entry.removed) return;
        entry.removed = true;
        entries = entries.filter((e) => e !== entry);
      };
    },
    snapshot: () => entries,
  };
}

// --- running the chains -----------------------------------------------------

/** Run the pre-execute waterfall; the final verdict. Never rejects. */
export async function runPreExecute(entries: readonly ListenerEntry<PreExecuteListener>[], call: ToolCall): Promise<PreDecision> {
  async function from(index: number): Promise<PreDecision> {
    let i = index;
    while (i < entries.length && entries[i].removed) i++;
    if (i >= entries.length) return ALLOW;
    const entry = entries[i];
    let downstream: Promise<PreDecision> | undefined;
    const next = () => (downstream ??= from(i + 1));
    let decision: unknown;
    try {
      decision = await entry.listener(call, next);
    } catch (error) {
      return internalDenial(entry, call, `threw: ${errorMessage(error)}`);
    }
    if (!isDecision(decision)) {
      return internalDenial(entry, call, `returned ${describe(decision)} instead of allow() or deny(reason)`);
    }
    // "allow" means "no objection from me": the rest of the chain still decides.
    return decision.allow ? next() : decision;
  }
  return from(0);
}

/** Run the post-execute waterfall over `result`; what comes out the top. Never rejects. */
export async function runPostExecute(entries: readonly ListenerEntry<PostExecuteListener>[], call: ToolCall, result: ToolResult): Promise<ToolResult> {
  async function from(index: number, current: ToolResult): Promise<ToolResult> {
    let i = index;
    while (i < entries.length && entries[i].removed) i++;
    if (i >= entries.length) return current;
    const entry = entries[i];
    let downstream: Promise<ToolResult> | undefined;
    let settled: ToolResult | undefined;
    const next = (handed?: ToolResult): Promise<ToolResult> => {
      if (handed !== undefined && !isResult(handed)) {
        return Promise.reject(new TypeError(`next() was given ${describe(handed)} instead of a tool result`));
      }
      // A second next() gets the first answer: the later listeners run once per call.
      return (downstream ??= from(i + 1, handed ?? current).then((r) => (settled = r)));
    };
    let out: unknown;
    try {
      out = await entry.listener(call, current, next);
    } catch (error) {
      return internalFailure(entry, call, settled ?? current, `threw: ${errorMessage(error)}`);
    }
    if (!isResult(out)) {
      return internalFailure(entry, call, settled ?? current, `returned ${describe(out)} instead of a tool result`);
    }
    return out;
  }
  return from(0, result);
}

function internalDenial(entry: ListenerEntry<unknown>, call: ToolCall, what: string): PreDecision {
  return deny(
    `Internal error: pre-execute ${label(entry)} ${what}. \`${call.name}\` did not run. ` +
      "This is a server fault, not a problem with your arguments; retrying may not help.",
    "INTERNAL_ERROR",
  );
}

function internalFailure(entry: ListenerEntry<unknown>, call: ToolCall, result: ToolResult, what: string): ToolResult {
  const ran = `\`${call.name}\` did run, so any change it made has happened; its output follows.`;
  return blockResult(result, `Internal error: post-execute ${label(entry)} ${what}. ${ran}`, "INTERNAL_ERROR");
}

function label(entry: ListenerEntry<unknown>): string {
  return entry.name ? `listener \`${entry.name}\`` : "listener (unnamed)";
}

function isDecision(value: unknown): value is PreDecision {
  if (typeof value !== "object" || value === null) return false;
  const d = value as { allow?: unknown; reason?: unknown };
  return d.allow === true || (d.allow === false && typeof d.reason === "string");
}

/** Loose structural check: enough for the pipeline to render it. */
export function isResult(value: unknown): value is ToolResult {
  if (typeof value !== "object" || value === null) return false;
  const r = value as { isError?: unknown; content?: unknown };
  return typeof r.isError === "boolean" && Array.isArray(r.content);
}

/** An error's message, or the thrown value as text. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

function describe(value: unknown): string {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  return typeof value === "object" ? "an object of the wrong shape" : `a ${typeof value}`;
}
