/**
 * `bash`: run a shell command in the project root (local mode only; the CLI
 * adds it with `--allow-shell`). The tool itself does not refuse anything:
 * the host installs the shell guard (`installShellGuard`) in front of it and
 * the loud-failure rules (`installLoudFailure`) behind it.
 *
 * Result semantics. A command that ran is a successful tool call whatever
 * its exit status: the text carries the fixed markers (`[exit code: N]`
 * last, `[timed out after Nms]`, `[killed by signal: S]`, `[cancelled]`),
 * and the rule engine already counts a result with a failure marker as
 * failed for `when`, so nothing is lost by leaving `isError` false. Marking
 * non-zero exits as errors would be wrong in two ways: there is no error
 * code that honestly names "your program exited 1" (codes name failures of
 * the tool, and harnesses retry or alert on them), and many non-zero exits
 * are answers, not failures (`git diff --quiet`, `test -f x`). `isError` is
 * kept for the tool failing to run the command at all (no shell, the root
 * is gone), and for the guard's and the rules' verdicts.
 */

import * as v from "valibot";
import { isCodedError } from "../../errors.ts";
import { fail, ok, type ToolResult } from "../../result.ts";
import { DEFAULT_SHELL_TIMEOUT_MS, runShell } from "../shell/run.ts";
import type { ToolDef } from "../types.ts";

/** Longest `timeout_ms` a call may ask for, unless the configured default is longer. */
export const MAX_BASH_TIMEOUT_MS = 600_000;

/** Options of {@link createBashTool}. */
export interface BashToolOptions {
  /** Absolute path of the project root: every command runs there. */
  readonly root: string;
  /** Time limit when the call names none (default 120 000 ms). */
  readonly timeoutMs?: number;
  /** Most output bytes shown, stdout and stderr together (default: the call's `limits.maxOutputBytes`). */
  readonly maxOutputBytes?: number;
  /** The commands' environment (default: the host's). */
  readonly env?: Record<string, string>;
}

/** The arguments schema for a given timeout bound. */
function bashSchema(defaultTimeoutMs: number, maxTimeoutMs: number) {
  return v.strictObject({
    command: v.pipe(
      v.string(),
      v.regex(/\S/, "command must not be empty"),
      v.description("The command line, run with `bash -c` in the project root, e.g. \"npm test\"."),
    ),
    timeout_ms: v.optional(
      v.pipe(
        v.number(),
        v.integer(),
        v.minValue(1),
        v.maxValue(maxTimeoutMs),
        v.description(`Stop the command after this many milliseconds (default ${defaultTimeoutMs}, at most ${maxTimeoutMs}).`),
      ),
    ),
  });
}

type BashSchema = ReturnType<typeof bashSchema>;

function description(defaultTimeoutMs: number, maxTimeoutMs: number): string {
  return `Run a shell command (bash -c) in the project root and return its output. Use it for builds, tests, git, package managers and other programs.
- Not for project files: reading (cat, head, tail), searching (grep, rg), listing (find, ls) or editing (sed, awk) them is refused. Use view to read a file, search it with \`content\` or list a directory; edit or batch_edit to change part of a file; write to create or replace one. Filtering another command's output is fine: \`make 2>&1 | grep error\`.
- Every call starts a fresh shell in the project root: \`cd\`, variables and background processes do not carry over (anything left running is stopped when the command ends). Nothing is available on stdin.
- Output is stdout, then a "[stderr]" line and stderr. Long output keeps its beginning and end around "[... N bytes of output omitted ...]".
- Status lines come last: "[exit code: N]" for a non-zero exit status, "[timed out after Nms]" when the time limit stopped it (default ${defaultTimeoutMs} ms; timeout_ms raises it up to ${maxTimeoutMs}), "[killed by signal: S]", "[cancelled]". No status line means exit status 0.
- Keep the exit status meaningful (\`set -o pipefail\` when piping, no \`|| true\`): a "successful" result whose output shows a failure (a traceback, "command not found", failing tests) may come back as an error that explains it.
Example: {"command": "npm test"}`;
}

/** The `bash` tool over `options.root`. */
export function createBashTool(options: BashToolOptions): ToolDef<BashSchema> {
  const defaultTimeoutMs = options.timeoutMs ?? DEFAULT_SHELL_TIMEOUT_MS;
  if (!Number.isInteger(defaultTimeoutMs) || defaultTimeoutMs < 1) {
    throw new RangeError(`bash timeoutMs must be a positive integer (got ${defaultTimeoutMs})`);
  }
  // An operator who configures a longer default must not see calls capped below it.
  const maxTimeoutMs = Math.max(MAX_BASH_TIMEOUT_MS, defaultTimeoutMs);
  const { root, maxOutputBytes, env } = options;
  return {
    name: "bash",
    description: description(defaultTimeoutMs, maxTimeoutMs),
    schema: bashSchema(defaultTimeoutMs, maxTimeoutMs),
    scope: "exec",
    annotations: { destructiveHint: true, openWorldHint: true },
    async run(args, ctx): Promise<ToolResult> {
      try {
        const outcome = await runShell(args.command, {
          cwd: root,
          timeoutMs: args.timeout_ms ?? defaultTimeoutMs,
          maxOutputBytes: maxOutputBytes ?? ctx.limits.maxOutputBytes,
          env,
          signal: ctx.signal,
          ...(ctx.progress ? { onOutput: outputProgress(ctx.progress) } : {}),
        });
        // An empty result reads like a lost one; say there was nothing to show.
        return ok(outcome.text === "" ? "(no output)" : outcome.text);
      } catch (error) {
        return notRun(error, root);
      }
    },
  };
}

/** Output bytes as progress, at most one report per {@link PROGRESS_STEP_BYTES} of output, so a chatty command does not flood the client. */
const PROGRESS_STEP_BYTES = 4096;

function outputProgress(report: (progress: number, message: string) => void): (bytes: number) => void {
  let next = 1;
  return (bytes) => {
    if (bytes < next) return;
    next = bytes + PROGRESS_STEP_BYTES;
    report(bytes, `${bytes} bytes of output so far`);
  };
}

/** The command never started: say so, because the model cannot fix this by changing the command. */
function notRun(error: unknown, root: string): ToolResult {
  const detail = error instanceof Error ? error.message : String(error);
  if (isCodedError(error) && error.code === "FS_NOT_FOUND") {
    return fail(
      "FS_NOT_FOUND",
      `The command did not run: the project root \`${root}\` does not exist on the server (${detail}). This is a server-side problem; changing the command will not help.`,
    );
  }
  return fail(
    "INTERNAL_ERROR",
    `The command did not run: the server could not start a shell (${detail}). This is a server fault; changing the command will not help.`,
  );
}
