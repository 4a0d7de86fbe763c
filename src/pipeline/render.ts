/**
 * The last stage: give every result the same shape whatever produced it
 * (a tool, a listener, the pipeline), so transports never special-case.
 */
import type { ToolResult } from "../result.ts";

/**
 * `code` present iff `isError` (an error without one becomes INTERNAL_ERROR,
 * because harnesses route on the code); `notices` omitted when empty; `facts` kept.
 */
export function renderResult(result: ToolResult): ToolResult {
  const extra = { ...(result.notices?.length ? { notices: result.notices } : {}), ...(result.facts ? { facts: result.facts } : {}) };
  if (result.isError) {
    return { isError: true, code: result.code ?? "INTERNAL_ERROR", content: result.content, ...extra };
  }
  return { isError: false, content: result.content, ...extra };
}
