import { DEFAULT_LIMITS } from "../types.ts";
import { fitOutputs, formatShellOutcome } from "./format.ts";
import { spawnShell } from "./spawn.ts";

/** Options of {@link runShell}. */
export interface RunShellOptions {
  /** Directory the command runs in. */
  readonly cwd: string;
  /** Ends the command's process group after this long (default 120 000 ms). */
  readonly timeoutMs?: number;
  /** Most output bytes shown, stdout and stderr together (default `DEFAULT_LIMITS.maxOutputBytes`). */
  readonly maxOutputBytes?: number;
  /** The environment; the host's when omitted. */
  readonly env?: Readonly<Record<string, string>>;
  /** Cancels the command (its group is ended like on timeout). */
  readonly signal?: AbortSignal;
  /** Between SIGTERM and SIGKILL when ending the group (default 2000 ms). */
  readonly killGraceMs?: number;
  /** Called with the output bytes so far after each chunk. */
  readonly onOutput?: (bytes: number) => void;
}

/** A finished command: the text for the model and the facts behind it. */
export interface RunShellResult {
  /** stdout, `[stderr]` section, omission notes and markers; `[exit code: N]` last when N != 0. */
  readonly text: string;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  /** Some output was left out of `text`. */
  readonly truncated: boolean;
  readonly durationMs: number;
}

export const DEFAULT_SHELL_TIMEOUT_MS = 120_000;

/**
 * Runs `command` in a shell and renders the model-facing result. Does not
 * run the shell guard: callers check `checkShellCommand` first. Rejects only
 * when no shell could be started (see `spawnShell`).
 */
export async function runShell(command: string, options: RunShellOptions): Promise<RunShellResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_SHELL_TIMEOUT_MS;
  const budget = Math.max(0, Math.floor(options.maxOutputBytes ?? DEFAULT_LIMITS.maxOutputBytes));
  // Each stream keeps up to the whole budget while running (memory <= 2 x budget); fitOutputs shares it after.
  const headBytes = Math.ceil(budget / 2);
  const spawned = await spawnShell(command, {
    cwd: options.cwd,
    env: options.env,
    timeoutMs,
    killGraceMs: options.killGraceMs,
    headBytes,
    tailBytes: budget - headBytes,
    signal: options.signal,
    onOutput: options.onOutput,
  });
  const fitted = fitOutputs({ bytes: spawned.stdout, cut: spawned.stdoutTruncated }, { bytes: spawned.stderr, cut: spawned.stderrTruncated }, budget);
  const text = formatShellOutcome({
    stdout: fitted.stdout,
    stderr: fitted.stderr,
    exitCode: spawned.exitCode,
    signal: spawned.signal,
    timedOut: spawned.timedOut,
    aborted: spawned.aborted,
    timeoutMs,
  });
  return {
    text,
    exitCode: spawned.exitCode,
    signal: spawned.signal,
    timedOut: spawned.timedOut,
    aborted: spawned.aborted,
    truncated: fitted.stdout.cut !== null || fitted.stderr.cut !== null,
    durationMs: spawned.durationMs,
  };
}
