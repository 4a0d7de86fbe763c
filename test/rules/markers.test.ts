import { describe, expect, test } from "bun:test";
import { hasFailureMarker, parseShellMarkers } from "../../src/rules/mod.ts";

describe("parseShellMarkers", () => {
  test("[exit code: N] with N != 0 is a failure; 0 is not", () => {
    expect(parseShellMarkers("make: ok\n[exit code: 2]")).toMatchObject({ exitCode: 2, failed: true });
    expect(parseShellMarkers("ok\n[exit code: -1]\n")).toMatchObject({ exitCode: -1, failed: true });
    expect(parseShellMarkers("ok\n[exit code: 0]")).toMatchObject({ exitCode: 0, failed: false });
  });

  test("timeout, signal and sandbox denials are failures", () => {
    expect(parseShellMarkers("partial\n[timed out after 30000ms]")).toMatchObject({ timedOut: "30000ms", failed: true });
    expect(parseShellMarkers("partial\n[killed by signal: SIGKILL]")).toMatchObject({ signal: "SIGKILL", failed: true });
    expect(parseShellMarkers("cat: x: Permission denied\n[sandbox: file access denied under read-only mode]")).toMatchObject({
      sandboxDenied: "file access denied under read-only mode",
      failed: true,
    });
  });

  test("a cancelled command is a failure", () => {
    expect(parseShellMarkers("partial\n[cancelled]")).toMatchObject({ cancelled: true, failed: true });
  });

  test("the exact trailer the bash tool prints (stderr section, markers, exit code last) is read", () => {
    const text = "building\n[stderr]\nwarning: x\n[... 1024 bytes of output omitted ...]\nerror: y\n[timed out after 30000ms]\n[exit code: 124]";
    expect(parseShellMarkers(text)).toMatchObject({ timedOut: "30000ms", exitCode: 124, failed: true });
  });

  test("[status: ...] fails on a non-zero exit or a failure word, not otherwise", () => {
    expect(parseShellMarkers("[status: exited with code 1]")).toMatchObject({ status: "exited with code 1", statusExitCode: 1, failed: true });
    expect(parseShellMarkers("[status: completed (exit 0)]")).toMatchObject({ statusExitCode: 0, failed: false });
    expect(parseShellMarkers("[status: exit code: 3]")).toMatchObject({ statusExitCode: 3, failed: true });
    expect(parseShellMarkers("[status: running]")).toMatchObject({ status: "running", failed: false });
    expect(parseShellMarkers("[status: killed]").failed).toBe(true);
  });

  test("several markers in the trailer are all read; the last of a kind wins", () => {
    const m = parseShellMarkers("out\n[exit code: 1]\n[timed out after 5s]\n[exit code: 137]\n");
    expect(m).toMatchObject({ exitCode: 137, timedOut: "5s", failed: true });
  });

  test("blank lines and CRLF around the trailer are tolerated", () => {
    expect(parseShellMarkers("out\r\n[exit code: 1]\r\n\r\n").failed).toBe(true);
    expect(parseShellMarkers("out\n\n[exit code: 1]\n\n\n").exitCode).toBe(1);
  });

  test("a marker-shaped line followed by more output is program output, not a marker", () => {
    // e.g. `cat` of an earlier transcript, then a successful command
    const m = parseShellMarkers("[exit code: 1]\n[timed out after 9ms]\nall good\n");
    expect(m).toEqual({ failed: false } as never);
    expect(m.exitCode).toBeUndefined();
  });

  test("the marker must be the whole line", () => {
    expect(hasFailureMarker("it printed [exit code: 1] inline")).toBe(false);
    expect(hasFailureMarker("[exit code: 1] and more")).toBe(false);
    expect(hasFailureMarker("[exit code: one]")).toBe(false);
  });

  test("other bracketed trailer lines (e.g. a truncation note) do not hide a marker above them", () => {
    expect(hasFailureMarker("out\n[exit code: 1]\n[output truncated: 4096 bytes omitted]")).toBe(true);
  });

  test("clean output and empty text have no failure marker", () => {
    expect(hasFailureMarker("")).toBe(false);
    expect(hasFailureMarker("hello\n")).toBe(false);
    expect(parseShellMarkers("[1, 2, 3]").failed).toBe(false);
  });

  test("a marker at the end of a huge output is found", () => {
    const huge = "x".repeat(5_000_000);
    expect(hasFailureMarker(`${huge}\n[exit code: 1]`)).toBe(true);
  });
});
