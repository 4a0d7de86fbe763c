import type { RuleInput } from "./schema.ts";

/*
 * The built-in table. Every entry is a failure that was seen hiding behind a
 * successful exit status; the comment above each rule shows the real line it
 * catches.
 *
 * Pattern discipline (checked by test/rules-builtins.test.ts):
 * - no quantifier applied to a group that itself contains a quantifier, and no
 *   two adjacent quantifiers over overlapping characters, so matching stays
 *   linear on adversarial lines;
 * - error rules are anchored at a line start (`m` flag) to the exact shape the
 *   tool prints, so a mention inside other text (a grep hit prefixed with its
 *   file name, a command line, prose) does not fire. A line that reproduces the
 *   real shape verbatim (`echo 'Segmentation fault'`, `grep -h`) cannot be told
 *   apart and does fire;
 * - unanchored patterns start with a literal and use bounded gaps only.
 * Text is matched after ANSI escape sequences are removed, so coloured output
 * needs no special casing here.
 */

/** One source matching any alternative at a line start; one `^` for all is cheaper per position than one each. */
function atLineStart(alternatives: string[]): string {
  return `^(?:${alternatives.join("|")})`;
}

/** Rules loaded before user rules unless `builtinRules: false`. All `when: success`, shell tools. */
export const BUILTIN_RULES: readonly RuleInput[] = Object.freeze([
  {
    // [WARNING] Missing character: There is no ₂ (U+2082) in font [lmroman10-regular]:mapping=tex-text;!
    // Missing character: There is no ₂ in font DejaVu Serif/OT:script=latn;language=dflt;!
    id: "pandoc-missing-character",
    pattern: "^(?:\\[WARNING\\] )?Missing character: There is no ",
    flags: "m",
    action: "error",
    message:
      "The PDF engine dropped one or more glyphs: the produced document is missing characters even though the exit code was 0. Replace the character (for example write SpO2 instead of a subscript digit) or switch to a font that has it, then rebuild and check the output for this warning again.",
  },
  {
    // Traceback (most recent call last):        <- scrolled past `python x.py | tail -n 20`
    //   File "train.py", line 3, in <module>
    id: "python-traceback-with-success",
    pattern: "^[ \\t]*Traceback \\(most recent call last\\):",
    flags: "m",
    action: "error",
    message:
      "A Python traceback appeared although the command reported success (a pipe, `;` or `|| true` supplied the exit status). The script raised an exception; its work is incomplete. Read the traceback, fix the cause, and rerun without masking the exit status (for example `set -o pipefail`).",
  },
  {
    // bash: pandocc: command not found                (bash -c, interactive)
    // bash: line 1: pandocc: command not found       (bash -c with a script)
    // ./build.sh: line 12: pandocc: command not found
    // sh: 1: pandocc: not found                       (dash)
    // sh: pandocc: not found                          (busybox ash)
    // zsh: command not found: pandocc
    // fish: Unknown command: pandocc
    id: "shell-command-not-found",
    pattern: atLineStart([
      "[^\\s:]+: [^:\\n]+: command not found[ \\t]*$",
      "[^\\s:]+: line \\d+: [^:\\n]+: command not found[ \\t]*$",
      "[^\\s:]+: \\d+: [^:\\n]+: not found[ \\t]*$",
      "[^\\s:]*sh: [^:\\n]+: not found[ \\t]*$",
      "zsh:\\d*:? ?command not found: \\S",
      "fish: Unknown command:? \\S",
    ]),
    flags: "m",
    action: "error",
    message:
      "The shell could not find a command, but a later command in the same line supplied a successful exit status. Whatever that command should have done did not happen. Check the spelling or install the program, then rerun the whole sequence.",
  },
  {
    // 'pandocc' is not recognized as an internal or external command,
    // pandocc : The term 'pandocc' is not recognized as the name of a cmdlet, function, script file, or operable program.
    // pandocc: The term 'pandocc' is not recognized as a name of a cmdlet, function, script file, or executable program.
    id: "windows-command-not-recognized",
    pattern: atLineStart([
      "'[^'\\n]+' is not recognized as an internal or external command",
      "[^\\n:']{0,200}: ?The term '[^'\\n]+' is not recognized as (?:a|the) name of a cmdlet",
      "The term '[^'\\n]+' is not recognized as (?:a|the) name of a cmdlet",
    ]),
    flags: "m",
    action: "error",
    message:
      "Windows could not find a command, but the overall call still reported success. Whatever that command should have done did not happen. Check the spelling or install the program (and check PATH), then rerun.",
  },
  {
    // Segmentation fault (core dumped)
    // Bus error (core dumped)          Aborted (core dumped)
    // bash: line 1: 48213 Segmentation fault      (core dumped) ./solver
    // bash: line 1:  4321 Killed                  python train.py     (the OOM killer)
    // zsh: segmentation fault (core dumped)  ./solver
    // A plain "Aborted" line is NOT a crash report (many tools print it on a user cancel).
    id: "fatal-signal-with-success",
    pattern: atLineStart([
      "Segmentation fault(?: \\(core dumped\\))?[ \\t]*$",
      "(?:Bus error|Aborted|Illegal instruction|Floating point exception|Trace/breakpoint trap) \\(core dumped\\)[ \\t]*$",
      "[^\\s:]+: line \\d+: +\\d+ (?:Segmentation fault|Bus error|Aborted|Killed|Terminated|Illegal instruction|Floating point exception)(?: |$)",
      "zsh: (?:segmentation fault|bus error|abort|illegal hardware instruction|killed)(?: |$)",
    ]),
    flags: "m",
    action: "error",
    message:
      "A process was killed by a signal (a crash, an abort, or the out-of-memory killer) although the command reported success. Its work is incomplete. Find which command crashed, fix the cause, and rerun it on its own so its exit status is not masked.",
  },
  {
    // calc.py:12: RuntimeWarning: invalid value encountered in divide
    // calc.py:8: RuntimeWarning: divide by zero encountered in log
    id: "numpy-runtime-warning",
    pattern: "RuntimeWarning: (?:invalid value|divide by zero|overflow) encountered",
    action: "context",
    message:
      "NumPy raised a RuntimeWarning about NaN, division by zero, or overflow. Downstream numbers may be NaN or inf while the exit code stays 0. Check the affected arrays before using the result.",
  },
  {
    //     + FullyQualifiedErrorId : NativeCommandError
    id: "powershell-native-command-error",
    pattern: "\\bNativeCommandError\\b",
    action: "context",
    message:
      "PowerShell wrapped a native program's stderr as a NativeCommandError. The program may still have succeeded (PowerShell 5.1 does this for any stderr output with 2>&1), or it may have failed. Check the program's own exit code ($LASTEXITCODE) before deciding.",
  },
  {
    // LaTeX Warning: There were undefined references.
    // LaTeX Warning: Citation `smith2020' on page 3 undefined on input line 45.
    // Package natbib Warning: Citation `smith2020' on page 3 undefined on input line 45.
    id: "latex-undefined-references",
    pattern: "(?:LaTeX|Package natbib) Warning: (?:There were undefined (?:references|citations)|(?:Citation|Reference) [^\\n]{1,300}? undefined)",
    action: "context",
    message:
      "LaTeX reported undefined references or citations; the document contains ?? or [?] placeholders. Check the labels and bibliography keys (and run bibtex/biber), then rebuild.",
  },
  {
    // LaTeX Warning: Label(s) may have changed. Rerun to get cross-references right.
    // Package rerunfilecheck Warning: File `thesis.out' has changed.
    // Package biblatex Warning: Please (re)run Biber on the file:
    id: "latex-rerun-needed",
    pattern: "Rerun to get (?:cross-references|outlines|citations) right|Package rerunfilecheck Warning|Please \\(re\\)run Biber",
    action: "context",
    message:
      "LaTeX asked for another run: cross-references, outlines or citations in the output are stale. Rerun the build (latexmk does this automatically) before relying on the document.",
  },
  {
    // [WARNING] Could not fetch resource 'figures/plot.png': replacing image with description
    id: "pandoc-could-not-fetch-resource",
    pattern: "Could not fetch resource",
    action: "context",
    message:
      "pandoc could not load a resource (usually an image) and replaced it with its description; the output is missing that content. Check the path relative to the working directory or --resource-path, then rebuild.",
  },
  {
    // cp: cannot stat 'out/report.pdf': No such file or directory
    id: "no-such-file-with-success",
    pattern: "No such file or directory",
    action: "context",
    message:
      "Some command could not find a file or directory, though the call reported success. Check whether the missing path mattered for what you were doing before relying on the result.",
  },
  {
    // rm: cannot remove 'build/cache': Permission denied
    // open /etc/app.conf: permission denied
    id: "permission-denied-with-success",
    pattern: "[Pp]ermission denied",
    action: "context",
    message: "Some command was denied permission, though the call reported success. Check whether that step mattered before relying on the result.",
  },
  {
    // 中文 printed by a GBK console as "��Ĳ���"
    id: "unicode-replacement-character",
    pattern: "\\uFFFD",
    action: "context",
    message:
      "The output contains U+FFFD replacement characters: some bytes were not valid in the decoding used (often a code page mismatch such as GBK vs UTF-8, or a binary file). The text shown is corrupted; re-run with a UTF-8 encoding or inspect the bytes before trusting it.",
  },
  {
    // torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.65 GiB ...
    // RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity; ...)
    // RuntimeError: CUDA error: out of memory
    // tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with shape[1024,1024]
    // jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 4294967296 bytes.
    id: "cuda-out-of-memory",
    pattern: atLineStart([
      "(?:RuntimeError|torch\\.OutOfMemoryError|torch\\.cuda\\.OutOfMemoryError): CUDA out of memory",
      "RuntimeError: CUDA error: out of memory",
      "[\\w.]*ResourceExhaustedError: [^\\n]{0,200}OOM when allocating",
      "[\\w.]*XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory",
    ]),
    flags: "m",
    action: "error",
    message:
      "The GPU ran out of memory, but the call reported success (the error was caught, logged, or masked by a pipe). Whatever this run was meant to produce is incomplete. Reduce the batch size or free GPU memory, then rerun.",
  },
  {
    // npm ERR! code ERESOLVE            (npm 6-9)
    // npm error code E404               (npm 10+)   e.g. after `npm install || true` or `npm ci; ls`
    id: "npm-err-with-success",
    pattern: "^npm (?:ERR!|error)(?: |$)",
    flags: "m",
    action: "error",
    message:
      "npm reported an error, but the call reported success (a later command or `|| true` supplied the exit status). The install or script did not complete. Read the npm error, fix it, and rerun.",
  },
  {
    // ========================= 2 failed, 10 passed in 1.23s =========================   (pytest)
    // ==================== 1 passed, 1 error in 0.10s ====================              (pytest collection error)
    // Tests:       1 failed, 5 passed, 6 total                                          (jest)
    //       Tests  1 failed | 3 passed (4)                                               (vitest)
    //  1 fail                                                                           (bun test)
    //   2 failing                                                                       (mocha)
    // --- FAIL: TestParse (0.00s)   /   FAIL\texample.com/pkg\t0.012s                   (go test)
    // test result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out    (cargo test)
    // FAILED (failures=1)                                                               (python -m unittest)
    // FAILED | 3 passed | 1 failed (20ms)                                               (deno test)
    id: "test-runner-failures-with-success",
    pattern: atLineStart([
      "=* ?[1-9]\\d* failed(?:,| in )",
      "=* ?[^\\n=]{0,200}, [1-9]\\d* errors? in [\\d.]+s\\b",
      "=* ?[1-9]\\d* errors? in [\\d.]+s\\b",
      " *(?:Tests:|Test Suites:|Test Files|Tests) +[1-9]\\d* failed\\b",
      " *[1-9]\\d* fail[ \\t]*$",
      " +[1-9]\\d* failing[ \\t]*$",
      "--- FAIL: ",
      "FAIL\\t",
      "test result: FAILED\\b",
      "FAILED \\((?:failures|errors)=[1-9]",
      "FAILED \\| \\d+ passed \\| [1-9]\\d* failed",
    ]),
    flags: "m",
    action: "error",
    message:
      "The test runner reported failing tests, but the call reported success (a pipe, `;` or `|| true` supplied the exit status). The suite did not pass. Read the failures, fix them, and rerun the tests without masking the exit status.",
  },
  {
    // make: *** [Makefile:5: build] Error 1
    // make[1]: *** No rule to make target 'gen.c', needed by 'gen.o'.  Stop.
    id: "make-error-with-success",
    pattern: "^g?make: \\*\\*\\* |^g?make\\[\\d+\\]: \\*\\*\\* ",
    flags: "m",
    action: "error",
    message:
      "make stopped with an error, but the call reported success (`make -k`, `|| true` or a later command supplied the exit status). The build did not complete. Read the first error above this line, fix it, and rerun make.",
  },
  {
    // fatal: not a git repository (or any of the parent directories): .git
    // fatal: pathspec 'docs/x.md' did not match any files
    id: "git-fatal-with-success",
    // Context, not error: scripts use `git describe || echo dev` style fallbacks on purpose.
    pattern: "^fatal: ",
    flags: "m",
    action: "context",
    message:
      "git stopped with a fatal error, though the call reported success (a later command supplied the exit status). That git operation did not happen; check whether it mattered before relying on the result.",
  },
  {
    // src/main.c:12:5: error: use of undeclared identifier 'x'
    // src/app.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.
    // src/app.ts:3:7 - error TS2322: Type 'string' is not assignable to type 'number'.
    // error[E0308]: mismatched types
    id: "compiler-error-with-success",
    pattern: atLineStart([
      "[^\\s:]+:\\d+:\\d+: (?:fatal )?error: ",
      "[^\\s(]+\\(\\d+,\\d+\\): error TS\\d+: ",
      "[^\\s:]+:\\d+:\\d+ - error TS\\d+: ",
      "error\\[E\\d{4}\\]: ",
      "error: could not compile ",
    ]),
    flags: "m",
    action: "context",
    message:
      "A compiler reported errors, though the call reported success. The build output is probably stale or missing. Check whether the step you relied on really compiled before using its output.",
  },
  {
    // cp: error writing 'data/out.bin': No space left on device
    // OSError: [Errno 28] No space left on device: 'checkpoint.pt'
    id: "no-space-left-on-device",
    pattern: "No space left on device",
    action: "context",
    message:
      "A write failed because the disk is full, though the call reported success. Files written by this call may be truncated or missing. Free space, then redo the writes and check the files.",
  },
] satisfies RuleInput[]);
