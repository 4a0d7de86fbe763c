import { describe, expect, test } from "bun:test";
import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { BUILTIN_RULES, DEFAULT_MAX_SCAN_CHARS, LoudFailureConfigSchema, RuleConfigError, RuleInputSchema, evaluate, loadRules } from "../../src/rules/mod.ts";
import { shell } from "../helpers/rules.ts";

const builtinIds = BUILTIN_RULES.map((r) => r.id);

/** The RuleConfigError `run` throws (fails the test if it throws anything else or nothing). */
function configError(run: () => unknown): RuleConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(RuleConfigError);
    return error as RuleConfigError;
  }
  throw new Error("expected a RuleConfigError");
}

const rule = (fields: Record<string, unknown>) => ({ id: "mine", pattern: "boom", action: "error", message: "It blew up.", ...fields });

describe("loadRules: defaults and merging", () => {
  test("defaults: built-ins, bash as the shell tool, 240-char excerpts, 1 MiB scan, no value scan", () => {
    const set = loadRules({});
    expect(set.rules.map((r) => r.id)).toEqual(builtinIds);
    expect(set.rules.every((r) => r.builtin)).toBe(true);
    expect(set.shellTools).toEqual(["bash"]);
    expect(set.excerptChars).toBe(240);
    expect(set.maxScanChars).toBe(DEFAULT_MAX_SCAN_CHARS);
    expect(DEFAULT_MAX_SCAN_CHARS).toBe(1024 * 1024);
    expect(set.scanValue).toBe(false);
    expect(loadRules().rules.length).toBe(builtinIds.length);
  });

  test("builtinRules: false loads only the user rules", () => {
    expect(loadRules({ builtinRules: false, rules: [rule({})] }).rules.map((r) => r.id)).toEqual(["mine"]);
    expect(loadRules({ builtinRules: false }).rules).toEqual([]);
  });

  test("a user rule with a built-in id replaces it in place; new ids append in order", () => {
    const set = loadRules({
      rules: [rule({ id: "zeta" }), rule({ id: "numpy-runtime-warning", pattern: "nan", action: "error", message: "NaN!" }), rule({ id: "alpha" })],
    });
    const ids = set.rules.map((r) => r.id);
    expect(ids).toEqual([...builtinIds, "zeta", "alpha"]);
    const replaced = set.rules[builtinIds.indexOf("numpy-runtime-warning")];
    expect(replaced).toMatchObject({ id: "numpy-runtime-warning", action: "error", message: "NaN!", builtin: false });
    expect(replaced).toMatchObject({ source: "nan", engine: "re2" });
    expect(set.rules[0].engine).toBe("native");
  });

  test("a built-in can be switched off by id alone, without pattern or message", () => {
    const set = loadRules({ rules: [{ id: "no-such-file-with-success", action: "off" }] });
    expect(set.rules.find((r) => r.id === "no-such-file-with-success")?.action).toBe("off");
    expect(evaluate(set, "bash", shell("cp: cannot stat 'x': No such file or directory\n")).matches).toEqual([]);
  });

  test("tools: omitted or empty means the shell tools, ['*'] means every tool", () => {
    const set = loadRules({
      builtinRules: false,
      shellTools: ["bash", "pwsh"],
      rules: [rule({ id: "shells" }), rule({ id: "empty", tools: [] }), rule({ id: "all", tools: ["*"] }), rule({ id: "view-only", tools: ["view"] })],
    });
    const fired = (tool: string) => evaluate(set, tool, shell("boom")).matches.map((m) => m.ruleId);
    expect(fired("bash")).toEqual(["shells", "empty", "all"]);
    expect(fired("pwsh")).toEqual(["shells", "empty", "all"]);
    expect(fired("view")).toEqual(["all", "view-only"]);
  });

  test("messages are kept verbatim", () => {
    const message = '  Exactly\nthis — with "quotes" and trailing space ';
    expect(loadRules({ rules: [rule({ message })] }).rules.at(-1)?.message).toBe(message);
  });

  test("the rule set is frozen", () => {
    const set = loadRules({ rules: [rule({ tools: ["bash"] })] });
    expect(Object.isFrozen(set)).toBe(true);
    expect(Object.isFrozen(set.rules)).toBe(true);
    expect(Object.isFrozen(set.shellTools)).toBe(true);
    expect(Object.isFrozen(set.rules[0])).toBe(true);
    expect(Object.isFrozen(set.rules.at(-1)?.tools)).toBe(true);
    expect(Object.isFrozen(set.rules[0].find)).toBe(true);
    expect(Object.isFrozen(set.rules.at(-1)?.find)).toBe(true);
  });

  test("loading does not touch the config object", () => {
    const config = { rules: [rule({})], shellTools: ["bash"] };
    const copy = structuredClone(config);
    loadRules(config);
    expect(config).toEqual(copy);
  });
});

