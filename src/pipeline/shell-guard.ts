/**
 * The shell guard as a pre-execute listener: a shell tool's command is
 * checked with `checkShellCommand` before it runs, and a command that reads,
 * searches, lists or edits project files is denied with SHELL_FORBIDDEN and
 * the guard's explanation (the right tool, with worked example calls).
 */
import { checkShellCommand } from "../tools/shell/guard.ts";
import { deny, type PreExecuteListener } from "./listeners.ts";
import type { Pipeline } from "./pipeline.ts";

/** Options of {@link installShellGuard}. */
export interface ShellGuardInstallOptions {
  /** Tools whose `command` argument is a shell command line (default `["bash"]`). */
  readonly shellTools?: readonly string[];
  /**
   * Absolute path of the directory the commands run in. Absolute paths
   * outside it are not project files and are not refused; without it only
   * system directories and the home directory count as outside.
   */
  readonly projectRoot?: string;
}

/** Listener name, shown if it ever fails. */
export const SHELL_GUARD_LISTENER = "shell-guard";

/** The pre-execute listener behind {@link installShellGuard}. */
export function shellGuardListener(options: ShellGuardInstallOptions = {}): PreExecuteListener {
  const shellTools = new Set(options.shellTools ?? ["bash"]);
  const guardOptions = { projectRoot: options.projectRoot };
  return function shellGuard(call, next) {
    if (!shellTools.has(call.name)) return next();
    const command = (call.args as { command?: unknown } | null)?.command;
    if (typeof command !== "string") {
      // Fail closed: a shell tool whose command the guard cannot find would otherwise run unchecked.
      return deny(
        `\`${call.name}\` did not run: the server's shell guard found no \`command\` string in its arguments, so it could not check the command. This is a server configuration fault.`,
        "INTERNAL_ERROR",
      );
    }
    const verdict = checkShellCommand(command, guardOptions);
    return verdict.allowed ? next() : deny(verdict.message, "SHELL_FORBIDDEN");
  };
}

/**
 * Check every call of the shell tools with the shell guard; returns the
 * remover. Install it wherever the `bash` tool is served: the tool itself
 * runs whatever it is given.
 */
export function installShellGuard(pipeline: Pick<Pipeline, "onPreExecute">, options: ShellGuardInstallOptions = {}): () => void {
  return pipeline.onPreExecute(shellGuardListener(options), { name: SHELL_GUARD_LISTENER });
}
