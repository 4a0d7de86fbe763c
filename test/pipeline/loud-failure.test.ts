import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { createPipeline, installLoudFailure, type Pipeline } from "../../src/pipeline/mod.ts";
import { ok, resultText, type ToolResult } from "../../src/result.ts";
import { BUILTIN_RULES, loadRules, RuleConfigError, type RuleInput } from "../../src/rules/mod.ts";
import { fakeCtx, fakeTool } from "../helpers/pipeline-fakes.ts";

const ORIGINAL_FOLLOWS = "The original tool output follows unchanged.";

/** Tools that print whatever result the test hands them, named like the real ones. */
function host(): { p: Pipeline; call: (tool: "bash" | "view", result: ToolResult) => Promise<ToolResult> } {
  let next: ToolResult = ok("");
  const bash = fakeTool("bash", "exec", v.object({ command: v.string() }), async () => next);
  const view = fakeTool("view", "read", v.object({ path: v.string() }), async () => next);
  const p = createPipeline([bash, view]);
  return {
    p,
    call(tool, result) {
      next = result;
      return p.call(tool, tool === "bash" ? { command: "x" } : { path: "x" }, fakeCtx());
    },
  };
}

const text = (t: string, isError = false): ToolResult =>
  isError ? { isError, code: "FS_IO_ERROR", content: [{ type: "text", text: t }] } : { isError, content: [{ type: "text", text: t }] };

// One realistic output per built-in rule, as a command prints it with a masked exit status.
const SAMPLES: Record<string, string> = {
  "pandoc-missing-character":
    "[WARNING] Missing character: There is no ₂ (U+2082) in font [lmroman10-regular]:mapping=tex-text;!\nOutput written to report.pdf\n",
  "python-traceback-with-success":
    'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n    main()\nValueError: learning rate must be positive\n',
  "shell-command-not-found": "building docs\nbash: line 1: pandocc: command not found\ndone\n",
  "windows-command-not-recognized": "'pandocc' is not recognized as an internal or external command,\noperable program or batch file.\n",
  "fatal-signal-with-success": "running solver\nbash: line 1: 48213 Segmentation fault      (core dumped) ./solver\nfinished\n",
  "numpy-runtime-warning": "calc.py:12: RuntimeWarning: invalid value encountered in divide\n  r = a / b\nmean=nan\n",
  "powershell-native-command-error":
    "git : Cloning into 'repo'...\n    + CategoryInfo          : NotSpecified: (Cloning into 'repo'...:String) [], RemoteException\n    + FullyQualifiedErrorId : NativeCommandError\n",
  "latex-undefined-references": "LaTeX Warning: There were undefined references.\nOutput written on thesis.pdf (42 pages).\n",
  "latex-rerun-needed": "LaTeX Warning: Label(s) may have changed. Rerun to get cross-references right.\n",
  "pandoc-could-not-fetch-resource": "[WARNING] Could not fetch resource 'figures/plot.png': replacing image with description\n",
  "no-such-file-with-success": "cp: cannot stat 'out/report.pdf': No such file or directory\n",
  "permission-denied-with-success": "rm: cannot remove 'build/cache': Permission denied\n",
  "unicode-replacement-character": "\uFFFD\uFFFD\u0132\uFFFD\uFFFD\n",
  "cuda-out-of-memory": "epoch 1\nRuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity)\nsaved checkpoint\n",
  "npm-err-with-success": "npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/lefpad\n",
  "test-runner-failures-with-success": "collected 12 items\n\n========================= 2 failed, 10 passed in 1.23s =========================\n",
  "make-error-with-success": "cc -c gen.c\nmake: *** [Makefile:5: build] Error 1\n",
  "git-fatal-with-success": "fatal: pathspec 'docs/x.md' did not match any files\n",
  "compiler-error-with-success": "src/main.c:12:5: error: use of undeclared identifier 'x'\n1 error generated.\n",
  "no-space-left-on-device": "cp: error writing 'data/out.bin': No space left on device\n",
};

