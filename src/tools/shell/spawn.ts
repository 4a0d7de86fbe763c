/**
 * The I/O adapter that runs one shell command: `bash -c <command>` (or `sh`
 * where there is no bash) in a new process group, with bounded output
 * capture and a timeout that ends the whole group. Uses `node:child_process`,
 * which Bun and Deno both implement.
 *
 * The call ends when the shell exits: processes it left running in its group
 * (`server &`) get SIGTERM, then SIGKILL after the grace period, so a call
 * never leaves strays or waits on pipes they hold. A process that must
 * outlive the call has to leave the group itself (`setsid`); if such a
 * process keeps the output pipes open, the call still ends, a grace period
 * plus {@link FORCE_FINISH_MS} after the shell.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { statSync } from "node:fs";
import process from "node:process";
import { CodedError } from "../../errors.ts";
import { type CapturedOutput, HeadTailBuffer, type OutputCut } from "./capture.ts";

/** How to run a command. */
export interface SpawnShellOptions {
  readonly cwd: string;
  /** The environment; the host's when omitted. */
  readonly env?: Readonly<Record<string, string>>;
  /** End the process group after this long; no limit when omitted, 0 or not finite. */
  readonly timeoutMs?: number;
  /** Between SIGTERM and SIGKILL (default 2000 ms). */
  readonly killGraceMs?: number;
  /** Bytes kept from the start of each stream (default 32 KiB). */
  readonly headBytes?: number;
  /** Bytes kept from the end of each stream (default 32 KiB). */
  readonly tailBytes?: number;
  /** Aborting ends the process group like a timeout. */
  readonly signal?: AbortSignal;
  /** Called with the output bytes so far (stdout and stderr) after each chunk. */
  readonly onOutput?: (bytes: number) => void;
}

/** What happened to the command. */
export interface SpawnShellResult {
  /** The shell's exit status; null when it was ended by a signal. */
  readonly exitCode: number | null;
  /** The signal that ended the shell (`SIGSEGV`), or null. */
  readonly signal: string | null;
  /** The timeout fired before the shell exited. */
  readonly timedOut: boolean;
  /** The abort signal fired before the shell exited. */
  readonly aborted: boolean;
  /** Kept stdout bytes: all of it, or head then tail around `stdoutTruncated.at`. */
  readonly stdout: Uint8Array;
  readonly stderr: Uint8Array;
  readonly stdoutTruncated: OutputCut | null;
  readonly stderrTruncated: OutputCut | null;
  readonly durationMs: number;
  /** The shell that ran the command (`bash` or `sh`). */
  readonly shell: string;
}

export const DEFAULT_KILL_GRACE_MS = 2000;
export const DEFAULT_CAPTURE_BYTES = 32 * 1024;
/** After SIGKILL, how long to wait for the pipes to close before giving up on them. */
export const FORCE_FINISH_MS = 500;

/** Tried in order; looked up on the PATH of the command's environment, so not cached across calls. */
const SHELLS = ["bash", "sh"] as const;

/**
 * Runs `command` with `bash -c` (falling back to `sh -c`) and resolves when
 * it is over, never earlier than the shell's exit. Rejects only when no
 * shell could be started (`FS_NOT_FOUND` for a missing `cwd`, else
 * `INTERNAL_ERROR`).
 */
export async function spawnShell(command: string, options: SpawnShellOptions): Promise<SpawnShellResult> {
  let lastError: unknown;
  for (const shell of SHELLS) {
    const outcome = await runIn(shell, command, options);
    if ("result" in outcome) return outcome.result;
    lastError = outcome.error;
    if ((outcome.error as { code?: unknown }).code !== "ENOENT") break;
  }
  if (!directoryExists(options.cwd)) {
    throw new CodedError("FS_NOT_FOUND", `working directory not found: ${options.cwd}`, { cause: lastError });
  }
  throw new CodedError("INTERNAL_ERROR", `could not start a shell (${SHELLS.join(", ")})`, { cause: lastError });
}

function directoryExists(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Sends `signal` to every process in the group led by `pid`; a group already gone is fine. */
function killGroup(pid: number | undefined, signal: "SIGTERM" | "SIGKILL"): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left in the group.
  }
}

type Outcome = { readonly result: SpawnShellResult } | { readonly error: unknown };

function runIn(shell: string, command: string, options: SpawnShellOptions): Promise<Outcome> {
  return new Promise((resolve) => {
    const started = performance.now();
    const grace = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    const stdout = new HeadTailBuffer(options.headBytes ?? DEFAULT_CAPTURE_BYTES, options.tailBytes ?? DEFAULT_CAPTURE_BYTES);
    const stderr = new HeadTailBuffer(options.headBytes ?? DEFAULT_CAPTURE_BYTES, options.tailBytes ?? DEFAULT_CAPTURE_BYTES);
    let child: ChildProcess;
    try {
      child = spawn(shell, ["-c", command], {
        cwd: options.cwd,
        env: options.env,
        detached: true, // a new process group, so the whole tree can be signalled at once
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      resolve({ error });
      return;
    }

    let done = false;
    let exit: { code: number | null; signal: string | null } | null = null;
    let timedOut = false;
    let aborted = false;
    let terminating = false;
    const timers: ReturnType<typeof setTimeout>[] = [];

    const finish = (): void => {
      if (done) return;
      done = true;
      for (const t of timers) clearTimeout(t);
      options.signal?.removeEventListener("abort", onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      const out: CapturedOutput = stdout.result();
      const err: CapturedOutput = stderr.result();
      resolve({
        result: {
          exitCode: exit?.code ?? null,
          signal: exit?.signal ?? null,
          timedOut,
          aborted,
          stdout: out.bytes,
          stderr: err.bytes,
          stdoutTruncated: out.cut,
          stderrTruncated: err.cut,
          durationMs: performance.now() - started,
          shell,
        },
      });
    };

    // SIGTERM the group, SIGKILL it after the grace period, and stop waiting for pipes soon after.
    const terminate = (): void => {
      if (terminating) return;
      terminating = true;
      killGroup(child.pid, "SIGTERM");
      timers.push(
        setTimeout(() => {
          killGroup(child.pid, "SIGKILL");
          timers.push(setTimeout(finish, FORCE_FINISH_MS));
        }, grace),
      );
    };

    const onAbort = (): void => {
      if (exit !== null) return;
      aborted = true;
      terminate();
    };

    let outputBytes = 0;
    const seen = (chunk: Uint8Array): void => {
      outputBytes += chunk.length;
      options.onOutput?.(outputBytes);
    };
    child.stdout?.on("data", (chunk: Uint8Array) => {
      stdout.push(chunk);
      seen(chunk);
    });
    child.stderr?.on("data", (chunk: Uint8Array) => {
      stderr.push(chunk);
      seen(chunk);
    });
    child.on("error", (error) => {
      if (child.pid !== undefined || done) return; // a failed kill after start changes nothing
      done = true;
      for (const t of timers) clearTimeout(t);
      options.signal?.removeEventListener("abort", onAbort);
      resolve({ error });
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      terminate(); // strays left in the group
    });
    child.on("close", (code, signal) => {
      exit ??= { code, signal };
      finish();
    });

    const timeoutMs = options.timeoutMs;
    if (timeoutMs !== undefined && Number.isFinite(timeoutMs) && timeoutMs > 0) {
      timers.push(
        setTimeout(() => {
          if (exit !== null) return;
          timedOut = true;
          terminate();
        }, timeoutMs),
      );
    }
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
  });
}
