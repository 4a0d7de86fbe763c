import { describe, expect, test } from "bun:test";
import { evaluate, loadRules } from "../../src/rules/mod.ts";
import type { ToolResult } from "../../src/result.ts";
import { DEFAULT_RULES, shell } from "../helpers/rules.ts";

const TRACEBACK = "Traceback (most recent call last):\n  File \"run.py\", line 2, in <module>\nKeyError: 'x'\n";

describe("evaluate: filters", () => {
  const set = loadRules({
    builtinRules: false,
    rules: [
      { id: "on-success", pattern: "boom", action: "error", message: "s" },
      { id: "on-error", pattern: "boom", when: "error", action: "context", message: "e" },
      { id: "on-any", pattern: "boom", when: "any", action: "context", message: "a" },
      { id: "disabled", pattern: "boom", action: "off", message: "never" },
    ],
  });
  const ids = (result: ToolResult) => evaluate(set, "bash", result).matches.map((m) => m.ruleId);

  test("when: success / error / any against a successful result", () => {
    expect(ids(shell("boom\n"))).toEqual(["on-success", "on-any"]);
  });

  test("an isError result counts as failed", () => {
    const ev = evaluate(set, "bash", shell("boom\n", true));
    expect(ev.failed).toBe(true);
    expect(ev.matches.map((m) => m.ruleId)).toEqual(["on-error", "on-any"]);
  });

  test("a shell failure marker counts as failed even when isError is false", () => {
    for (const marker of [
      "[exit code: 1]",
      "[timed out after 100ms]",
      "[killed by signal: SIGTERM]",
      "[status: exited with code 2]",
      "[sandbox: file access denied under strict mode]",
    ]) {
      expect({ marker, ids: ids(shell(`boom\n${marker}`)) }).toEqual({ marker, ids: ["on-error", "on-any"] });
    }
    expect(ids(shell("boom\n[exit code: 0]"))).toEqual(["on-success", "on-any"]);
  });

  test("an off rule never runs", () => {
    expect(ids(shell("boom"))).not.toContain("disabled");
    expect(ids(shell("boom", true))).not.toContain("disabled");
  });

  test("a failure marker in a later content block is read (blocks join with newlines)", () => {
    const result: ToolResult = {
      isError: false,
      content: [
        { type: "text", text: "boom" },
        { type: "text", text: "[exit code: 1]" },
      ],
    };
    expect(evaluate(set, "bash", result).failed).toBe(true);
  });
});

describe("evaluate: verdicts", () => {
  test("error wins over context when both match; all matches are reported, errors first", () => {
    const ev = evaluate(DEFAULT_RULES, "bash", shell(`calc.py:3: RuntimeWarning: divide by zero encountered in log\n${TRACEBACK}`));
    expect(ev.verdict).toBe("block");
    expect(ev.errors.map((m) => m.ruleId)).toEqual(["python-traceback-with-success"]);
    expect(ev.contexts.map((m) => m.ruleId)).toEqual(["numpy-runtime-warning"]);
    expect(ev.matches.map((m) => m.ruleId)).toEqual(["python-traceback-with-success", "numpy-runtime-warning"]);
  });

  test("context only gives a notice; nothing gives pass", () => {
    expect(evaluate(DEFAULT_RULES, "bash", shell("x.py:1: RuntimeWarning: overflow encountered in exp\n")).verdict).toBe("notice");
    expect(evaluate(DEFAULT_RULES, "bash", shell("all good\n")).verdict).toBe("pass");
    expect(evaluate(DEFAULT_RULES, "view", shell(TRACEBACK)).verdict).toBe("pass");
  });

  test("evaluation keeps no state: the same input gives the same answer every time", () => {
    const result = shell(`a\n${TRACEBACK}`);
    const first = evaluate(DEFAULT_RULES, "bash", result);
    for (let i = 0; i < 3; i++) expect(evaluate(DEFAULT_RULES, "bash", result)).toEqual(first);
  });

  test("ANSI colour codes do not hide a signature and do not reach the excerpt", () => {
    const ev = evaluate(DEFAULT_RULES, "bash", shell("\x1b[1;31mnpm ERR!\x1b[0m code E404\n"));
    expect(ev.errors.map((m) => m.ruleId)).toEqual(["npm-err-with-success"]);
    expect(ev.errors[0].excerpt).toBe("npm ERR! code E404\n");
  });

  test("match records carry action, message, source and provenance", () => {
    const set = loadRules({ rules: [{ id: "mine", pattern: "boom", action: "context", message: "Look at boom." }] });
    expect(evaluate(set, "bash", shell("boom")).matches).toEqual([
      { ruleId: "mine", action: "context", message: "Look at boom.", excerpt: "boom", source: "text", builtin: false },
    ]);
  });
});