describe("every built-in rule through a pipeline", () => {
  test("each built-in has a sample here", () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(BUILTIN_RULES.map((r) => r.id).sort());
  });

  for (const rule of BUILTIN_RULES) {
    test(`${rule.id} (${rule.action})`, async () => {
      const h = host();
      installLoudFailure(h.p);
      const original = text(SAMPLES[rule.id]);
      const result = await h.call("bash", original);
      if (rule.action === "error") {
        expect(result.isError).toBe(true);
        expect(result.code).toBe("RULE_BLOCKED");
        expect(result.content[0].text).toContain(`- ${rule.id} (error): ${rule.message}`);
        expect(result.content.slice(1)).toEqual(original.content);
      } else {
        expect(result.isError).toBe(false);
        expect(result.content).toEqual(original.content);
        expect(result.notices).toHaveLength(1);
        expect(result.notices?.[0].text).toContain(`- ${rule.id} (context): ${rule.message}`);
        expect(result.notices?.[0].source).toMatchObject({ kind: "plugin", plugin: "loud-failure" });
      }
    });
  }
});

describe("blocking", () => {
  test("the blocked result explains first and keeps the original output byte for byte after it", async () => {
    const h = host();
    installLoudFailure(h.p);
    // Trailing spaces, CRLF, a NUL and two blocks: nothing may be normalised.
    const original: ToolResult = {
      isError: false,
      content: [
        { type: "text", text: "step 1 \r\nTraceback (most recent call last):\r\n  File \"a.py\", line 1\r\nKeyError: 'x'\u0000 \n" },
        { type: "text", text: "second block\n\n" },
      ],
    };
    const result = await h.call("bash", original);
    expect(result.code).toBe("RULE_BLOCKED");
    expect(result.content.slice(1)).toEqual(original.content);
    const header = result.content[0].text;
    expect(header.startsWith('[loud-failure] Tool "bash" reported success')).toBe(true);
    expect(header.endsWith(`\n${ORIGINAL_FOLLOWS}`)).toBe(true);
    expect(resultText(result)).toBe(`${header}\n${resultText(original)}`);
  });

  test("an error rule wins over a context rule: blocked, both named, no notice", async () => {
    const h = host();
    installLoudFailure(h.p);
    const out = `cp: cannot stat 'a.csv': No such file or directory\n${SAMPLES["python-traceback-with-success"]}`;
    const result = await h.call("bash", text(out));
    expect(result.code).toBe("RULE_BLOCKED");
    const header = result.content[0].text;
    expect(header).toContain("matched a rule (python-traceback-with-success)");
    // The context match is still shown, after the error that decided the block.
    expect(header.indexOf("- python-traceback-with-success (error)")).toBeLessThan(header.indexOf("- no-such-file-with-success (context)"));
    expect(result.notices).toBeUndefined();
  });

  test("notices the tool already attached survive a block", async () => {
    const h = host();
    installLoudFailure(h.p);
    const note = { text: "from the tool", source: { kind: "tool" as const } };
    const result = await h.call("bash", { ...text(SAMPLES["make-error-with-success"]), notices: [note] });
    expect(result.code).toBe("RULE_BLOCKED");
    expect(result.notices).toEqual([note]);
  });

  test("a clean output passes untouched", async () => {
    const h = host();
    installLoudFailure(h.p);
    const original = text("compiled 42 files\nall tests passed\n");
    expect(await h.call("bash", original)).toEqual(original);
  });
});

