import type * as v from "valibot";
import type { LineHasher } from "../hash/types.ts";
import type { ObservationStore } from "../policy/types.ts";
import type { ToolResult } from "../result.ts";
import type { Scope } from "../scopes.ts";
import type { Storage } from "../storage/types.ts";

/** Bounds on what one tool call may read and print. All configurable. */
export interface ToolLimits {
  /** Largest file view/edit will load, in bytes (default 32 MiB). */
  readonly maxFileBytes: number;
  /** Most lines one view prints (default 2000). */
  readonly maxViewLines: number;
  /** Most text one result prints, in bytes (default 256 KiB). */
  readonly maxOutputBytes: number;
  /** Longest line shown before it is truncated with a marker (default 2000 chars). */
  readonly maxLineChars: number;
  /**
   * How long a content-proven edit keeps retrying a compare-and-swap that
   * other writers keep winning, after its first 24 rounds (default: no time
   * limit; rounds stop at 200, or at the call's timeout).
   */
  readonly casRetryMs?: number;
}

export const DEFAULT_LIMITS: ToolLimits = {
  maxFileBytes: 32 * 1024 * 1024,
  maxViewLines: 2000,
  maxOutputBytes: 256 * 1024,
  maxLineChars: 2000,
};

/** Who is calling and what they may do. */
export interface ToolCaller {
  /** Observation session key (X-Session-Id, MCP session, or the token). */
  readonly session: string;
  readonly scopes: ReadonlySet<Scope>;
}

/** Everything a tool needs to run; built per call by the host. */
export interface ToolContext {
  /** Already guarded: paths are normalised and contained before a provider sees them. */
  readonly storage: Storage;
  readonly observations: ObservationStore;
  readonly hasher: LineHasher;
  readonly limits: ToolLimits;
  readonly caller: ToolCaller;
  readonly signal?: AbortSignal;
  /**
   * Report how far a long call has got (files searched, output bytes of a
   * command); `progress` only grows. Present when the client asked for
   * progress (an MCP progressToken); the transport forwards each report.
   */
  readonly progress?: ProgressReporter;
}

/** See {@link ToolContext.progress}. */
export type ProgressReporter = (progress: number, message: string) => void;

/** MCP tool annotations (hints to clients). */
export interface ToolAnnotations {
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/**
 * A model-facing tool: a valibot schema for its arguments (the single source
 * of the JSON Schema clients see) and a run function that returns a result,
 * never throws for a tool failure.
 */
export interface ToolDef<TSchema extends v.GenericSchema = v.GenericSchema> {
  readonly name: string;
  readonly description: string;
  readonly schema: TSchema;
  readonly annotations: ToolAnnotations;
  /** Scope the caller needs. */
  readonly scope: Scope;
  run(args: v.InferOutput<TSchema>, ctx: ToolContext): Promise<ToolResult>;
}
