import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { evaluate, excerptAround, loadRules, renderBlock, renderNotice } from "../../src/rules/mod.ts";
import type { ToolResult } from "../../src/result.ts";
import { DEFAULT_RULES, shell } from "../helpers/rules.ts";

const PANDOC = "pandoc thesis.md -o thesis.pdf --pdf-engine=xelatex\n[WARNING] Missing character: There is no ₂ (U+2082) in font Microsoft YaHei/OT!\n";

describe("renderBlock", () => {
  const result: ToolResult = {
    isError: false,
    content: [
      { type: "text", text: PANDOC },
      { type: "text", text: "calc.py:12: RuntimeWarning: invalid value encountered in divide\n" },
    ],
    notices: [{ text: "earlier notice", source: { kind: "tool" } }],
  };
  const ev = evaluate(DEFAULT_RULES, "bash", result);
  const blocked = renderBlock("bash", ev.matches, result, ev.scan);
  const header = blocked.content[0].text;

  test("is an error result with code RULE_BLOCKED", () => {
    expect(blocked.isError).toBe(true);
    expect(blocked.code).toBe("RULE_BLOCKED");
  });

  test("the header names the tool and each matched rule with its message and excerpt, error rules first", () => {
    const rule = DEFAULT_RULES.rules.find((r) => r.id === "pandoc-missing-character")!;
    expect(header.startsWith('[loud-failure] Tool "bash" reported success, but its output matched a rule (pandoc-missing-character)')).toBe(true);
    expect(header).toContain(`- pandoc-missing-character (error): ${rule.message}\n  excerpt: ${JSON.stringify(ev.errors[0].excerpt)}`);
    expect(header.indexOf("pandoc-missing-character (error)")).toBeLessThan(header.indexOf("numpy-runtime-warning (context)"));
    expect(ev.errors[0].excerpt).toContain("Missing character: There is no ₂");
  });

  test("ends its header with the hand-over line, then the original blocks unchanged", () => {
    expect(header.endsWith("\n\nThe original tool output follows unchanged.")).toBe(true);
    expect(blocked.content.slice(1)).toEqual(result.content);
    expect(blocked.content.slice(1).every((b, i) => b === result.content[i])).toBe(true);
  });

  test("keeps notices already on the result", () => {
    expect(blocked.notices).toEqual(result.notices);
  });

  test("says 'failed' rather than 'reported success' for a result that already failed", () => {
    const set = loadRules({ builtinRules: false, rules: [{ id: "oom", pattern: "Killed", when: "any", action: "error", message: "Out of memory." }] });
    const failed = shell("Killed\n[exit code: 137]");
    const text = renderBlock("bash", evaluate(set, "bash", failed).matches, failed).content[0].text;
    expect(text.startsWith('[loud-failure] Tool "bash" failed, and its output matched a rule (oom)')).toBe(true);
  });

  test("several error rules are all named", () => {
    const r = shell("bash: pandocc: command not found\nTraceback (most recent call last):\n");
    const text = renderBlock("bash", evaluate(DEFAULT_RULES, "bash", r).matches, r).content[0].text;
    expect(text).toContain("matched rules (python-traceback-with-success, shell-command-not-found) that indicate a silent failure");
  });

  test("a scan that skipped the middle of a huge output says so", () => {
    const set = loadRules({ maxScanChars: 2048 });
    const r = shell(`Traceback (most recent call last):\n${"ok\n".repeat(10_000)}`);
    const e = evaluate(set, "bash", r);
    const text = renderBlock("bash", e.matches, r, e.scan).content[0].text;
    expect(text).toContain(`Note: the output is 30,035 characters long; only the first ${e.scan.skipped!.from.toLocaleString("en-US")} and the last`);
    expect(text).toContain("were skipped");
  });
});

describe("renderNotice", () => {
  test("is attributed to the loud-failure plugin and carries rule, message and excerpt", () => {
    const r = shell("python calc.py\ncalc.py:12: RuntimeWarning: invalid value encountered in divide\n[0.5 nan 0.25]\n");
    const ev = evaluate(DEFAULT_RULES, "bash", r);
    expect(ev.verdict).toBe("notice");
    const notice = renderNotice("bash", ev.contexts, ev.scan);
    expect(notice.source).toEqual({ kind: "plugin", plugin: "loud-failure", summary: "loud-failure: bash output matched numpy-runtime-warning" });
    const rule = DEFAULT_RULES.rules.find((x) => x.id === "numpy-runtime-warning")!;
    expect(notice.text).toBe(
      '[loud-failure] Notice for tool "bash": its output matched a rule (numpy-runtime-warning) that often means a silent failure. Verify before relying on this result.\n\n' +
        `- numpy-runtime-warning (context): ${rule.message}\n` +
        `  excerpt: ${JSON.stringify("python calc.py\ncalc.py:12: RuntimeWarning: invalid value encountered in divide\n[0.5 nan 0.25]\n")}`,
    );
  });

  test("matches from a structured value are labelled as such", () => {
    const set = loadRules({ scanValue: true });
    const ev = evaluate(set, "bash", shell("ok"), { stderr: "cp: x: No such file or directory" });
    expect(renderNotice("bash", ev.contexts).text).toContain('excerpt (structured value): "cp: x: No such file or directory"');
  });

  test("excerptChars 0 shows no excerpt at all", () => {
    const set = loadRules({ excerptChars: 0 });
    const ev = evaluate(set, "bash", shell("secret-token-123 No such file or directory"));
    expect(renderNotice("bash", ev.contexts).text).not.toContain("excerpt");
  });
});

