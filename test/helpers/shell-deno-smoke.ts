/**
 * The shell engine under Deno (run by shell-deno.test.ts, or by hand:
 * `npx deno run -A test/shell-deno-smoke.ts`). Exits non-zero on a failed check.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { checkShellCommand } from "../../src/tools/shell/guard.ts";
import { runShell } from "../../src/tools/shell/run.ts";

const dir = mkdtempSync(join(tmpdir(), "toolwarden-deno-"));
const failures: string[] = [];
function check(name: string, ok: boolean, detail: unknown): void {
  if (!ok) failures.push(`${name}: ${JSON.stringify(detail)}`);
}

try {
  const exit = await runShell("echo hi; echo err >&2; exit 3", { cwd: dir });
  check("exit code and stderr", exit.text === "hi\n[stderr]\nerr\n[exit code: 3]", exit.text);

  const pidFile = join(dir, "pids");
  const timeout = await runShell(`sleep 30 & echo $! > ${pidFile}; sleep 30; wait`, { cwd: dir, timeoutMs: 300 });
  check("timeout marker", timeout.text === "[timed out after 300ms]", timeout.text);
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  const deadline = Date.now() + 5000;
  const gone = (): boolean => {
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
  };
  while (!gone() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  check("background sleep killed with the group", gone(), pid);

  const segv = await runShell("kill -SEGV $$", { cwd: dir });
  check("signal", segv.text === "[killed by signal: SIGSEGV]", segv.text);

  const big = await runShell("yes | head -c 1000000", { cwd: dir, maxOutputBytes: 1000 });
  check("omission note", big.text.includes("[... 999000 bytes of output omitted ...]"), big.text.length);

  check("guard", !checkShellCommand("bash -c 'cat f'").allowed && checkShellCommand("make 2>&1 | grep x").allowed, null);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

if (failures.length > 0) {
  console.error(failures.join("\n"));
  process.exit(1);
}
console.log("deno shell smoke: ok");
