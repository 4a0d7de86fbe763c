/**
 * The loud-failure rules as a post-execute listener. An error-rule match
 * ends the chain with the blocked result (an error whose text explains the
 * match, then the original output unchanged); a context-rule match hands the
 * result on with a notice; otherwise the result passes on untouched.
 *
 * It registers at order -10 so that the listeners a host adds at the
 * default order run inside it: none of them can end the chain before the
 * rules have looked at the tool's own output.
 */
import { addNotices, type PostExecuteListener } from "./listeners.ts";
import type { Pipeline } from "./pipeline.ts";
import { evaluate, isCompiledRule, loadRules, renderBlock, renderNotice, type RuleSet } from "../rules/mod.ts";

/** Listener name, shown if it ever fails. */
export const LOUD_FAILURE_LISTENER = "loud-failure";

/** Where the listener sits: before (outside) every listener at the default order 0. */
export const LOUD_FAILURE_ORDER = -10;

/**
 * True for a table `loadRules` built: every rule is compiled (has a matcher).
 * A configuration never holds a function (JSON cannot), so a non-empty table
 * is unambiguous. An empty one counts only when frozen, as `loadRules`
 * returns it: a written configuration may spell every setting with
 * `rules: []`, and reading that as an empty table would silently drop the
 * built-in rules.
 */
function isRuleSet(value: unknown): value is RuleSet {
  if (value === null || typeof value !== "object") return false;
  const set = value as Partial<Record<keyof RuleSet, unknown>>;
  if (!Array.isArray(set.rules) || !Array.isArray(set.shellTools)) return false;
  if (typeof set.excerptChars !== "number" || typeof set.maxScanChars !== "number" || typeof set.scanValue !== "boolean") {
    return false;
  }
  const compiled = set.rules.every(isCompiledRule);
  return compiled && (set.rules.length > 0 || Object.isFrozen(value));
}

/** The post-execute listener behind {@link installLoudFailure}, over an already loaded table. */
export function loudFailureListener(rules: RuleSet): PostExecuteListener {
  return function loudFailure(call, result, next) {
    const evaluation = evaluate(rules, call.name, result);
    switch (evaluation.verdict) {
      case "block":
        // Ending the chain is the point: no later listener may pass the result off as a success.
        return renderBlock(call.name, evaluation.matches, result, evaluation.scan);
      case "notice":
        return next(addNotices(result, renderNotice(call.name, evaluation.contexts, evaluation.scan)));
      case "pass":
        return next();
    }
  };
}

/**
 * Run every tool result through the loud-failure rules; returns the remover.
 * `config` is a loud-failure configuration (see `LoudFailureConfigSchema`;
 * `{}` means the built-in rules) or a table from `loadRules`. A broken
 * configuration throws `RuleConfigError` naming the rule here, at start-up,
 * and nothing is registered.
 */
export function installLoudFailure(pipeline: Pick<Pipeline, "onPostExecute">, config: unknown = {}): () => void {
  const rules = isRuleSet(config) ? config : loadRules(config);
  return pipeline.onPostExecute(loudFailureListener(rules), { name: LOUD_FAILURE_LISTENER, order: LOUD_FAILURE_ORDER });
}
