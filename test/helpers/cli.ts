/**
 * Run the real `toolwarden` command as a subprocess (Bun, the test's own
 * runtime) and read what it prints, for the CLI tests.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The repository root. */
export const ROOT = join(import.meta.dir, "..", "..");
/** The Bun entry. */
export const CLI = join(ROOT, "src", "cli.ts");

/** A fresh temp directory and its remover. */
export function tempDir(prefix = "tw-cli-"): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** What a finished command printed. */
export interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run `toolwarden ARGS` to the end (stdin closed or given). */
export function runCli(args: readonly string[], options: { cwd?: string; env?: Record<string, string>; stdin?: string } = {}): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? ROOT,
      env: { ...cleanEnv(), ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin!.end(options.stdin ?? "");
  });
}

/** One state directory (audit log, history) for every server this test process starts, outside the user's home. */
let stateDir: string | undefined;

/**
 * The environment without variables that would change the command's
 * defaults, except that the state directory is a temporary one.
 */
export function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("TOOLWARDEN_")) env[key] = value;
  }
  env.TOOLWARDEN_STATE = stateDir ??= mkdtempSync(join(tmpdir(), "tw-state-"));
  return env;
}

/** A running `serve`, with what it printed so far. */
export interface ServeProcess {
  readonly child: ChildProcess;
  /** Base URL from the banner. */
  readonly url: string;
  /** The full banner (stdout up to the end of the MCP client configuration). */
  readonly banner: string;
  stderr(): string;
  /** Resolves when stderr contains `text`. */
  waitForStderr(text: string | RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /** SIGKILL if still running (cleanup). */
  kill(): void;
  /** Send a stop signal (as Ctrl-C or a service manager would). */
  signal(signal: NodeJS.Signals): void;
}

/** The banner is complete once the MCP configuration's JSON has closed. */
function bannerEnd(stdout: string): number {
  const at = stdout.indexOf("MCP client configuration");
  if (at === -1) return -1;
  const close = stdout.indexOf("\n}\n", at);
  return close === -1 ? -1 : close + 3;
}

/**
 * Start a server with `command` + `args` (default: `bun src/cli.ts serve`) and
 * wait for its banner. Rejects with everything it printed if it exits first.
 */
export function startServe(
  args: readonly string[],
  options: { command?: readonly string[]; cwd?: string; env?: Record<string, string>; detached?: boolean } = {},
): Promise<ServeProcess> {
  const command = options.command ?? [process.execPath, CLI, "serve"];
  const child = spawn(command[0], [...command.slice(1), ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...cleanEnv(), ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.detached ?? false,
  });
  let stdout = "";
  let stderr = "";
  const stderrWaiters = new Set<() => void>();
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
    for (const wake of stderrWaiters) wake();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`no banner within 30 s\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, 30_000);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}) before its banner\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    });
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
      const end = bannerEnd(stdout);
      if (end === -1) return;
      clearTimeout(timer);
      const url = /^ {2}url: +(\S+)$/m.exec(stdout)?.[1];
      if (!url) return reject(new Error(`banner without url:\n${stdout}`));
      resolve({
        child,
        url,
        banner: stdout.slice(0, end),
        stderr: () => stderr,
        waitForStderr(text, timeoutMs = 15_000) {
          const found = () => (typeof text === "string" ? stderr.includes(text) : text.test(stderr));
          if (found()) return Promise.resolve(stderr);
          return new Promise((res, rej) => {
            const wake = () => {
              if (!found()) return;
              stderrWaiters.delete(wake);
              clearTimeout(t);
              res(stderr);
            };
            const t = setTimeout(() => {
              stderrWaiters.delete(wake);
              rej(new Error(`stderr never showed ${String(text)}:\n${stderr}`));
            }, timeoutMs);
            stderrWaiters.add(wake);
          });
        },
        exited,
        kill() {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
        },
        signal(signal) {
          child.kill(signal);
        },
      });
    });
  });
}

/** The MCP client configuration printed in a banner. */
export function printedMcpConfig(banner: string): { mcpServers: { toolwarden: { type: string; url: string; headers?: Record<string, string> } } } {
  const at = banner.indexOf("{", banner.indexOf("MCP client configuration"));
  return JSON.parse(banner.slice(at));
}

/** POST a tool call over REST. */
export async function restCall(
  url: string,
  token: string | undefined,
  tool: string,
  args: unknown,
  session?: string,
): Promise<{ status: number; body: { isError: boolean; code?: string; content: { text: string }[] } }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  if (session) headers["x-session-id"] = session;
  const response = await fetch(`${url}/v1/tools/${tool}`, { method: "POST", headers, body: JSON.stringify(args) });
  return { status: response.status, body: await response.json() };
}

/** The `N:hh` id of the line `text` in a view result, or throws. */
export function lineId(view: string, text: string): string {
  const line = view.split("\n").find((l) => l.endsWith(`|${text}`));
  if (!line) throw new Error(`no line ${JSON.stringify(text)} in:\n${view}`);
  return line.slice(0, line.indexOf("|"));
}
