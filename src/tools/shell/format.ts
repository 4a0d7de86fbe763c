/**
 * Turns a finished shell command into the text the model reads: stdout,
 * then `[stderr]` and stderr, cuts marked where they are, then one marker
 * per line for what went wrong, `[exit code: N]` always last. The rule
 * engine reads these markers, so their wording is fixed.
 */
import type { CapturedOutput } from "./capture.ts";

/** The facts about a finished command that the text reports. */
export interface ShellOutcome {
  readonly stdout: CapturedOutput;
  readonly stderr: CapturedOutput;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  /** The timeout in force, for the `[timed out after Nms]` marker. */
  readonly timeoutMs: number;
}

/** `[... 12345 bytes of output omitted ...]` */
export function omissionNote(bytes: number): string {
  return `[... ${bytes} bytes of output omitted ...]`;
}

/**
 * Shrinks `output` to at most `budget` bytes, keeping its head and its tail
 * and adding what it drops to the omitted count.
 */
export function shrinkOutput(output: CapturedOutput, budget: number): CapturedOutput {
  const bytes = output.bytes;
  const length = bytes.length;
  const limit = Math.max(0, Math.floor(budget));
  if (length <= limit) return output;
  const headPart = output.cut === null ? length : output.cut.at;
  const tailPart = output.cut === null ? length : length - output.cut.at;
  let keepTail = Math.min(tailPart, Math.floor(limit / 2));
  const keepHead = Math.min(headPart, limit - keepTail);
  keepTail = Math.min(tailPart, limit - keepHead);
  const kept = new Uint8Array(keepHead + keepTail);
  kept.set(bytes.subarray(0, keepHead));
  kept.set(bytes.subarray(length - keepTail), keepHead);
  const omittedBytes = (output.cut?.omittedBytes ?? 0) + (length - keepHead - keepTail);
  return { bytes: kept, cut: { at: keepHead, omittedBytes } };
}

/**
 * Fits stdout and stderr together into `budget` bytes. Stderr keeps at
 * least a quarter of the budget when it has that much, because errors are
 * usually what the model needs.
 */
export function fitOutputs(stdout: CapturedOutput, stderr: CapturedOutput, budget: number): { stdout: CapturedOutput; stderr: CapturedOutput } {
  const outLength = stdout.bytes.length;
  const errLength = stderr.bytes.length;
  if (outLength + errLength <= budget) return { stdout, stderr };
  const errBudget = Math.min(errLength, Math.max(Math.floor(budget / 4), budget - outLength));
  return { stdout: shrinkOutput(stdout, budget - errBudget), stderr: shrinkOutput(stderr, errBudget) };
}

const decoder = new TextDecoder("utf-8", { fatal: false });

function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/** Length of the UTF-8 sequence a lead byte starts (1 for ASCII and stray bytes). */
function sequenceLength(lead: number): number {
  if (lead >= 0xf0 && lead <= 0xf7) return 4;
  if (lead >= 0xe0) return lead <= 0xef ? 3 : 1;
  if (lead >= 0xc0) return 2;
  return 1;
}

/**
 * Decodes captured bytes as UTF-8 (invalid bytes become U+FFFD). At a cut,
 * a character split by it is dropped whole (and counted as omitted) rather
 * than shown as replacement characters.
 */
export function decodeOutput(output: CapturedOutput): string {
  const bytes = output.bytes;
  if (output.cut === null) return decoder.decode(bytes);
  let headEnd = output.cut.at;
  let tailStart = output.cut.at;
  let omitted = output.cut.omittedBytes;
  // Head: back up to the start of a character that does not fit.
  let p = headEnd - 1;
  while (p >= 0 && headEnd - p < 4 && isContinuation(bytes[p])) p--;
  if (p >= 0 && !isContinuation(bytes[p]) && p + sequenceLength(bytes[p]) > headEnd) {
    omitted += headEnd - p;
    headEnd = p;
  }
  // Tail: skip continuation bytes whose lead byte was cut away.
  while (tailStart < bytes.length && tailStart - output.cut.at < 3 && isContinuation(bytes[tailStart])) {
    tailStart++;
    omitted++;
  }
  const head = decoder.decode(bytes.subarray(0, headEnd));
  const tail = decoder.decode(bytes.subarray(tailStart));
  return `${endLine(head)}${omissionNote(omitted)}\n${tail}`;
}

/** `text` ending with a newline, unless it is empty. */
function endLine(text: string): string {
  return text === "" || text.endsWith("\n") ? text : `${text}\n`;
}

/** The model-facing text of a finished command. */
export function formatShellOutcome(outcome: ShellOutcome): string {
  let text = decodeOutput(outcome.stdout);
  if (outcome.stderr.bytes.length > 0 || outcome.stderr.cut !== null) {
    text = `${endLine(text)}[stderr]\n${decodeOutput(outcome.stderr)}`;
  }
  const markers: string[] = [];
  if (outcome.timedOut) markers.push(`[timed out after ${outcome.timeoutMs}ms]`);
  if (outcome.aborted) markers.push("[cancelled]");
  // A signal we sent on timeout or cancel is already explained by its own marker.
  if (outcome.signal !== null && !outcome.timedOut && !outcome.aborted) markers.push(`[killed by signal: ${outcome.signal}]`);
  if (outcome.exitCode !== null && outcome.exitCode !== 0) markers.push(`[exit code: ${outcome.exitCode}]`);
  return markers.length === 0 ? text : `${endLine(text)}${markers.join("\n")}`;
}
