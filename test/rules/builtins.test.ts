import { describe, expect, test } from "bun:test";
import { BUILTIN_RULES, evaluate } from "../../src/rules/mod.ts";
import { DEFAULT_RULES, matchedIds, shell } from "../helpers/rules.ts";

/**
 * Real signatures (as the tools print them, in realistic surrounding output)
 * and look-alikes that must stay quiet, per built-in rule.
 */
const CASES: Record<string, { fires: string[]; quiet: string[] }> = {
  "pandoc-missing-character": {
    fires: [
      "[WARNING] Missing character: There is no ₂ (U+2082) (U+2082) in font [lmroman10-regular]:mapping=tex-text;!\n",
      "This is XeTeX, Version 3.141592653-2.6-0.999995 (TeX Live 2023)\nMissing character: There is no ⁺ in font DejaVu Serif/OT:script=latn;language=dflt;!\nOutput written on report.pdf (3 pages).\n",
    ],
    quiet: [
      // grep hit: prefixed with its file and line
      "build.log:112:Missing character: There is no ₂ in font lmroman10-regular!\n",
      "README.md: the warning `[WARNING] Missing character: There is no X` means a glyph was dropped\n",
    ],
  },
  "python-traceback-with-success": {
    fires: [
      'Epoch 1/3\nTraceback (most recent call last):\n  File "/work/train.py", line 41, in <module>\n    main()\n  File "/work/train.py", line 37, in main\n    loss = model(batch)\nValueError: shapes (3,4) and (5,) not aligned\n',
      // coloured (rich / IPython) and indented (tox, nested runners)
      '\x1b[31mTraceback (most recent call last):\x1b[0m\n  File "x.py", line 1\n',
      'py311: commands[0]> python -m app\n    Traceback (most recent call last):\n      File "app.py", line 3\n',
    ],
    quiet: [
      "logs/app.log:88:Traceback (most recent call last):\n",
      '    print("Traceback (most recent call last):")\n',
      "The report says: Traceback (most recent call last): was printed twice\n",
    ],
  },
  "shell-command-not-found": {
    fires: [
      "bash: pandocc: command not found\n-rw-r--r-- 1 dev dev 0 Jul  1 10:02 out.pdf\n",
      "bash: line 1: pandocc: command not found\n",
      "./build.sh: line 12: pandocc: command not found\nbuild finished\n",
      "sh: 1: pandocc: not found\n",
      "/bin/sh: 1: pandocc: not found\n",
      "sh: pandocc: not found\n",
      "zsh: command not found: pandocc\n",
      "zsh:1: command not found: pandocc\n",
      "fish: Unknown command: pandocc\n",
      "sudo: pandocc: command not found\n",
      "bash: pandocc: command not found\r\n",
    ],
    quiet: [
      // output of `grep -r "command not found" logs/` and `grep -rn ...`
      "logs/ci.log:bash: pandocc: command not found\n",
      "logs/ci.log:12:sh: 1: foo: not found\n",
      // `set -x` trace of that grep
      "+ grep -r 'command not found' logs/\n",
      "Error: package 'left-pad' not found\n",
      "Error: command not found: foo in registry\n",
      "git: 'sttus' is not a git command. See 'git --help'.\n",
    ],
  },
  "windows-command-not-recognized": {
    fires: [
      "'pandocc' is not recognized as an internal or external command,\noperable program or batch file.\n",
      "pandocc : The term 'pandocc' is not recognized as the name of a cmdlet, function, script file, or operable program. Check the spelling of the name, or if a path was included, verify that the path is correct and try again.\nAt line:1 char:1\n+ pandocc in.md -o out.pdf; Get-ChildItem out.pdf\n+ ~~~~~~~\n    + CategoryInfo          : ObjectNotFound: (pandocc:String) [], CommandNotFoundException\n    + FullyQualifiedErrorId : CommandNotFoundException\n",
      "pandocc: The term 'pandocc' is not recognized as a name of a cmdlet, function, script file, or executable program.\nCheck the spelling of the name, or if a path was included, verify that the path is correct and try again.\n",
      "\x1b[31;1mpandocc: \x1b[31;1mThe term 'pandocc' is not recognized as a name of a cmdlet, function, script file, or executable program.\x1b[0m\n",
      "The term 'pandocc' is not recognized as the name of a cmdlet, function, script file, or operable program.\n",
    ],
    quiet: [
      // Select-String hits: file and line prefix
      "logs\\ci.log:3:'pandocc' is not recognized as an internal or external command,\n",
      "logs\\ci.log:7:pandocc : The term 'pandocc' is not recognized as the name of a cmdlet, function\n",
      "Note that 'foo' is not recognized as an internal or external command on Windows.\n",
    ],
  },
  "fatal-signal-with-success": {
    fires: [
      "Solving 1200 constraints...\nSegmentation fault (core dumped)\ndone\n",
      "Segmentation fault\n",
      "Bus error (core dumped)\n",
      "Aborted (core dumped)\n",
      "Floating point exception (core dumped)\n",
      "bash: line 1: 48213 Segmentation fault      (core dumped) ./solver\n",
      "./run.sh: line 5:  4321 Killed                  python train.py\nsaved\n",
      "bash: line 1: 77 Aborted                 ./check\n",
      "zsh: segmentation fault (core dumped)  ./solver\n",
    ],
    quiet: [
      "Aborted\n",
      "Aborted!\n",
      "Transaction Aborted by user.\n",
      "Bus error\n",
      "logs/run.log:3:Segmentation fault (core dumped)\n",
      "the run hit a Segmentation fault yesterday\n",
      "Segmentation fault handler installed\n",
      // `set -x` trace of an echo: the command line carries other text
      "+ echo 'Segmentation fault'\n",
    ],
  },
  "numpy-runtime-warning": {
    fires: [
      "calc.py:12: RuntimeWarning: invalid value encountered in divide\n  ratio = a / b\n[0.5 nan 0.25]\n",
      "model.py:8: RuntimeWarning: divide by zero encountered in log\n",
      "sim.py:30: RuntimeWarning: overflow encountered in exp\n",
    ],
    quiet: ["app.py:3: DeprecationWarning: datetime.utcnow() is deprecated\n", "app.py:9: RuntimeWarning: coroutine 'fetch' was never awaited\n"],
  },
  "powershell-native-command-error": {
    fires: [
      "python : Traceback (most recent call last):\nAt line:1 char:1\n+ python script.py 2>&1\n+ ~~~~~~~~~~~~~~~~~~~~~\n    + CategoryInfo          : NotSpecified: (Traceback (most recent call last)::String) [], RemoteException\n    + FullyQualifiedErrorId : NativeCommandError\n",
    ],
    quiet: ["    Directory: C:\\work\n\nMode  LastWriteTime  Length Name\n", "NativeCommandErrors are a PowerShell 5 quirk\n"],
  },
  "latex-undefined-references": {
    fires: [
      "LaTeX Warning: There were undefined references.\n",
      "LaTeX Warning: Citation `smith2020' on page 3 undefined on input line 45.\n",
      "LaTeX Warning: Reference `fig:arch' on page 2 undefined on input line 10.\n",
      "Package natbib Warning: Citation `jones' on page 1 undefined on input line 3.\n",
    ],
    quiet: ["LaTeX Warning: Label `fig:1' multiply defined.\n", "Output written on thesis.pdf (12 pages, 301022 bytes).\n"],
  },
  "latex-rerun-needed": {
    fires: [
      "LaTeX Warning: Label(s) may have changed. Rerun to get cross-references right.\n",
      "Package rerunfilecheck Warning: File `thesis.out' has changed.\n(rerunfilecheck)                Rerun to get outlines right\n",
      "Package biblatex Warning: Please (re)run Biber on the file:\n(biblatex)                thesis\n(biblatex)                and rerun LaTeX afterwards.\n",
    ],
    quiet: ["Latexmk: All targets (thesis.pdf) are up-to-date\n"],
  },
  "pandoc-could-not-fetch-resource": {
    fires: ["[WARNING] Could not fetch resource 'figures/plot.png': replacing image with description\n"],
    quiet: ["[WARNING] Duplicate identifier 'intro' at line 12 column 1\n"],
  },
  "no-such-file-with-success": {
    fires: ["cp: cannot stat 'out/report.pdf': No such file or directory\n"],
    quiet: ["'out/report.pdf' -> 'dist/report.pdf'\n"],
  },
  "permission-denied-with-success": {
    fires: ["rm: cannot remove 'build/cache': Permission denied\n", "open /etc/app.conf: permission denied\n"],
    quiet: ["removed 'build/cache/a.o'\n"],
  },
  "unicode-replacement-character": {
    fires: ["\uFFFD\uFFFD: ϵͳ\uFFFDҲ\uFFFD\uFFFD\uFFFDָ\uFFFD\uFFFD\uFFFD\uFFFD\uFFFDļ\uFFFD\uFFFD\n"],
    quiet: ["中文输出正常 — ünïcödé ✓ 🚀\n"],
  },
  "cuda-out-of-memory": {
    fires: [
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.65 GiB of which 1.02 GiB is free.\n",
      "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity; 6.50 GiB already allocated)\n",
      "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB\n",
      "RuntimeError: CUDA error: out of memory\nCUDA kernel errors might be asynchronously reported\n",
      "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[1024,1024,64]\n",
      "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 4294967296 bytes.\n",
    ],
    quiet: ["WARNING: caught CUDA out of memory at batch 12, retrying with batch size 16\n", "train.log:RuntimeError: CUDA out of memory.\n"],
  },
  "npm-err-with-success": {
    fires: [
      "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\n",
      "npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/left-padd - Not found\n",
    ],
    quiet: ["npm WARN deprecated inflight@1.0.6: This module is not supported\n\nadded 120 packages in 3s\n", "logs/ci.log:npm ERR! code E404\n"],
  },
  "test-runner-failures-with-success": {
    fires: [
      "FAILED tests/test_api.py::test_get - AssertionError\n========================= 2 failed, 10 passed in 1.23s =========================\n",
      "2 failed, 3 passed in 0.12s\n",
      "==================== 1 passed, 1 error in 0.10s ====================\n",
      "=========== 1 error in 0.05s ===========\n",
      "Tests:       1 failed, 5 passed, 6 total\n",
      "Test Suites: 1 failed, 2 passed, 3 total\n",
      "      Tests  1 failed | 3 passed (4)\n",
      " Test Files  1 failed | 2 passed (3)\n",
      " 3 pass\n 1 fail\n 9 expect() calls\nRan 4 tests across 2 files. [40.00ms]\n",
      "  3 passing (12ms)\n  2 failing\n",
      "--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got 1, want 2\nFAIL\nFAIL\texample.com/pkg\t0.012s\n",
      "test result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s\n",
      "Ran 4 tests in 0.002s\n\nFAILED (failures=1)\n",
      "FAILED | 3 passed | 1 failed (20ms)\n",
    ],
    quiet: [
      "===== 12 passed in 0.31s =====\n",
      " 12 pass\n 0 fail\n",
      "Tests:       6 passed, 6 total\n",
      "ok  \texample.com/pkg\t0.012s\n",
      "test result: ok. 4 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out\n",
      "Ran 4 tests in 0.002s\n\nOK\n",
      "ci.log:12:--- FAIL: TestParse (0.00s)\n",
      "retrying: 3 failed logins in a row\n",
    ],
  },
  "make-error-with-success": {
    fires: ["cc -o app main.o\nmake: *** [Makefile:5: build] Error 1\n", "make[1]: *** No rule to make target 'gen.c', needed by 'gen.o'.  Stop.\n"],
    quiet: ["make: Nothing to be done for 'all'.\n", "make[1]: Entering directory '/work/src'\n"],
  },
  "git-fatal-with-success": {
    fires: ["fatal: not a git repository (or any of the parent directories): .git\n"],
    quiet: ["Already up to date.\n", "notes.txt:fatal: is what git prints\n"],
  },
  "compiler-error-with-success": {
    fires: [
      "src/main.c:12:5: error: use of undeclared identifier 'x'\n",
      "src/main.c:1:10: fatal error: foo.h: No such file or directory\n",
      "src/app.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\n",
      "src/app.ts:3:7 - error TS2322: Type 'string' is not assignable to type 'number'.\n",
      "error[E0308]: mismatched types\n --> src/main.rs:4:18\n",
      'error: could not compile `app` (bin "app") due to 1 previous error\n',
    ],
    quiet: ["src/main.c:12:5: warning: unused variable 'y' [-Wunused-variable]\n"],
  },
  "no-space-left-on-device": {
    fires: ["cp: error writing 'data/out.bin': No space left on device\n", "OSError: [Errno 28] No space left on device: 'checkpoint.pt'\n"],
    quiet: ["Filesystem  Size  Used Avail Use% Mounted on\n/dev/sda1   100G   40G   60G  40% /\n"],
  },
};