describe("evaluate: structured values (scanValue)", () => {
  const withValue = loadRules({ scanValue: true });

  test("a traceback hidden in a value's stderr field is found only with scanValue", () => {
    const value = { exitCode: 0, stdout: "done\n", stderr: TRACEBACK };
    expect(evaluate(DEFAULT_RULES, "bash", shell("done\n"), value).matches).toEqual([]);
    const ev = evaluate(withValue, "bash", shell("done\n"), value);
    expect(ev.errors.map((m) => [m.ruleId, m.source])).toEqual([["python-traceback-with-success", "value"]]);
  });

  test("user rules can match the value's JSON", () => {
    const set = loadRules({ scanValue: true, builtinRules: false, rules: [{ id: "nonzero", pattern: '"exitCode":[1-9]', action: "error", message: "m" }] });
    expect(evaluate(set, "bash", shell("ok"), { exitCode: 3 }).verdict).toBe("block");
    expect(evaluate(set, "bash", shell("ok"), { exitCode: 0 }).verdict).toBe("pass");
  });

  test("cyclic, BigInt and throwing values do not break evaluation", () => {
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    expect(evaluate(withValue, "bash", shell("ok"), cyclic).verdict).toBe("pass");
    expect(evaluate(withValue, "bash", shell("ok"), { n: 10n }).verdict).toBe("pass");
    const hostile = {
      toJSON() {
        throw new Error("no");
      },
    };
    expect(evaluate(withValue, "bash", shell(TRACEBACK), hostile).errors.map((m) => m.source)).toEqual(["text"]);
  });

  test("a huge value is scanned within the budget and reported as cut", () => {
    const set = loadRules({ scanValue: true, maxScanChars: 4096 });
    const ev = evaluate(set, "bash", shell("ok"), { log: `${"x".repeat(10_000_000)}\nTraceback (most recent call last):\n` });
    expect(ev.matches).toEqual([]);
    expect(ev.scan.valueTruncated).toBe(true);
  });
});

describe("evaluate: huge outputs are scanned at head and tail", () => {
  // One ~50 MB output of ordinary log lines, built once (building it is the slow part):
  // a traceback in the head, a crash line in the middle, a missing command in the tail.
  const line = "2024-07-01T10:00:00Z step=1234 loss=0.123 lr=0.0003 ok\n";
  const half = line.repeat(Math.ceil(25_000_000 / line.length));
  const text = `${TRACEBACK}${half}Segmentation fault (core dumped)\n${half}bash: pandocc: command not found\n`;

  test("a 50 MB output: signatures in the head and tail are found, the middle is reported skipped", () => {
    expect(text.length).toBeGreaterThan(50_000_000);
    const ev = evaluate(DEFAULT_RULES, "bash", shell(text));
    expect(ev.errors.map((m) => m.ruleId)).toEqual(["python-traceback-with-success", "shell-command-not-found"]);
    expect(ev.scan.totalChars).toBe(text.length);
    expect(ev.scan.scannedChars).toBeLessThanOrEqual(DEFAULT_RULES.maxScanChars);
    expect(ev.scan.scannedChars).toBeGreaterThan(DEFAULT_RULES.maxScanChars / 2);
    const skipped = ev.scan.skipped!;
    expect(skipped.to - skipped.from).toBe(text.length - ev.scan.scannedChars);
    // The cuts fall on line boundaries, so neither window starts mid-line.
    expect(text[skipped.from - 1]).toBe("\n");
    expect(text[skipped.to - 1]).toBe("\n");
  });

  test("a failure marker after a huge output still counts", () => {
    const result: ToolResult = {
      isError: false,
      content: [
        { type: "text", text },
        { type: "text", text: "[exit code: 1]" },
      ],
    };
    const ev = evaluate(DEFAULT_RULES, "bash", result);
    expect(ev.failed).toBe(true);
    expect(ev.matches).toEqual([]);
  });

  test("windows span several content blocks as if joined with newlines", () => {
    const set = loadRules({ maxScanChars: 4096 });
    const result: ToolResult = {
      isError: false,
      content: [
        { type: "text", text: "x".repeat(1000) },
        { type: "text", text: `Traceback (most recent call last):\n${"y\n".repeat(5000)}` },
        { type: "text", text: "bash: zz: command not found" },
      ],
    };
    const ev = evaluate(set, "bash", result);
    expect(ev.errors.map((m) => m.ruleId)).toEqual(["python-traceback-with-success", "shell-command-not-found"]);
    expect(ev.scan.totalChars).toBe(result.content.map((b) => b.text).join("\n").length);
  });

  test("an output within the limit is scanned whole and nothing is skipped", () => {
    const ev = evaluate(DEFAULT_RULES, "bash", shell("a\nb\n"));
    expect(ev.scan).toEqual({ totalChars: 4, scannedChars: 4 });
  });
});
