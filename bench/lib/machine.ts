/** What the numbers were measured on: machine, runtimes, commit, date. */
import { execFileSync } from "node:child_process";
import { cpus, freemem, loadavg, release, totalmem, type as osType } from "node:os";
import { join } from "node:path";

/** The repository root. */
export const ROOT = join(import.meta.dir, "..", "..");
/** The Deno binary installed as a devDependency. */
export const DENO = join(ROOT, "node_modules", "deno", "deno");

/** The machine and software a results file belongs to. */
export interface MachineInfo {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  /** 1-minute load average when the run started: a busy machine explains wide spreads. */
  readonly loadAtStart: number;
  readonly runtimes: Record<string, string>;
  readonly commit: string;
  /** Uncommitted changes in the working tree when the run started. */
  readonly dirty: boolean;
  readonly date: string;
}

function run(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "unavailable";
  }
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? text;
}

/** Collect {@link MachineInfo} now. */
export function machineInfo(): MachineInfo {
  const wrangler = run(join(ROOT, "node_modules", ".bin", "wrangler"), ["--version"]);
  return {
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${osType()} ${release()}`,
    loadAtStart: Math.round(loadavg()[0] * 100) / 100,
    runtimes: {
      bun: typeof Bun !== "undefined" ? Bun.version : run("bun", ["--version"]),
      deno: firstLine(run(DENO, ["--version"]))
        .replace(/^deno /, "")
        .split(" ")[0],
      node: run("node", ["--version"]),
      wrangler: firstLine(wrangler).replace(/^.*?(\d+\.\d+\.\d+).*$/, "$1"),
    },
    commit: run("git", ["rev-parse", "--short", "HEAD"]),
    dirty: run("git", ["status", "--porcelain", "--untracked-files=no"]) !== "",
    date: new Date().toISOString(),
  };
}

/** Free memory in GiB (a 500 MB fixture needs room). */
export function freeGiB(): number {
  return freemem() / 2 ** 30;
}
