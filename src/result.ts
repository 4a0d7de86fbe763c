import type { ErrorCode } from "./errors.ts";

/** One block of model-visible content. Text only for now (MCP-compatible shape). */
export interface TextBlock {
  readonly type: "text";
  readonly text: string;
}

export type ContentBlock = TextBlock;

/** Where a notice came from, so UIs can attribute it. */
export interface NoticeSource {
  readonly kind: "plugin" | "tool" | "server";
  readonly plugin?: string;
  readonly summary?: string;
}

/** A message the model sees after a tool result (e.g. a loud-failure context rule). */
export interface Notice {
  readonly text: string;
  readonly source: NoticeSource;
}

/**
 * What every tool call returns, whatever the transport. Tool failures are
 * results (`isError: true` plus a stable `code`), not exceptions, because the
 * model must read them.
 */
export type ToolResult = ToolSuccess | ToolFailure;

/** A changed range of a file: old and new spans (1-based starts) and the fresh ids of the new span's lines. */
export interface ChangedRange {
  readonly oldStart: number;
  readonly oldCount: number;
  readonly newStart: number;
  readonly newCount: number;
  /** `N:hh` of each added line, in order; shorter than `newCount` only when the change was too large to diff or the list was capped (`complete: false`). */
  readonly ids: readonly string[];
  readonly complete: boolean;
}

/**
 * What a result says, for programs (MCP `structuredContent`), so a harness
 * needs no text parsing. Absent fields do not apply to the result.
 */
export interface ResultFacts {
  /** The path as the model should name it. */
  readonly path?: string;
  /** The file's version after the call (what a write's compare-and-swap is on). */
  readonly version?: string;
  /** A file view: the lines shown and the file's line count. */
  readonly lines?: { readonly from: number; readonly to: number; readonly total: number };
  /** A change: every changed range with the fresh ids of its lines. */
  readonly changes?: readonly ChangedRange[];
}

interface ToolOutput {
  readonly content: ContentBlock[];
  readonly notices?: Notice[];
  readonly facts?: ResultFacts;
}

/** A tool call that did what it was asked. */
export interface ToolSuccess extends ToolOutput {
  readonly isError: false;
  readonly code?: undefined;
}

/** A tool call that failed: the code is always there. */
export interface ToolFailure extends ToolOutput {
  readonly isError: true;
  readonly code: ErrorCode;
}

/** A successful text result. */
export function ok(text: string): ToolResult {
  return { isError: false, content: [{ type: "text", text }] };
}

/** `result` with `facts` (see {@link ResultFacts}). */
export function withFacts(result: ToolResult, facts: ResultFacts): ToolResult {
  return { ...result, facts };
}

/** A failed text result carrying its code. */
export function fail(code: ErrorCode, text: string): ToolResult {
  return { isError: true, code, content: [{ type: "text", text }] };
}

/** All text blocks of a result joined with newlines. */
export function resultText(result: ToolResult): string {
  return result.content.map((b) => b.text).join("\n");
}
