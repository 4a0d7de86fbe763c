import * as v from "valibot";
import { BUILTIN_RULES } from "./builtins.ts";
import { RuleConfigError } from "./config-error.ts";
import { LoudFailureConfigSchema, RuleInputSchema, type RuleInput } from "./schema.ts";
import { compileRe2, findRe2 } from "./pattern.ts";
import type { CompiledRule, RuleHit, RuleSet } from "./types.ts";

type ParsedRule = v.InferOutput<typeof RuleInputSchema>;

/** "field: message" for the first issue, which is the one a config author fixes first. */
function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  const issue = issues[0];
  const key = issue.path?.map((p, i) => (typeof p.key === "number" ? `[${p.key}]` : `${i > 0 ? "." : ""}${String(p.key)}`)).join("");
  // Field-shape messages already name their field.
  if (issue.type === "strict_object" || key === undefined || issue.message.startsWith(key)) return issue.message;
  return `${key}: ${issue.message}`;
}

/** The id to blame for the rule at `index`: its own when it has one, else its position. */
function blameId(raw: unknown, index: number): string {
  const id = raw !== null && typeof raw === "object" ? (raw as { id?: unknown }).id : undefined;
  return typeof id === "string" && id.trim() !== "" ? id : `rules[${index}]`;
}

function validateRule(raw: unknown, index: number): ParsedRule {
  const id = blameId(raw, index);
  const parsed = v.safeParse(RuleInputSchema, raw);
  if (!parsed.success) throw new RuleConfigError(id, describeIssues(parsed.issues));
  const rule = parsed.output;
  if (new Set(rule.flags ?? "").size !== (rule.flags ?? "").length) {
    throw new RuleConfigError(id, `flags "${rule.flags}" repeat a flag`);
  }
  if (rule.action !== "off") {
    if (rule.pattern === undefined) throw new RuleConfigError(id, "pattern is required unless action is off");
    if (rule.message === undefined) throw new RuleConfigError(id, "message is required unless action is off");
  }
  return rule;
}

/** A native RegExp's first hit; only built-ins (fixed, linear-shaped patterns) run this way. */
function nativeFinder(regex: RegExp): (text: string) => RuleHit | undefined {
  return (text) => {
    // No `g`/`y` flag (refused at load), so exec starts at 0 and keeps no state.
    const hit = regex.exec(text);
    return hit === null ? undefined : { start: hit.index, end: hit.index + hit[0].length };
  };
}

function compile(rule: ParsedRule, builtin: boolean, maxScanChars: number): CompiledRule {
  const source = rule.pattern ?? "";
  const flags = rule.flags ?? "";
  let find: (text: string) => RuleHit | undefined;
  let scanChars = maxScanChars;
  if (rule.action === "off") {
    // An `off` rule never runs and may omit its pattern.
    find = () => undefined;
  } else if (builtin) {
    let regex: RegExp;
    try {
      regex = new RegExp(source, flags);
    } catch (error) {
      throw new RuleConfigError(rule.id, `invalid pattern: ${error instanceof Error ? error.message : String(error)}`);
    }
    find = nativeFinder(regex);
  } else {
    const compiled = compileRe2(source, flags);
    if (!compiled.ok) throw new RuleConfigError(rule.id, compiled.problem);
    const re2 = compiled.re2;
    find = (text) => findRe2(re2, text);
    scanChars = Math.min(maxScanChars, compiled.scanChars);
  }
  const tools = rule.tools === undefined || rule.tools.length === 0 ? [] : rule.tools;
  return Object.freeze({
    id: rule.id,
    source,
    flags,
    engine: builtin ? ("native" as const) : ("re2" as const),
    scanChars,
    find: Object.freeze(find),
    tools: tools.includes("*") ? ("*" as const) : Object.freeze([...tools]),
    when: rule.when,
    action: rule.action,
    message: rule.message ?? "",
    builtin,
  });
}

/** True for a rule `loadRules` compiled (a configuration, being JSON, never holds a function). */
export function isCompiledRule(value: unknown): value is CompiledRule {
  return value !== null && typeof value === "object" && typeof (value as { find?: unknown }).find === "function";
}

/**
 * Validate, merge and compile the rule table. Built-ins come first (unless
 * `builtinRules: false`); a user rule with a built-in id replaces it in place;
 * new ids append in order. User rules compile to RE2 (see `pattern.ts`);
 * built-ins run as native RegExps. Throws {@link RuleConfigError} naming the
 * rule and the problem for an invalid regex, a construct RE2 cannot express
 * (backreference, lookaround, with how to rewrite it), a pattern over the
 * RE2 program limit, a duplicate user id, a `g`/`y` or unknown
 * flag, an empty message, an unknown field, or a bad `when`/`action`.
 * Rules with no `tools` check the configured shell tools.
 */
export function loadRules(config: unknown = {}): RuleSet {
  if (config === null || typeof config !== "object" || Array.isArray(config)) {
    throw new RuleConfigError(undefined, "config must be an object");
  }
  const rawRules = (config as { rules?: unknown }).rules;
  if (rawRules !== undefined && !Array.isArray(rawRules)) throw new RuleConfigError(undefined, "rules must be an array");
  // Rules first and one at a time, so every rule error names its rule.
  const userRules = (rawRules ?? []).map(validateRule);
  // Patterns too, before the settings: a pattern RE2 cannot run is a rule error and names its rule.
  for (const rule of userRules) {
    if (rule.action === "off") continue;
    const compiled = compileRe2(rule.pattern ?? "", rule.flags ?? "");
    if (!compiled.ok) throw new RuleConfigError(rule.id, compiled.problem);
  }
  const seen = new Set<string>();
  for (const rule of userRules) {
    if (seen.has(rule.id)) throw new RuleConfigError(rule.id, "duplicate id: two user rules share it");
    seen.add(rule.id);
  }
  const parsed = v.safeParse(LoudFailureConfigSchema, config);
  if (!parsed.success) throw new RuleConfigError(undefined, describeIssues(parsed.issues));
  const settings = parsed.output;

  const userById = new Map(userRules.map((rule) => [rule.id, rule]));
  const table: CompiledRule[] = [];
  if (settings.builtinRules) {
    for (const input of BUILTIN_RULES) {
      const replacement = userById.get(input.id);
      if (replacement !== undefined) {
        table.push(compile(replacement, false, settings.maxScanChars));
        userById.delete(input.id);
      } else {
        table.push(compile(validateRule(input, table.length), true, settings.maxScanChars));
      }
    }
  }
  for (const rule of userRules) if (userById.has(rule.id)) table.push(compile(rule, false, settings.maxScanChars));

  return Object.freeze({
    rules: Object.freeze(table),
    shellTools: Object.freeze([...settings.shellTools]),
    excerptChars: settings.excerptChars,
    maxScanChars: settings.maxScanChars,
    scanValue: settings.scanValue,
  });
}

/** The built-in rules as configuration (copies), e.g. to show them in a config dump. */
export function builtinRuleInputs(): RuleInput[] {
  return BUILTIN_RULES.map((rule) => ({ ...rule }));
}