describe("excerpts", () => {
  test("centred on the match with ellipses on cut sides, within excerptChars", () => {
    const set = loadRules({ excerptChars: 40 });
    const text = `${"a".repeat(500)}\nbash: pandocc: command not found\n${"b".repeat(500)}`;
    const [match] = evaluate(set, "bash", shell(text)).errors;
    // 32-char match, 8 left over: 4 each side, one of which is the ellipsis
    expect(match.excerpt).toBe("…aa\nbash: pandocc: command not found\nbb…");
    expect(match.excerpt.length).toBe(40);
  });

  test("a match at the very start or end is not padded with a needless ellipsis", () => {
    expect(excerptAround(`bash: x: command not found${"z".repeat(100)}`, 0, 26, 30)).toBe("bash: x: command not foundzzz…");
    const text = `${"z".repeat(100)}END`;
    expect(excerptAround(text, 100, 103, 10)).toBe("…zzzzzzEND");
  });

  test("a match longer than the budget keeps its beginning", () => {
    const text = `xx${"M".repeat(100)}yy`;
    expect(excerptAround(text, 2, 102, 12)).toBe(`…${"M".repeat(10)}…`);
  });

  test("never splits a surrogate pair", () => {
    const text = `${"🚀".repeat(20)}HIT${"🚀".repeat(20)}`;
    const excerpt = excerptAround(text, 40, 43, 11);
    expect(excerpt).toContain("HIT");
    expect(excerpt).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  test("property: bounded, contains a short match, no ellipsis where nothing was cut", () => {
    fc.assert(
      // Full length: fast-check's default size stops at 10 characters, so text.length <= max ended nearly every run.
      fc.property(fc.string({ maxLength: 300, size: "max" }), fc.nat(), fc.nat(), fc.integer({ min: 0, max: 120 }), (text, a, b, max) => {
        const start = text.length === 0 ? 0 : a % (text.length + 1);
        const end = start + (text.length - start === 0 ? 0 : b % (text.length - start + 1));
        const excerpt = excerptAround(text, start, end, max);
        expect(excerpt.length).toBeLessThanOrEqual(max);
        if (text.length <= max) {
          expect(excerpt).toBe(text);
          return;
        }
        if (max >= 3 && end - start <= max - 2 && max >= 8) {
          expect(excerpt).toContain(text.slice(start, end));
        }
        if (max >= 3) {
          const body = excerpt.replace(/^…/, "").replace(/…$/, "");
          expect(text.includes(body)).toBe(true);
          // No ellipsis on a side means nothing was cut there.
          if (!excerpt.startsWith("…")) expect(text.startsWith(body)).toBe(true);
          if (!excerpt.endsWith("…")) expect(text.endsWith(body)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  test("property: with surrogate pairs, a match on character boundaries is kept whole and no pair is split", () => {
    const char = fc.oneof(fc.constantFrom("🚀", "𝒳", "é", "\n"), fc.string({ minLength: 1, maxLength: 1 }));
    fc.assert(
      fc.property(fc.array(char, { maxLength: 200, size: "max" }), fc.nat(), fc.nat(), fc.integer({ min: 0, max: 120 }), (chars, a, b, max) => {
        const text = chars.join("");
        // Offsets of character boundaries only, as a regex match gives them.
        const bounds = [0];
        for (const c of chars) bounds.push(bounds[bounds.length - 1] + c.length);
        const from = a % bounds.length;
        const start = bounds[from];
        const end = bounds[from + (b % (bounds.length - from))];
        const excerpt = excerptAround(text, start, end, max);
        expect(excerpt.length).toBeLessThanOrEqual(max);
        expect(excerpt).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
        if (text.length > max && max >= 8 && end - start <= max - 2) expect(excerpt).toContain(text.slice(start, end));
      }),
      { numRuns: 500 },
    );
  });
});
