// Shared fixtures for the rules-*.test.ts suites (not a test file itself).
import { evaluate, loadRules, type RuleSet } from "../../src/rules/mod.ts";
import type { ToolResult } from "../../src/result.ts";

export const DEFAULT_RULES: RuleSet = loadRules({});

/** A shell-style result with the given text. */
export function shell(text: string, isError = false): ToolResult {
  const content = [{ type: "text" as const, text }];
  return isError ? { isError, code: "INTERNAL_ERROR", content } : { isError, content };
}

/** Ids of the rules that match `text` as output of `tool`. */
export function matchedIds(text: string, options: { tool?: string; isError?: boolean; rules?: RuleSet } = {}): string[] {
  const evaluation = evaluate(options.rules ?? DEFAULT_RULES, options.tool ?? "bash", shell(text, options.isError));
  return evaluation.matches.map((m) => m.ruleId);
}