describe("which results a rule sees", () => {
  test("shell rules do not scan a non-shell tool", async () => {
    const h = host();
    installLoudFailure(h.p);
    // A file that contains a traceback is just a file.
    const original = text(SAMPLES["python-traceback-with-success"]);
    expect(await h.call("view", original)).toEqual(original);
  });

  test('a rule with tools ["*"] applies to view too', async () => {
    const h = host();
    installLoudFailure(h.p, {
      rules: [{ id: "merge-conflict", pattern: "^<{7} ", flags: "m", tools: ["*"], action: "context", message: "Unresolved merge conflict." }],
    });
    const result = await h.call("view", text("a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> main\n"));
    expect(result.isError).toBe(false);
    expect(result.notices?.[0].text).toContain('Notice for tool "view"');
    expect(result.notices?.[0].text).toContain("merge-conflict");
  });

  test("shellTools decides which tools the default rules scan", async () => {
    const h = host();
    installLoudFailure(h.p, { shellTools: ["view"] });
    expect((await h.call("view", text(SAMPLES["make-error-with-success"]))).code).toBe("RULE_BLOCKED");
    expect((await h.call("bash", text(SAMPLES["make-error-with-success"]))).isError).toBe(false);
  });

  test("a failure marker makes the result failed: success-only rules stay quiet", async () => {
    const h = host();
    installLoudFailure(h.p);
    for (const marker of ["[exit code: 1]", "[timed out after 300ms]", "[killed by signal: SIGKILL]", "[cancelled]"]) {
      const original = text(`${SAMPLES["python-traceback-with-success"]}${marker}`);
      expect(await h.call("bash", original)).toEqual(original);
    }
  });

  test("an exit code 0 marker is not a failure", async () => {
    const h = host();
    installLoudFailure(h.p);
    const result = await h.call("bash", text(`${SAMPLES["python-traceback-with-success"]}[exit code: 0]`));
    expect(result.code).toBe("RULE_BLOCKED");
  });

  test("when: error rules see failed results only (a marker or isError)", async () => {
    const h = host();
    installLoudFailure(h.p, {
      rules: [
        {
          id: "oom-killed",
          pattern: "^Killed$",
          flags: "m",
          when: "error",
          action: "context",
          message: "The kernel's out-of-memory killer stopped the process; use less memory.",
        },
      ],
    });
    const failed = await h.call("bash", text("loading\nKilled\n[exit code: 137]"));
    expect(failed.notices?.[0].text).toContain("oom-killed");
    const errored = await h.call("bash", text("Killed\n", true));
    expect(errored.code).toBe("FS_IO_ERROR");
    expect(errored.notices?.[0].text).toContain("oom-killed");
    const succeeded = text("Killed\n");
    expect(await h.call("bash", succeeded)).toEqual(succeeded);
  });

  test("an error rule on a failed result blocks with the failure wording", async () => {
    const h = host();
    installLoudFailure(h.p, {
      rules: [{ id: "disk-quota", pattern: "Disk quota exceeded", when: "error", action: "error", message: "The disk quota is full." }],
    });
    const original = text("write: Disk quota exceeded\n[exit code: 1]");
    const result = await h.call("bash", original);
    expect(result.code).toBe("RULE_BLOCKED");
    expect(result.content[0].text.startsWith('[loud-failure] Tool "bash" failed')).toBe(true);
    expect(result.content.slice(1)).toEqual(original.content);
  });
});