describe("built-in rules", () => {
  test("every built-in has real signatures and look-alikes here", () => {
    expect(Object.keys(CASES).sort()).toEqual(BUILTIN_RULES.map((r) => r.id).sort());
    for (const [id, c] of Object.entries(CASES)) {
      expect({ id, fires: c.fires.length > 0, quiet: c.quiet.length > 0 }).toEqual({ id, fires: true, quiet: true });
    }
  });

  test("every built-in applies to shell tools only and only to results that reported success", () => {
    for (const rule of DEFAULT_RULES.rules) {
      expect({ id: rule.id, when: rule.when, tools: rule.tools }).toEqual({ id: rule.id, when: "success", tools: [] });
    }
  });

  for (const [id, { fires, quiet }] of Object.entries(CASES)) {
    describe(id, () => {
      test("fires on the real signature", () => {
        for (const text of fires) expect({ text, ids: matchedIds(text) }).toMatchObject({ text, ids: expect.arrayContaining([id]) });
      });
      test("stays quiet on look-alikes and quoted mentions", () => {
        for (const text of quiet) expect({ text, ids: matchedIds(text) }).toEqual({ text, ids: expect.not.arrayContaining([id]) });
      });
      test("stays quiet for a non-shell tool", () => {
        for (const text of fires) expect(matchedIds(text, { tool: "view" })).not.toContain(id);
      });
      test("stays quiet when the result already failed (isError or a failure marker)", () => {
        for (const text of fires) {
          expect(matchedIds(text, { isError: true })).not.toContain(id);
          expect(matchedIds(`${text}[exit code: 1]`)).not.toContain(id);
          expect(matchedIds(`${text}[timed out after 30000ms]`)).not.toContain(id);
        }
      });
      test("reports an excerpt containing the signature", () => {
        const ev = evaluate(DEFAULT_RULES, "bash", shell(fires[0]));
        const match = ev.matches.find((m) => m.ruleId === id);
        expect(match?.excerpt.length).toBeGreaterThan(0);
        expect(match?.action).toBe(DEFAULT_RULES.rules.find((r) => r.id === id)?.action as "error" | "context");
      });
    });
  }

  test("a clean build log matches nothing", () => {
    const clean =
      "$ npm run build\n\n> app@1.0.0 build\n> tsc -p .\n\nadded 0 packages in 1s\n===== 42 passed in 3.10s =====\nOutput written on thesis.pdf (12 pages).\n";
    expect(matchedIds(clean)).toEqual([]);
  });

  test("actions follow the spec (errors block, context notes)", () => {
    const actions = Object.fromEntries(DEFAULT_RULES.rules.map((r) => [r.id, r.action]));
    expect(actions).toMatchObject({
      "pandoc-missing-character": "error",
      "python-traceback-with-success": "error",
      "shell-command-not-found": "error",
      "windows-command-not-recognized": "error",
      "fatal-signal-with-success": "error",
      "numpy-runtime-warning": "context",
      "powershell-native-command-error": "context",
      "latex-undefined-references": "context",
      "latex-rerun-needed": "context",
      "pandoc-could-not-fetch-resource": "context",
      "no-such-file-with-success": "context",
      "permission-denied-with-success": "context",
      "unicode-replacement-character": "context",
      "cuda-out-of-memory": "error",
      "npm-err-with-success": "error",
      "test-runner-failures-with-success": "error",
    });
  });

  // A line that reproduces the real shape exactly cannot be told from the real
  // thing: `echo 'Segmentation fault'` prints exactly what bash prints for an
  // uncored crash. Pinned so a change in this trade-off is deliberate.
  test("an exact echo of a signature line still fires (known limit)", () => {
    expect(matchedIds("Segmentation fault\n")).toContain("fatal-signal-with-success");
    expect(matchedIds("bash: foo: command not found\n")).toContain("shell-command-not-found");
  });
});

