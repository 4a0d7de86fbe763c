/**
 * A real redis-server for tests: started on 127.0.0.1 at a free port, with
 * no persistence, stopped by its PID. `.ci/run` installs redis-server when it
 * is missing; without it, `redisServerAvailable()` is false and the files
 * that need it say so in one line.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";

/** True when `redis-server` is on PATH. */
export function redisServerAvailable(): boolean {
  return spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;
}

/** A running server. */
export interface RedisServer {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

function startOn(port: number): Promise<ChildProcess> {
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "yes", "--loglevel", "warning", "--logfile", ""],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`redis-server did not get ready within 20 s:\n${output}`));
    }, 20_000);
    const onData = (d: Buffer) => {
      output += d.toString();
      // With loglevel warning, readiness is not logged: a PING answer is the readiness signal.
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}):\n${output}`));
    });
    const ping = (attempt: number) => {
      const probe = spawnSync("redis-cli", ["-h", "127.0.0.1", "-p", String(port), "ping"], { encoding: "utf8" });
      if (probe.stdout?.trim() === "PONG") {
        clearTimeout(timer);
        child.removeAllListeners("exit");
        resolve(child);
      } else if (attempt < 400 && child.exitCode === null) {
        setTimeout(() => ping(attempt + 1), 25);
      }
    };
    ping(0);
  });
}

/** Start a server on a free loopback port (a port taken between choosing and binding is retried). */
export async function startRedisServer(): Promise<RedisServer> {
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    try {
      const child = await startOn(port);
      return {
        url: `redis://127.0.0.1:${port}`,
        port,
        stop: () =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.once("exit", () => resolve());
            child.kill("SIGTERM");
          }),
      };
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}
