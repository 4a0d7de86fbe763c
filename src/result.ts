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

interface ToolOutput {
  readonly content: ContentBlock[];
  readonly notices?: Notice[];
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

/** A failed text result carrying its code. */
export function fail(code: ErrorCode, text: string): ToolResult {
  return { isError: true, code, content: [{ type: "text", text }] };
}

/** All text blocks of a result joined with newlines. */
export function resultText(result: ToolResult): string {
  return result.content.map((b) => b.text).join("\n");
}
