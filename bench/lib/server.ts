/**
 * Our server as a separate process, as a user runs it: `toolwarden serve`
 * on Bun (src/cli.ts) or Deno (src/deno.ts), on a free port, no auth
 * (loopback only), quiet, with a config file for the limits. Plus the two
 * ways to call it: REST (`POST /v1/tools/:name`) and MCP (Streamable HTTP).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { HttpLimits } from "../../src/http/mod.ts";
import type { ToolResult } from "../../src/result.ts";
import { DENO, ROOT } from "./machine.ts";

/** Where a server runs. */
export type Runtime = "bun" | "deno";

/** A running server process. */
export interface ServerProcess {
  readonly runtime: Runtime;
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

function command(runtime: Runtime): string[] {
  if (runtime === "bun") return [process.execPath, join(ROOT, "src", "cli.ts"), "serve"];
  // --allow-all, as `deno task serve`: local storage acts through /proc/self/fd, which Deno permits only with it.
  return [DENO, "run", "--unstable-no-legacy-abort", "--allow-all", join(ROOT, "src", "deno.ts")];
}

/** Start `serve DIR` on `runtime` with `limits` (and `extra` flags); resolves once the banner names the URL. */
export function startServer(runtime: Runtime, dir: string, limits: HttpLimits = {}, extra: readonly string[] = []): Promise<ServerProcess> {
  const config = join(dir, "..", `tw-bench-config-${runtime}-${process.pid}-${Date.now()}.json`);
  writeFileSync(config, JSON.stringify({ limits }));
  // The audit log goes to a state directory beside the workspace (removed with the bench's temp
  // directory), not to ~/.local/state, where every run used to leave its blobs behind.
  const history =
    extra.includes("--no-history") || extra.includes("--state") ? [] : ["--state", join(dir, "..", `tw-bench-state-${runtime}-${process.pid}-${Date.now()}`)];
  const [cmd, ...args] = command(runtime);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("TOOLWARDEN_")) env[k] = v;
  const child = spawn(cmd, [...args, dir, "--port", "0", "--no-auth", "--quiet", "--config", config, ...history, ...extra], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${runtime} server printed no URL within 60 s:\n${out}\n${err}`));
    }, 60_000);
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.on("close", (code) => {
      clearTimeout(timer);
      reject(new Error(`${runtime} server exited (${code}) before listening:\n${out}\n${err}`));
    });
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const url = /^ {2}url: +(\S+)$/m.exec(out)?.[1];
      if (!url) return;
      clearTimeout(timer);
      resolve({
        runtime,
        url,
        child,
        async stop() {
          child.kill("SIGTERM");
          const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
          await exited;
          clearTimeout(killer);
        },
      });
    });
  });
}

/** A REST client for one observation session, over keep-alive fetch. */
export function restClient(url: string, session: string, headers: Record<string, string> = {}) {
  const base = `${url}/v1/tools/`;
  return async (tool: string, args: Record<string, unknown>): Promise<ToolResult> => {
    const response = await fetch(base + tool, {
      method: "POST",
      headers: { "content-type": "application/json", "x-session-id": session, ...headers },
      body: JSON.stringify(args),
    });
    if (response.status !== 200) throw new Error(`${tool}: HTTP ${response.status}: ${(await response.text()).slice(0, 300)}`);
    return (await response.json()) as ToolResult;
  };
}
