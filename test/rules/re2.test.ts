/** User rules run on RE2: regex bombs complete, unsupported constructs are refused at load with a rewrite, the work per rule is bounded. */
import { describe, expect, test } from "bun:test";
import { RE2JS } from "re2js";
import { BUILTIN_RULES, MAX_RULE_PROGRAM, RULE_SCAN_WORK, RuleConfigError, evaluate, loadRules } from "../../src/rules/mod.ts";
import { toRe2Syntax, unsupportedConstruct } from "../../src/rules/pattern.ts";
import { shell } from "../helpers/rules.ts";

const rule = (fields: Record<string, unknown>) => ({ id: "mine", pattern: "boom", action: "error", message: "It blew up.", ...fields });

function loadError(rules: unknown[]): RuleConfigError {
  try {
    loadRules({ builtinRules: false, rules });
  } catch (error) {
    expect(error).toBeInstanceOf(RuleConfigError);
    return error as RuleConfigError;
  }
  throw new Error("expected a RuleConfigError");
}

describe("user rules on RE2", () => {
  test("(a+)+$ on 34 a's and a '!' completes with no match, and still matches where it should", () => {
    const set = loadRules({ builtinRules: false, rules: [rule({ id: "bomb", pattern: "(a+)+$" })] });
    expect(set.rules[0].engine).toBe("re2");
    const bomb = evaluate(set, "bash", shell(`${"a".repeat(34)}!`));
    expect(bomb.verdict).toBe("pass");
    expect(bomb.matches).toEqual([]);
    const hit = evaluate(set, "bash", shell("xx aaaa"));
    expect(hit.verdict).toBe("block");
    expect(hit.errors[0]).toMatchObject({ ruleId: "bomb", excerpt: "xx aaaa" });
  });

  test("the same bomb on a 512 KiB line of a's completes too", () => {
    const set = loadRules({ builtinRules: false, rules: [rule({ id: "bomb", pattern: "(a+)+$" })] });
    expect(evaluate(set, "bash", shell(`${"a".repeat(512 * 1024)}!`)).matches).toEqual([]);
  });

  test("flags i, m, s, u keep their meaning", () => {
    const fires = (pattern: string, flags: string, text: string) =>
      evaluate(loadRules({ builtinRules: false, rules: [rule({ pattern, flags })] }), "bash", shell(text)).verdict === "block";
    expect(fires("boom", "i", "BOOM")).toBe(true);
    expect(fires("boom", "", "BOOM")).toBe(false);
    expect(fires("^boom$", "m", "a\nboom\nb")).toBe(true);
    expect(fires("^boom$", "", "a\nboom\nb")).toBe(false);
    expect(fires("a.b", "s", "a\nb")).toBe(true);
    expect(fires("a.b", "", "a\nb")).toBe(false);
    expect(fires("^.$", "u", "😀")).toBe(true);
  });

  test("JavaScript \\u escapes are accepted and mean the same character", () => {
    expect(toRe2Syntax("\\uFFFD")).toBe("\\x{FFFD}");
    expect(toRe2Syntax("\\u{1F600}")).toBe("\\x{1F600}");
    expect(toRe2Syntax("\\\\uFFFD")).toBe("\\\\uFFFD");
    const set = loadRules({ builtinRules: false, rules: [rule({ pattern: "x\\uFFFDy" })] });
    expect(evaluate(set, "bash", shell("ax\uFFFDyb")).errors[0].excerpt).toBe("ax\uFFFDyb");
  });

  test("offsets are UTF-16: the excerpt is centred on the hit after astral characters", () => {
    const set = loadRules({ builtinRules: false, excerptChars: 9, rules: [rule({ pattern: "boom" })] });
    const ev = evaluate(set, "bash", shell(`${"😀".repeat(50)} boom ${"😀".repeat(50)}`));
    expect(ev.errors[0].excerpt).toContain("boom");
  });

  test("built-ins stay native; a user replacement of a built-in runs on RE2", () => {
    const set = loadRules({ rules: [rule({ id: "latex-rerun-needed", pattern: "(x+)+y", action: "context" })] });
    expect(set.rules.filter((r) => r.builtin).every((r) => r.engine === "native")).toBe(true);
    expect(set.rules.find((r) => r.id === "latex-rerun-needed")?.engine).toBe("re2");
  });
});

