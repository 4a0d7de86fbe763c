/**
 * Parse and check a configuration file's text. Pure (no I/O): the caller
 * reads the file and names it, so every message can say where to look.
 */
import * as v from "valibot";
import { loadRules, RuleConfigError } from "../rules/mod.ts";
import { ConfigSchema, type Config } from "./schema.ts";

/** A configuration that cannot be used. `message` is one line: source, field, problem. */
export class ConfigError extends Error {
  /** The offending field as a path (`tokens[0].scopes[1]`); "" for the file as a whole. */
  readonly field: string;
  constructor(source: string, field: string, problem: string) {
    super(field ? `${source}: ${field}: ${problem}` : `${source}: ${problem}`);
    this.name = "ConfigError";
    this.field = field;
  }
}

/** `a.b[0].c` for a valibot issue path. */
export function issuePath(issue: v.BaseIssue<unknown>): string {
  let out = "";
  for (const item of issue.path ?? []) {
    const key = item.key;
    if (typeof key === "number") out += `[${key}]`;
    else out += `${out ? "." : ""}${String(key)}`;
  }
  return out;
}

/**
 * Parse `text` (JSON) into a {@link Config}. Throws {@link ConfigError}
 * naming the first bad field, or the rule id when the rule table does not
 * load (a pattern that does not compile, a duplicate id), because a server
 * that started with a broken rule would fail silently later.
 */
export function loadConfig(text: string, source: string): Config {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new ConfigError(source, "", `not valid JSON (${why.replace(/\s+/g, " ")})`);
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new ConfigError(source, "", 'must be a JSON object like {"port": 7878}');
  }
  // Rules first: their errors name the rule by id, which a schema path (rules.rules[3]) cannot.
  // Settings errors are left to the schema, whose path names the field.
  const rules = (raw as { rules?: unknown }).rules;
  if (rules !== undefined) checkRules(rules, source, true);
  const parsed = v.safeParse(ConfigSchema, raw);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    throw new ConfigError(source, issuePath(issue), problemOf(issue));
  }
  if (parsed.output.rules) checkRules(parsed.output.rules, source, false);
  return parsed.output;
}

function checkRules(rules: unknown, source: string, onlyRuleErrors: boolean): void {
  try {
    loadRules(rules);
  } catch (error) {
    if (!(error instanceof RuleConfigError)) throw error;
    if (error.ruleId === undefined && onlyRuleErrors) return;
    throw new ConfigError(source, error.ruleId === undefined ? "rules" : `rules: rule "${error.ruleId}"`, error.problem);
  }
}

/** The issue's message without valibot's generic prefix where a schema gave none of its own. */
function problemOf(issue: v.BaseIssue<unknown>): string {
  const message = issue.message.replace(/\s+/g, " ");
  return message.startsWith("Invalid type: ") ? `expected ${issue.expected}, got ${issue.received}` : message;
}