describe("loadRules: a broken table fails the load, naming the rule and the problem", () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ["invalid regex", rule({ pattern: "(unclosed" }), /^invalid pattern: /],
    ["stateful flag g", rule({ flags: "gi" }), /flag "g" is refused: .*state/],
    ["stateful flag y", rule({ flags: "y" }), /flag "y" is refused/],
    ["unknown flag", rule({ flags: "x" }), /unknown flag "x" \(allowed: i, m, s, u\)/],
    ["repeated flag", rule({ flags: "ii" }), /repeat a flag/],
    ["empty message", rule({ message: "" }), /message must not be empty/],
    ["blank message", rule({ message: "   " }), /message must not be empty/],
    ["missing message", rule({ message: undefined }), /message is required unless action is off/],
    ["missing pattern", rule({ pattern: undefined }), /pattern is required unless action is off/],
    ["empty pattern", rule({ pattern: "" }), /pattern must not be empty/],
    ["unknown field", rule({ severity: "high" }), /unknown field "severity"/],
    ["bad when", rule({ when: "sometimes" }), /when must be one of success, error, any \(got "sometimes"\)/],
    ["bad action", rule({ action: "warn" }), /action must be one of error, context, off \(got "warn"\)/],
    ["missing action", rule({ action: undefined }), /action/],
    ["tools not strings", rule({ tools: [1] }), /^tools\[0\]: tools entries must be strings$/],
    ["message not a string", rule({ message: 42 }), /message must be a string/],
  ];
  for (const [name, input, problem] of cases) {
    test(name, () => {
      const error = configError(() => loadRules({ rules: [rule({ id: "ok-one" }), input] }));
      expect(error.ruleId).toBe("mine");
      expect(error.problem).toMatch(problem);
      expect(error.message).toContain('rule "mine"');
      expect(error.message).toContain(error.problem);
    });
  }

  test("an invalid replacement of a built-in names the built-in id", () => {
    const error = configError(() => loadRules({ rules: [{ id: "python-traceback-with-success", pattern: "[", action: "error", message: "x" }] }));
    expect(error.ruleId).toBe("python-traceback-with-success");
    expect(error.problem).toMatch(/^invalid pattern/);
  });

  test("two user rules with one id fail the load", () => {
    const error = configError(() => loadRules({ rules: [rule({}), rule({ message: "other" })] }));
    expect(error.ruleId).toBe("mine");
    expect(error.problem).toMatch(/duplicate id/);
  });

  test("two user rules with a built-in id fail too (no silent last-wins)", () => {
    const id = "latex-rerun-needed";
    const error = configError(() => loadRules({ rules: [rule({ id }), rule({ id, action: "off" })] }));
    expect(error.ruleId).toBe(id);
  });

  test("a rule without a usable id is named by its position", () => {
    expect(configError(() => loadRules({ rules: [rule({}), { pattern: "x", action: "error", message: "m" }] })).ruleId).toBe("rules[1]");
    expect(configError(() => loadRules({ rules: [rule({ id: "" })] })).ruleId).toBe("rules[0]");
    expect(configError(() => loadRules({ rules: ["not an object"] })).ruleId).toBe("rules[0]");
  });

  test("top-level problems carry no rule id", () => {
    for (const [config, problem] of [
      [{ excerptChars: -1 }, /excerptChars must be 0 or more/],
      [{ excerptChars: 1.5 }, /excerptChars must be an integer/],
      [{ maxScanChars: 10 }, /maxScanChars must be at least 1024/],
      [{ shellTools: "bash" }, /shellTools must be a list of tool names/],
      [{ builtinRules: "yes" }, /builtinRules must be a boolean/],
      [{ rules: {} }, /rules must be an array/],
      [{ colour: true }, /unknown field "colour"/],
    ] as const) {
      const error = configError(() => loadRules(config));
      expect(error.ruleId).toBeUndefined();
      expect(error.problem).toMatch(problem);
    }
    expect(configError(() => loadRules(null)).problem).toMatch(/must be an object/);
  });
});

describe("the exported schemas", () => {
  test("every built-in is a valid rule input", () => {
    for (const input of BUILTIN_RULES) expect({ id: input.id, ok: v.safeParse(RuleInputSchema, input).success }).toEqual({ id: input.id, ok: true });
  });

  test("the config schema applies the defaults and refuses stateful flags on its own", () => {
    const parsed = v.parse(LoudFailureConfigSchema, {});
    expect(parsed).toEqual({ builtinRules: true, shellTools: ["bash"], excerptChars: 240, maxScanChars: DEFAULT_MAX_SCAN_CHARS, scanValue: false, rules: [] });
    expect(v.safeParse(LoudFailureConfigSchema, { rules: [rule({ flags: "g" })] }).success).toBe(false);
  });

  test("the config schema converts to JSON Schema for the server config file", () => {
    const json = toJsonSchema(LoudFailureConfigSchema) as {
      additionalProperties: boolean;
      properties: { rules: { items: { additionalProperties: boolean; required: string[]; properties: Record<string, { pattern?: string }> } } };
    };
    expect(json.additionalProperties).toBe(false);
    expect(json.properties.rules.items.additionalProperties).toBe(false);
    expect(json.properties.rules.items.required).toEqual(["id", "action"]);
    expect(json.properties.rules.items.properties.flags.pattern).toBe("^[imsu]*$");
  });
});
