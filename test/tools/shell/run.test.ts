import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isCodedError } from "../../../src/errors.ts";
import { runShell } from "../../../src/tools/shell/run.ts";
import { spawnShell } from "../../../src/tools/shell/spawn.ts";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolwarden-shell-")));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (command: string, options: Partial<Parameters<typeof runShell>[1]> = {}) => runShell(command, { cwd: dir, ...options });
const lastLine = (text: string): string => text.slice(text.lastIndexOf("\n") + 1);

/** A process that has exited, including a zombie its new parent has not reaped yet. */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.startsWith("Z") ?? true;
  } catch {
    return true;
  }
}

async function expectAllGone(pids: readonly number[]): Promise<void> {
  const deadline = Date.now() + 5000;
  while (pids.some((p) => !isGone(p)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  expect(pids.filter((p) => !isGone(p))).toEqual([]);
}

function readPids(file: string): number[] {
  return readFileSync(file, "utf8").trim().split(/\s+/).map(Number);
}

describe("runShell", () => {
  test("a failing command ends with its exit code as the last line", async () => {
    const r = await run("echo hi; exit 3");
    expect(r.exitCode).toBe(3);
    expect(r.text).toBe("hi\n[exit code: 3]");
    expect(lastLine(r.text)).toBe("[exit code: 3]");
  });

  test("success prints the output and no exit marker", async () => {
    const r = await run("echo ok");
    expect(r.exitCode).toBe(0);
    expect(r.text).toBe("ok\n");
  });

  test("stderr comes after stdout in its own section", async () => {
    const r = await run("echo out; echo err >&2; exit 1");
    expect(r.text).toBe("out\n[stderr]\nerr\n[exit code: 1]");
  });

  test("the command runs in cwd, with the given environment", async () => {
    expect((await run("pwd")).text).toBe(`${dir}\n`);
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", GREETING: "hello there" };
    expect((await run('echo "$GREETING"', { env })).text).toBe("hello there\n");
  });

  test("invalid UTF-8 output is decoded with replacement characters", async () => {
    expect((await run("printf 'a\\377b'")).text).toBe("a\uFFFDb");
  });

  test("huge output keeps head and tail within the budget and says how much was cut", async () => {
    const total = 5_000_000;
    const budget = 64 * 1024;
    const r = await run(`yes | head -c ${total}`, { maxOutputBytes: budget });
    expect(r.exitCode).toBe(0);
    expect(r.truncated).toBe(true);
    expect(r.text).toContain(`\n[... ${total - budget} bytes of output omitted ...]\n`);
    expect(r.text.startsWith("y\ny\n")).toBe(true);
    expect(r.text.endsWith("y\ny\n")).toBe(true);
    expect(r.text.length).toBeLessThan(budget + 100);
  });

  test("capture memory is bounded by head + tail however much is printed", async () => {
    const r = await spawnShell("yes | head -c 20000000", { cwd: dir, headBytes: 1000, tailBytes: 500 });
    expect(r.stdout.length).toBe(1500);
    expect(r.stdoutTruncated).toEqual({ at: 1000, omittedBytes: 20_000_000 - 1500 });
  });

  test("a timeout ends the whole process group and says so", async () => {
    const pidFile = join(dir, "timeout.pids");
    const command = `echo $$ > ${pidFile}; sleep 30 & echo $! >> ${pidFile}; (sleep 30; echo never) & echo $! >> ${pidFile}; sleep 30; wait`;
    const r = await run(command, { timeoutMs: 300 });
    expect(r.timedOut).toBe(true);
    expect(lastLine(r.text)).toBe("[timed out after 300ms]");
    expect(r.durationMs).toBeLessThan(10_000); // far from the 30 s the sleeps would take
    const pids = readPids(pidFile);
    expect(pids.length).toBe(3);
    await expectAllGone(pids);
  });

  test("a group that ignores SIGTERM is killed after the grace period", async () => {
    const pidFile = join(dir, "stubborn.pids");
    const r = await run(`trap '' TERM; sleep 30 & echo $! > ${pidFile}; sleep 30`, { timeoutMs: 200, killGraceMs: 200 });
    expect(r.timedOut).toBe(true);
    await expectAllGone(readPids(pidFile));
  });

  test("processes left in the background do not outlive the call", async () => {
    const r = await run("sleep 30 & echo $!");
    expect(r.exitCode).toBe(0);
    expect(r.durationMs).toBeLessThan(10_000);
    await expectAllGone([Number(r.text.trim())]);
  });

  test("a shell killed by a signal reports it", async () => {
    const r = await run("kill -SEGV $$");
    expect(r.signal).toBe("SIGSEGV");
    expect(r.exitCode).toBeNull();
    expect(r.text).toBe("[killed by signal: SIGSEGV]");
  });

  test("aborting cancels the command", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const r = await run("sleep 30", { signal: controller.signal });
    expect(r.aborted).toBe(true);
    expect(r.text).toBe("[cancelled]");
  });

  test("without bash on the PATH the command runs in sh", async () => {
    const bin = join(dir, "sh-only");
    mkdirSync(bin);
    symlinkSync("/bin/sh", join(bin, "sh"));
    const r = await spawnShell("echo $0", { cwd: dir, env: { PATH: bin } });
    expect(r.shell).toBe("sh");
    expect(new TextDecoder().decode(r.stdout)).toBe("sh\n");
  });

  test("a missing working directory is a coded error", async () => {
    const error = await run("echo hi", { cwd: join(dir, "missing") }).catch((e: unknown) => e);
    expect(isCodedError(error) && error.code).toBe("FS_NOT_FOUND");
  });
});