/** Quantifiers applied to a group whose body is itself quantified: the classic catastrophic-backtracking shape. */
function nestedQuantifiers(source: string): string[] {
  const found: string[] = [];
  const stack: { start: number; quantified: boolean }[] = [{ start: 0, quantified: false }];
  let lastGroup: { start: number; quantified: boolean } | undefined;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    const quantifierHere = c === "*" || c === "+" || c === "?" || (c === "{" && /^\{\d+(,\d*)?\}/.test(source.slice(i)));
    if (c === "\\") {
      i++;
      lastGroup = undefined;
    } else if (c === "[") {
      for (i++; i < source.length && source[i] !== "]"; i++) if (source[i] === "\\") i++;
      lastGroup = undefined;
    } else if (c === "(") {
      stack.push({ start: i, quantified: false });
      lastGroup = undefined;
      if (source[i + 1] === "?") i += source[i + 2] === "<" && source[i + 3] !== "=" && source[i + 3] !== "!" ? source.indexOf(">", i) - i : 2;
    } else if (c === ")") {
      lastGroup = stack.pop();
      if (lastGroup?.quantified) stack[stack.length - 1].quantified = true;
    } else if (quantifierHere) {
      if (lastGroup?.quantified) found.push(source.slice(lastGroup.start, i + 1));
      stack[stack.length - 1].quantified = true;
      if (c === "{") i = source.indexOf("}", i);
      if (source[i + 1] === "?") i++; // lazy modifier
      lastGroup = undefined;
    } else {
      lastGroup = undefined;
    }
  }
  return found;
}

