/** `bash`'s arguments and description, for a given time bound: what the model reads in tools/list. */
import * as v from "valibot";

/** The arguments schema for a given timeout bound. */
export function bashSchema(defaultTimeoutMs: number, maxTimeoutMs: number) {
  return v.strictObject({
    command: v.pipe(
      v.string(),
      v.regex(/\S/, "command must not be empty"),
      v.description('The command line, run with `bash -c` in the project root, e.g. "npm test".'),
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

export type BashSchema = ReturnType<typeof bashSchema>;

export function description(defaultTimeoutMs: number, maxTimeoutMs: number): string {
  return `Run a shell command (bash -c) in the project root and return its output. Use it for builds, tests, git, package managers and other programs.
- Not for project files: reading (cat, head, tail), searching (grep, rg), listing (find, ls) or editing (sed, awk) them is refused. Use view to read a file, search it with \`content\` or list a directory; edit or batch_edit to change part of a file; write to create or replace one. Filtering another command's output is fine: \`make 2>&1 | grep error\`.
- Every call starts a fresh shell in the project root: \`cd\`, variables and background processes do not carry over (anything left running is stopped when the command ends). Nothing is available on stdin.
- Output is stdout, then a "[stderr]" line and stderr. Long output keeps its beginning and end around "[... N bytes of output omitted ...]".
- Status lines come last: "[exit code: N]" for a non-zero exit status, "[timed out after Nms]" when the time limit stopped it (default ${defaultTimeoutMs} ms; timeout_ms raises it up to ${maxTimeoutMs}), "[killed by signal: S]", "[cancelled]". No status line means exit status 0.
- Keep the exit status meaningful (\`set -o pipefail\` when piping, no \`|| true\`): a "successful" result whose output shows a failure (a traceback, "command not found", failing tests) may come back as an error that explains it.
Example: {"command": "npm test"}`;
}