describe("composition with other listeners", () => {
  test("a later post listener sees the notice", async () => {
    const h = host();
    installLoudFailure(h.p);
    let seen: ToolResult | undefined;
    h.p.onPostExecute((_call, result, next) => {
      seen = result;
      return next();
    });
    const result = await h.call("bash", text(SAMPLES["no-such-file-with-success"]));
    expect(seen?.notices?.[0].text).toContain("no-such-file-with-success");
    expect(result.notices).toEqual(seen?.notices);
  });

  test("a later listener's enrichment reaches the caller alongside the notice", async () => {
    const h = host();
    installLoudFailure(h.p);
    const audit = { text: "audited", source: { kind: "server" as const } };
    h.p.onPostExecute(async (_call, result, next) => next({ ...result, notices: [...(result.notices ?? []), audit] }));
    const result = await h.call("bash", text(SAMPLES["no-such-file-with-success"]));
    expect(result.notices?.map((n) => n.text)).toEqual([expect.stringContaining("no-such-file-with-success"), "audited"]);
  });

  test("a listener at the default order registered first cannot end the chain before the rules", async () => {
    const h = host();
    h.p.onPostExecute((_call, result) => result); // ends the chain without next()
    installLoudFailure(h.p);
    expect((await h.call("bash", text(SAMPLES["npm-err-with-success"]))).code).toBe("RULE_BLOCKED");
  });

  test("a block ends the chain: later listeners do not see the result", async () => {
    const h = host();
    installLoudFailure(h.p);
    let ran = false;
    h.p.onPostExecute((_call, _result, next) => {
      ran = true;
      return next();
    });
    expect((await h.call("bash", text(SAMPLES["npm-err-with-success"]))).code).toBe("RULE_BLOCKED");
    expect(ran).toBe(false);
  });

  test("after the remover runs, outputs pass untouched", async () => {
    const h = host();
    const remove = installLoudFailure(h.p);
    expect((await h.call("bash", text(SAMPLES["npm-err-with-success"]))).code).toBe("RULE_BLOCKED");
    remove();
    const blocked = text(SAMPLES["npm-err-with-success"]);
    const noticed = text(SAMPLES["no-such-file-with-success"]);
    expect(await h.call("bash", blocked)).toEqual(blocked);
    expect(await h.call("bash", noticed)).toEqual(noticed);
  });
});

describe("installation", () => {
  const broken = (rule: Partial<RuleInput>): unknown => ({
    rules: [
      { id: "ok-rule", pattern: "x", action: "context", message: "m" },
      { action: "error", message: "m", pattern: "x", ...rule },
    ],
  });

  const cases: Array<[string, unknown, string, RegExp]> = [
    ["an invalid regex", broken({ id: "bad-regex", pattern: "(unclosed" }), "bad-regex", /invalid pattern/],
    ["a duplicate id", broken({ id: "ok-rule" }), "ok-rule", /duplicate id/],
    ["the g flag", broken({ id: "global", flags: "g" }), "global", /flag "g" is refused/],
  ];
  for (const [what, config, id, problem] of cases) {
    test(`${what} fails installation with RuleConfigError naming the rule, and registers nothing`, async () => {
      const h = host();
      let thrown: unknown;
      try {
        installLoudFailure(h.p, config);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(RuleConfigError);
      expect((thrown as RuleConfigError).ruleId).toBe(id);
      expect((thrown as RuleConfigError).message).toContain(`rule "${id}"`);
      expect((thrown as RuleConfigError).problem).toMatch(problem);
      const original = text(SAMPLES["npm-err-with-success"]);
      expect(await h.call("bash", original)).toEqual(original);
    });
  }

  test("a broken top-level setting fails installation too", () => {
    expect(() => installLoudFailure(host().p, { shellTool: ["bash"] })).toThrow(RuleConfigError);
    expect(() => installLoudFailure(host().p, null)).toThrow(RuleConfigError);
  });

  test("accepts a table from loadRules, including an empty one", async () => {
    const h = host();
    installLoudFailure(h.p, loadRules({ builtinRules: false, rules: [{ id: "todo", pattern: "TODO", action: "error", message: "m" }] }));
    expect((await h.call("bash", text("TODO\n"))).code).toBe("RULE_BLOCKED");
    // Without this table's only rule, the built-ins did not load: an npm error passes.
    const npm = text(SAMPLES["npm-err-with-success"]);
    expect(await h.call("bash", npm)).toEqual(npm);

    const empty = host();
    installLoudFailure(empty.p, loadRules({ builtinRules: false }));
    expect(await empty.call("bash", npm)).toEqual(npm);
  });

  test("a written configuration that spells every setting and no rules is not mistaken for an empty table", async () => {
    const h = host();
    installLoudFailure(h.p, { rules: [], shellTools: ["bash"], excerptChars: 240, maxScanChars: 1048576, scanValue: false });
    expect((await h.call("bash", text(SAMPLES["npm-err-with-success"]))).code).toBe("RULE_BLOCKED");
  });
});