/** The pattern split at `|` outside groups, classes and escapes. */
function topLevelAlternatives(source: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      i++;
    } else if (c === "[") {
      for (i++; i < source.length && source[i] !== "]"; i++) if (source[i] === "\\") i++;
    } else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) {
      parts.push(source.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(source.slice(from));
  return parts;
}

describe("built-in patterns are linear-time-safe", () => {
  test("the nested-quantifier detector catches the classic shapes", () => {
    expect(nestedQuantifiers("(a+)+")).toEqual(["(a+)+"]);
    expect(nestedQuantifiers("^(?:x\\d*)?y")).toEqual(["(?:x\\d*)?"]);
    expect(nestedQuantifiers("(?:ab)*c+(?:d|e)?")).toEqual([]);
    expect(nestedQuantifiers("[(a+)]+")).toEqual([]);
  });

  test("no built-in pattern nests quantifiers", () => {
    for (const rule of BUILTIN_RULES) expect({ id: rule.id, nested: nestedQuantifiers(rule.pattern ?? "") }).toEqual({ id: rule.id, nested: [] });
  });

  test("the alternative splitter respects groups, classes and escapes", () => {
    expect(topLevelAlternatives("^a(?:b|c)|^[|]\\|d")).toEqual(["^a(?:b|c)", "^[|]\\|d"]);
  });

  test("no error rule is unanchored: each alternative starts at a line start", () => {
    for (const rule of BUILTIN_RULES.filter((r) => r.action === "error")) {
      expect(rule.flags).toBe("m");
      for (const alternative of topLevelAlternatives(rule.pattern ?? "")) {
        expect({ id: rule.id, alternative }).toMatchObject({ alternative: expect.stringMatching(/^\^/) });
      }
    }
  });

  // Long hostile lines must neither hang nor confuse the rules: nothing fires
  // on them, and a real signature after them is still found.
  const N = 100_000;
  const hostile = [
    " ".repeat(N),
    "\t".repeat(N),
    "=".repeat(N),
    "1".repeat(N),
    "a".repeat(N),
    ":".repeat(N),
    "'".repeat(N),
    "-".repeat(N),
    "\x1b[".repeat(N / 2),
    "x: ".repeat(N / 3),
    "bash: ".repeat(N / 6),
    "bash: line 1: ".repeat(N / 14),
    "LaTeX Warning: Citation ".repeat(N / 24),
    "Segmentation fault ".repeat(N / 19),
    "= 1 passed, ".repeat(N / 12),
    " 1 fai".repeat(N / 6),
    "[WARNING] ".repeat(N / 10),
    "Traceback (most recent call last)".repeat(N / 33),
    "The term 'x' ".repeat(N / 14),
    "a:1:2: ".repeat(N / 7),
  ];

  test("hostile lines match nothing", () => {
    for (const line of hostile) expect({ line: line.slice(0, 24), ids: matchedIds(`${line}\n`) }).toEqual({ line: line.slice(0, 24), ids: [] });
  });

  test("a real signature after a hostile line is still found", () => {
    for (const line of hostile) {
      const ids = matchedIds(`${line}\nbash: pandocc: command not found\nTraceback (most recent call last):\n`);
      expect(ids).toContain("shell-command-not-found");
      expect(ids).toContain("python-traceback-with-success");
    }
  });
});
