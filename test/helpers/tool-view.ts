/**
 * Calling `view` in tests the way the pipeline does: arguments validated
 * against the tool's schema first, then `run`. Plus `row`, the expected view
 * row of a line, computed from the id definition rather than copied.
 */
import { lineHash } from "../../src/hash/fnv.ts";
import { validateArgs } from "../../src/pipeline/validate.ts";
import { resultText, type ToolResult } from "../../src/result.ts";
import { formatId } from "../../src/text/ids.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { viewTool } from "../../src/tools/view/run.ts";

/** A `view` result and its text. */
export interface ViewOutcome {
  readonly result: ToolResult;
  readonly text: string;
}

/** Validate `args` like the pipeline, then run `view`. */
export async function view(ctx: ToolContext, args: unknown): Promise<ViewOutcome> {
  const checked = validateArgs(viewTool, args);
  const result = checked.ok ? await viewTool.run(checked.value as never, ctx) : checked.result;
  return { result, text: resultText(result) };
}

/** The id of line `n` whose content is `line`. */
export function id(n: number, line: string): string {
  return formatId(n, lineHash(line));
}

/** The view row of line `n`: `N:hh|content`. */
export function row(n: number, line: string): string {
  return `${id(n, line)}|${line}`;
}

/** Rows for consecutive lines starting at line `first`. */
export function rows(first: number, lines: readonly string[]): string[] {
  return lines.map((line, i) => row(first + i, line));
}
