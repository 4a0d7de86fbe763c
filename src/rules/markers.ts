/** The failure markers a shell tool appended to its output. */
export interface ShellMarkers {
  /** From `[exit code: N]`; the last one wins. */
  readonly exitCode?: number;
  /** The text after `timed out after`, e.g. `30000ms`. */
  readonly timedOut?: string;
  /** From `[killed by signal: S]`. */
  readonly signal?: string;
  /** The text of a `[status: ...]` marker (job-style tools). */
  readonly status?: string;
  /** An exit code found inside the status text, if any. */
  readonly statusExitCode?: number;
  /** True for a `[cancelled]` marker (the caller aborted the command). */
  readonly cancelled?: boolean;
  /** The text after `sandbox: ` of a `[sandbox: file access denied ...]` notice. */
  readonly sandboxDenied?: string;
  /** True when any marker says the command failed. */
  readonly failed: boolean;
}

// Markers are appended after the output (DESIGN: "kept last"), so only the
// trailing run of bracketed lines is read. A marker-shaped line in the middle
// (`cat` of an old transcript) is program output, not this call's status.
const TRAILER_MAX_LINES = 32;
const TRAILER_MAX_CHARS = 8192;

const BRACKET_LINE = /^\[[^\]\n]*\]$/;
const EXIT_CODE = /^\[exit code: (-?\d+)\]$/;
const TIMED_OUT = /^\[timed out after ([^\]\n]*)\]$/;
const SIGNAL = /^\[killed by signal: ([^\]\n]*)\]$/;
const STATUS = /^\[status: ([^\]\n]*)\]$/;
const CANCELLED = /^\[cancelled\]$/;
const SANDBOX = /^\[sandbox: (file access denied[^\]\n]*)\]$/;
// "exited with code 1", "exit code: 1", "exit 1", "exit=1", "exit status 2"
const STATUS_EXIT = /\bexit(?:ed)?(?: with)?(?: code| status)?[:=]? ?(-?\d+)/i;
const STATUS_FAILURE_WORD = /\b(?:failed|killed|timed out|signal|crashed)\b/i;

/** The trailing bracketed lines of `text`, last first. Blank lines between them are skipped. */
function trailerLines(text: string): string[] {
  // Walk back line by line from the end: every tool result passes here, and most end in a line that
  // is not bracketed, so splitting the last 8 KiB into lines first would be wasted work.
  const floor = Math.max(0, text.length - TRAILER_MAX_CHARS);
  const found: string[] = [];
  let end = text.length;
  while (end > floor && found.length < TRAILER_MAX_LINES) {
    const nl = text.lastIndexOf("\n", end - 1);
    const start = Math.max(nl + 1, floor);
    const line = text.slice(start, end).replace(/\r$/, "").trim();
    end = Math.max(nl, floor);
    if (line === "") continue;
    if (!BRACKET_LINE.test(line)) break;
    found.push(line);
  }
  return found;
}

/**
 * Parse the failure markers a shell tool appends as its final lines:
 * `[exit code: N]`, `[timed out after ...]`, `[killed by signal: S]`,
 * `[cancelled]`, `[status: ...]` and `[sandbox: file access denied ...]`. Only the trailing
 * run of bracketed lines counts; see the note on quoted markers above.
 */
export function parseShellMarkers(text: string): ShellMarkers {
  let exitCode: number | undefined;
  let timedOut: string | undefined;
  let signal: string | undefined;
  let status: string | undefined;
  let statusExitCode: number | undefined;
  let sandboxDenied: string | undefined;
  let cancelled: boolean | undefined;
  let statusFailed = false;
  // Walked last-first, so the first hit of each kind is the last one printed.
  for (const line of trailerLines(text)) {
    let m: RegExpExecArray | null;
    if ((m = EXIT_CODE.exec(line))) exitCode ??= Number(m[1]);
    else if ((m = TIMED_OUT.exec(line))) timedOut ??= m[1];
    else if ((m = SIGNAL.exec(line))) signal ??= m[1];
    else if ((m = SANDBOX.exec(line))) sandboxDenied ??= m[1];
    else if (CANCELLED.test(line)) cancelled = true;
    else if ((m = STATUS.exec(line)) && status === undefined) {
      status = m[1];
      const code = STATUS_EXIT.exec(status);
      if (code) statusExitCode = Number(code[1]);
      statusFailed = statusExitCode !== undefined ? statusExitCode !== 0 : STATUS_FAILURE_WORD.test(status);
    }
  }
  const failed =
    (exitCode !== undefined && exitCode !== 0) ||
    timedOut !== undefined ||
    signal !== undefined ||
    sandboxDenied !== undefined ||
    cancelled === true ||
    statusFailed;
  return { exitCode, timedOut, signal, status, statusExitCode, cancelled, sandboxDenied, failed };
}

/** True when `text` ends with a shell marker that reports a failure (see {@link parseShellMarkers}). */
export function hasFailureMarker(text: string): boolean {
  return parseShellMarkers(text).failed;
}
