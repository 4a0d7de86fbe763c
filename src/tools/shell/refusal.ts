/**
 * The shell guard's refusals, rendered from what the check found (pure):
 * the model-facing explanation and the worked example calls. The check
 * (./guard.ts) only collects a {@link Finding}; every word the model reads
 * is made here.
 */
import { adviseFor, type FileFamily, renderCall } from "./advice.ts";
import type { ShellWord } from "./lex.ts";
import { toProjectPath } from "./paths.ts";

/** Longest command the guard checks, in UTF-8 bytes; longer ones are refused. */
export const MAX_COMMAND_BYTES = 64 * 1024;
/** Longest command text a refusal quotes. */
export const MAX_SEGMENT_CHARS = 200;

/** What the check found that makes it refuse a command. */
export type Finding =
  | {
      readonly kind: "file-tool";
      /** Base name of the program (`grep` for `/usr/bin/grep`). */
      readonly program: string;
      /** Source text of the simple command, already shortened. */
      readonly segment: string;
      readonly args: readonly ShellWord[];
      /** `<` files feeding it. */
      readonly inputFiles: readonly ShellWord[];
      readonly family: FileFamily;
    }
  | { readonly kind: "too-long" }
  | { readonly kind: "too-deep"; readonly shell: string; readonly segment: string };

/** A refused command and what to do instead. */
export interface ShellRefusal {
  readonly allowed: false;
  /** `file-tool`: a file program was found; `too-long` / `too-deep`: the command could not be checked. */
  readonly reason: "file-tool" | "too-long" | "too-deep";
  /** Base name of the refused program (`grep` for `/usr/bin/grep`); the shell for `too-deep`; "" for `too-long`. */
  readonly program: string;
  /** Source text of the refused simple command (shortened when long). */
  readonly segment: string;
  /** The tool to use instead. */
  readonly tool: "view" | "edit" | "write";
  /** The first worked example call, e.g. `view {"path": "src/x.ts"}`. */
  readonly suggestion: string;
  /** The whole model-facing explanation, with worked example calls. */
  readonly message: string;
}

const STILL_ALLOWED =
  "bash remains the tool for builds, tests, git and other programs, and a filter on another command's output is fine: `make 2>&1 | grep error`.";

function fileToolRefusal(finding: Extract<Finding, { kind: "file-tool" }>, projectRoot: string | undefined): ShellRefusal {
  const { program, segment, args, inputFiles, family } = finding;
  // Example calls name paths the file tools take (`/proc/self/cwd/x` and `<root>/x` are `x`).
  const relative = (w: ShellWord): ShellWord => toProjectPath(w, projectRoot);
  const advice = adviseFor(program, family, args.map(relative), inputFiles.map(relative));
  const calls = advice.calls.map((c) => `  ${renderCall(c)}${c.note === undefined ? "" : `   (${c.note})`}`);
  const message = [`bash refused \`${segment}\`: ${advice.reason}`, "Do this instead:", ...calls, ...advice.extra, STILL_ALLOWED].join("\n");
  return {
    allowed: false,
    reason: "file-tool",
    program,
    segment,
    tool: advice.tool,
    suggestion: renderCall(advice.calls[0]),
    message,
  };
}

const SCRIPT_CALL = renderCall({
  tool: "write",
  args: [
    ["path", "scripts/task.sh"],
    ["content", "#!/usr/bin/env bash\n..."],
  ],
});

function tooLong(): ShellRefusal {
  return {
    allowed: false,
    reason: "too-long",
    program: "",
    segment: "",
    tool: "write",
    suggestion: SCRIPT_CALL,
    message: [
      `bash refused this command: it is longer than ${MAX_COMMAND_BYTES} bytes, the most the command check reads.`,
      "Put file contents in place with the `write` tool instead of a here-document, or write the script to a file and run it:",
      `  ${SCRIPT_CALL}`,
      "  then bash with: bash scripts/task.sh",
    ].join("\n"),
  };
}

function tooDeep(shell: string, source: string): ShellRefusal {
  const segment = source.length > MAX_SEGMENT_CHARS ? `${source.slice(0, MAX_SEGMENT_CHARS)}...` : source;
  return {
    allowed: false,
    reason: "too-deep",
    program: shell,
    segment,
    tool: "write",
    suggestion: SCRIPT_CALL,
    message: [
      `bash refused \`${segment}\`: it nests shells, quotes or substitutions deeper than the command check follows.`,
      "Write the script to a file and run it:",
      `  ${SCRIPT_CALL}`,
      "  then bash with: bash scripts/task.sh",
    ].join("\n"),
  };
}

/** The refusal of a finding, with paths in example calls made relative to `projectRoot`. */
export function renderRefusal(finding: Finding, projectRoot: string | undefined): ShellRefusal {
  switch (finding.kind) {
    case "file-tool":
      return fileToolRefusal(finding, projectRoot);
    case "too-long":
      return tooLong();
    case "too-deep":
      return tooDeep(finding.shell, finding.segment);
  }
}
