import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { CapturedOutput } from "../../../src/tools/shell/capture.ts";
import { decodeOutput, fitOutputs, formatShellOutcome, type ShellOutcome, shrinkOutput } from "../../../src/tools/shell/format.ts";

const enc = new TextEncoder();
const whole = (text: string): CapturedOutput => ({ bytes: enc.encode(text), cut: null });
const NONE = whole("");

function outcome(overrides: Partial<ShellOutcome>): ShellOutcome {
  return { stdout: NONE, stderr: NONE, exitCode: 0, signal: null, timedOut: false, aborted: false, timeoutMs: 1000, ...overrides };
}

describe("formatShellOutcome", () => {
  test("success is the output alone, without markers", () => {
    expect(formatShellOutcome(outcome({ stdout: whole("ok\n") }))).toBe("ok\n");
  });

  test("stderr gets its own section only when there is some", () => {
    expect(formatShellOutcome(outcome({ stdout: whole("out"), stderr: whole("err\n") }))).toBe("out\n[stderr]\nerr\n");
    expect(formatShellOutcome(outcome({ stderr: whole("err") }))).toBe("[stderr]\nerr");
  });

  test("markers go on their own lines, exit code last", () => {
    const text = formatShellOutcome(outcome({ stdout: whole("partial"), exitCode: 3 }));
    expect(text).toBe("partial\n[exit code: 3]");
    const all = formatShellOutcome(outcome({ timedOut: true, timeoutMs: 300, exitCode: 124, signal: "SIGTERM" }));
    expect(all.split("\n")).toEqual(["[timed out after 300ms]", "[exit code: 124]"]);
  });

  test("a signal is reported unless our own timeout or cancel sent it", () => {
    expect(formatShellOutcome(outcome({ exitCode: null, signal: "SIGSEGV" }))).toBe("[killed by signal: SIGSEGV]");
    expect(formatShellOutcome(outcome({ exitCode: null, signal: "SIGTERM", aborted: true }))).toBe("[cancelled]");
  });

  test("a cut shows the omitted byte count between head and tail", () => {
    const cut: CapturedOutput = { bytes: enc.encode("head\ntail\n"), cut: { at: 5, omittedBytes: 12345 } };
    expect(formatShellOutcome(outcome({ stdout: cut, exitCode: 1 }))).toBe("head\n[... 12345 bytes of output omitted ...]\ntail\n[exit code: 1]");
  });
});

describe("decodeOutput", () => {
  test("invalid UTF-8 becomes replacement characters instead of an error", () => {
    expect(decodeOutput({ bytes: new Uint8Array([0x61, 0xff, 0x62]), cut: null })).toBe("a\uFFFDb");
  });

  test("a character split by the cut is dropped whole and counted", () => {
    const bytes = enc.encode("ab世cd世"); // 世 is 3 bytes
    // head "ab" + first byte of 世; tail: last two bytes of the final 世
    const joined = new Uint8Array([...bytes.subarray(0, 3), ...bytes.subarray(bytes.length - 2)]);
    expect(decodeOutput({ bytes: joined, cut: { at: 3, omittedBytes: 4 } })).toBe("ab\n[... 7 bytes of output omitted ...]\n");
  });
});

describe("fitting output into the budget", () => {
  test("shrinkOutput keeps head and tail of the visible bytes and counts the rest", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.nat(250), (bytes, budget) => {
        const shrunk = shrinkOutput({ bytes, cut: null }, budget);
        expect(shrunk.bytes.length).toBe(Math.min(bytes.length, budget));
        if (bytes.length <= budget) return;
        const at = shrunk.cut?.at ?? -1;
        expect(shrunk.cut?.omittedBytes).toBe(bytes.length - budget);
        expect(shrunk.bytes.subarray(0, at)).toEqual(bytes.subarray(0, at));
        expect(shrunk.bytes.subarray(at)).toEqual(bytes.subarray(bytes.length - (budget - at)));
      }),
    );
  });

  test("shrinking already cut output never spans the old cut", () => {
    const bytes = enc.encode("HHHHHHtt");
    const shrunk = shrinkOutput({ bytes, cut: { at: 6, omittedBytes: 100 } }, 6);
    expect(new TextDecoder().decode(shrunk.bytes)).toBe("HHHHtt");
    expect(shrunk.cut).toEqual({ at: 4, omittedBytes: 102 });
  });

  test("stdout and stderr together fit the budget, and stderr keeps a share", () => {
    const out = whole("o".repeat(1000));
    const err = whole("e".repeat(1000));
    const fitted = fitOutputs(out, err, 400);
    expect(fitted.stdout.bytes.length + fitted.stderr.bytes.length).toBe(400);
    expect(fitted.stderr.bytes.length).toBeGreaterThanOrEqual(100);
    expect(fitOutputs(whole("small"), whole("err"), 400)).toEqual({ stdout: whole("small"), stderr: whole("err") });
  });
});
