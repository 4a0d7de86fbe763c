/**
 * The loud-failure rule engine: pure functions that turn a tool result whose
 * text betrays a failure into a blocked result or a notice.
 *
 *   const rules = loadRules(config);            // throws RuleConfigError on a broken table
 *   const ev = evaluate(rules, "bash", result);  // which rules matched, with excerpts
 *   if (ev.verdict === "block") return renderBlock("bash", ev.matches, result, ev.scan);
 *   if (ev.verdict === "notice") notices.push(renderNotice("bash", ev.contexts, ev.scan));
 */
export { BUILTIN_RULES } from "./builtins.ts";
export { RuleConfigError } from "./config-error.ts";
export { evaluate } from "./evaluate.ts";
export { excerptAround } from "./excerpt.ts";
export { builtinRuleInputs, isCompiledRule, loadRules } from "./load.ts";
export { MAX_RULE_PROGRAM, RULE_SCAN_WORK } from "./pattern.ts";
export { hasFailureMarker, parseShellMarkers, type ShellMarkers } from "./markers.ts";
export { LOUD_FAILURE_PLUGIN, renderBlock, renderNotice } from "./render.ts";
export { stripAnsi } from "./scan-text.ts";
export {
  DEFAULT_EXCERPT_CHARS,
  DEFAULT_MAX_SCAN_CHARS,
  DEFAULT_SHELL_TOOLS,
  LoudFailureConfigSchema,
  RuleInputSchema,
  type LoudFailureConfig,
  type RuleInput,
} from "./schema.ts";
export type {
  CompiledRule,
  Evaluation,
  MatchSource,
  RuleAction,
  RuleHit,
  RuleMatch,
  RuleSet,
  RuleWhen,
  ScanReport,
} from "./types.ts";