describe("patterns RE2 cannot express are refused at load, naming the rule and the rewrite", () => {
  const cases: [string, string, RegExp][] = [
    ["lookahead", "foo(?=bar)", /lookahead "\(\?=" is not supported .*RE2.*"foo\(\?=bar\)" -> "foobar"/],
    ["negative lookahead", "foo(?!bar)", /negative lookahead "\(\?!" is not supported .*negated class/],
    ["lookbehind", "(?<=bar)foo", /lookbehind "\(\?<=" is not supported .*"barfoo"/],
    ["negative lookbehind", "(?<!x)foo", /negative lookbehind "\(\?<!" is not supported .*"\(\?:\^\|\[\^x\]\)foo"/],
    ["backreference", "(a|b)\\1", /backreference "\\1" is not supported .*no backreferences.*"aa\|bb"/],
    ["named backreference", "(?<q>['\"]).*\\k<q>", /named backreference "\\k<...>" is not supported/],
    ["a repeat over 1000", "a{1001}", /^invalid pattern: .*repeat count.*RE2 syntax/],
    [
      "a program over the limit",
      "(?:a|ab|b){100,1000}c",
      new RegExp(`^pattern compiles to \\d+ RE2 instructions, more than ${MAX_RULE_PROGRAM}: replace large counted repetitions`),
    ],
  ];
  for (const [name, pattern, problem] of cases) {
    test(name, () => {
      const error = loadError([rule({ id: "ok-one" }), rule({ id: "bad-one", pattern })]);
      expect(error.ruleId).toBe("bad-one");
      expect(error.problem).toMatch(problem);
      expect(error.message).toStartWith('rule "bad-one": ');
    });
  }

  test("escaped and bracketed look-alikes are literals, not lookaround or backreferences", () => {
    for (const source of ["\\(?=x", "[(?=]", "[\\]](?:x)", "[a\\1]", "\\\\", "[(?<=x]"]) {
      expect({ source, problem: unsupportedConstruct(source) }).toEqual({ source, problem: undefined });
    }
    expect(unsupportedConstruct("[]]\\1")).toMatch(/^backreference/);
    // "[^]]" is a class of everything but "]"; the "(?=" after it is outside it.
    expect(unsupportedConstruct("[^]](?=x)")).toMatch(/^lookahead/);
  });

  test("an off rule needs no pattern, and its pattern is not compiled", () => {
    expect(loadRules({ builtinRules: false, rules: [{ id: "x", pattern: "(?=x)", action: "off" }] }).rules[0].action).toBe("off");
  });
});

describe("the work per rule is bounded", () => {
  const big = "[ab]{500,1000}c";
  const size = RE2JS.compile(big).programSize();

  test("a rule of n instructions reads at most RULE_SCAN_WORK / n characters of a window", () => {
    const set = loadRules({ builtinRules: false, rules: [rule({ id: "small", pattern: "boom" }), rule({ id: "big", pattern: big })] });
    expect(set.rules[0].scanChars).toBe(set.maxScanChars);
    expect(set.rules[1].scanChars).toBe(Math.floor(RULE_SCAN_WORK / size));
    expect(set.rules[1].scanChars).toBeLessThan(set.maxScanChars);
  });

  test("a big rule finds hits at the head and tail of a window, not in the middle it does not read", () => {
    const set = loadRules({ builtinRules: false, rules: [rule({ id: "big", pattern: big })] });
    const limit = set.rules[0].scanChars;
    const filler = "x\n".repeat(limit);
    const signature = `${"ab".repeat(300)}c`;
    const fired = (text: string) => evaluate(set, "bash", shell(text)).verdict === "block";
    expect(fired(`${signature}\n${filler}`)).toBe(true);
    expect(fired(`${filler}${signature}\n`)).toBe(true);
    expect(fired(`${filler}${signature}\n${filler}`)).toBe(false);
    // A small rule reads the whole window, so it finds the same middle hit.
    const small = loadRules({ builtinRules: false, rules: [rule({ id: "small", pattern: "(?:ab)+c" })] });
    expect(evaluate(small, "bash", shell(`${filler}${signature}\n${filler}`)).verdict).toBe("block");
  });
});

describe("built-in patterns as user rules", () => {
  test("every built-in pattern also loads on RE2, so a user can copy one to replace it", () => {
    for (const input of BUILTIN_RULES) {
      const set = loadRules({ rules: [{ ...input, message: `${input.message} (mine)` }] });
      const rule = set.rules.find((r) => r.id === input.id)!;
      expect({ id: input.id, engine: rule.engine, builtin: rule.builtin }).toEqual({ id: input.id, engine: "re2", builtin: false });
      expect(rule.scanChars).toBeGreaterThan(64 * 1024);
    }
  });

  test("a copied built-in fires on the same signature as the native one", () => {
    const copy = loadRules({ rules: BUILTIN_RULES.map((input) => ({ ...input })) });
    const text =
      'ok\nbash: pandocc: command not found\nTraceback (most recent call last):\n  File "x.py", line 1\ncalc.py:3: RuntimeWarning: divide by zero encountered in log\n\uFFFD\n';
    const native = evaluate(loadRules({}), "bash", shell(text));
    const re2 = evaluate(copy, "bash", shell(text));
    expect(re2.matches).toEqual(native.matches.map((m) => ({ ...m, builtin: false })));
  });
});
