/**
 * Red-team pass on `toolwarden mcp` over stdio, speaking raw JSON-RPC lines
 * to the real process: garbage lines, hostile resource URIs (traversal,
 * encodings, the reserved `.toolwarden/`, symlinks out), a subscription
 * flood, and a message larger than the transport's buffer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_SUBSCRIPTIONS } from "../../src/http/mcp-resources.ts";
import { CLI, cleanEnv, tempDir } from "../helpers/cli.ts";

/** A JSON-RPC answer: `result` on success, `error` otherwise (a test reads the one it expects). */
interface RpcAnswer {
  readonly id: number;
  readonly result: { readonly contents?: { readonly text: string }[] };
  readonly error: { readonly code: number; readonly message: string };
}

interface Rpc {
  readonly child: ChildProcessWithoutNullStreams;
  request(method: string, params?: unknown): Promise<RpcAnswer>;
  stderr(): string;
  exited: Promise<number | null>;
}

/** Start `toolwarden mcp ARGS` and initialize it; answers are matched to requests by id. */
async function startMcp(args: readonly string[]): Promise<Rpc> {
  const child = spawn(process.execPath, [CLI, "mcp", ...args], { env: cleanEnv(), stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const waiting = new Map<number, (message: RpcAnswer) => void>();
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    out += d;
    for (let at = out.indexOf("\n"); at !== -1; at = out.indexOf("\n")) {
      const message = JSON.parse(out.slice(0, at)); // stdout must carry JSON-RPC lines only
      out = out.slice(at + 1);
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    }
  });
  child.stdin.on("error", () => {}); // the server may exit before a test's last write
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  let next = 0;
  const rpc: Rpc = {
    child,
    exited,
    stderr: () => err,
    request(method, params) {
      const id = ++next;
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })}\n`);
      return new Promise((resolve) => waiting.set(id, resolve));
    },
  };
  await rpc.request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "attacks", version: "1" } });
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  return rpc;
}

const dir = tempDir("tw-mcp-attacks-");
const ws = join(dir.path, "ws");
let rpc: Rpc;

beforeAll(async () => {
  mkdirSync(ws);
  writeFileSync(join(dir.path, "outside.txt"), "OUTSIDE SECRET\n");
  writeFileSync(join(ws, "a.txt"), "a\n");
  symlinkSync(join(dir.path, "outside.txt"), join(ws, "link.txt"));
  symlinkSync(dir.path, join(ws, "linkdir"));
  rpc = await startMcp([ws, "--quiet", "--no-history"]);
});
afterAll(() => {
  rpc?.child.kill("SIGKILL");
  dir.remove();
});

describe("toolwarden mcp (stdio) under attack", () => {
  test("garbage lines (not JSON, a cut object, not JSON-RPC, an array) leave the session answering", async () => {
    for (const line of ["this is not json", '{"jsonrpc":"2.0","id":"x"', '{"foo":1}', "[1,2,3]", ""]) rpc.child.stdin.write(`${line}\n`);
    expect((await rpc.request("ping")).result).toEqual({});
  });

  test("hostile resource URIs are refused as the client's error, never read outside, never InternalError", async () => {
    const refused: Record<string, RegExp> = {
      "file:///../../etc/passwd": /escapes the workspace root/,
      "file:///%2e%2e/%2e%2e/etc/passwd": /escapes the workspace root/,
      "file:///a%2F..%2F..%2Fx": /escapes the workspace root/,
      "file:///%E0%A4%A": /Bad resource URI/,
      "file:///a%00.txt": /NUL/,
      "file://host/x": /Unsupported resource URI/,
      "FILE:///a.txt": /Unsupported resource URI/,
      "file:///.toolwarden/history/audit": /reserved/,
      "file:///%2Etoolwarden/x": /reserved/,
      "file:///./.toolwarden/x": /reserved/,
      "file:///a/../.toolwarden/x": /reserved/,
      "file:///link.txt": /outside the workspace/,
      "file:///linkdir/outside.txt": /outside the workspace/,
    };
    for (const [uri, why] of Object.entries(refused)) {
      const answer = await rpc.request("resources/read", { uri });
      expect({ uri, code: answer.error?.code }).toEqual({ uri, code: -32602 });
      expect(answer.error.message).toMatch(why);
      expect(JSON.stringify(answer)).not.toContain("OUTSIDE SECRET");
    }
    // A leading "//" is the workspace root, as for tools: /etc/passwd is etc/passwd inside, which is absent.
    expect((await rpc.request("resources/read", { uri: "file:////etc/passwd" })).error.code).toBe(-32002);
  });

  test("hostile resources/list cursors are InvalidParams", async () => {
    for (const cursor of ["-1", "1e3", "99999999999", "abc", ""]) {
      expect((await rpc.request("resources/list", { cursor })).error.code).toBe(-32602);
    }
  });

  test(`a subscription flood stops at ${MAX_SUBSCRIPTIONS} per session; unsubscribing makes room`, async () => {
    const uri = (i: number) => `file:///flood/${"d/".repeat(200)}f${i}.txt`;
    const answers = await Promise.all(Array.from({ length: MAX_SUBSCRIPTIONS }, (_, i) => rpc.request("resources/subscribe", { uri: uri(i) })));
    expect(answers.filter((a) => a.error)).toEqual([]);
    const over = await rpc.request("resources/subscribe", { uri: uri(MAX_SUBSCRIPTIONS) });
    expect(over.error.code).toBe(-32600);
    expect(over.error.message).toContain("resources/unsubscribe");
    // Subscribing again to one already held costs nothing.
    expect((await rpc.request("resources/subscribe", { uri: uri(0) })).result).toEqual({});
    expect((await rpc.request("resources/unsubscribe", { uri: uri(0) })).result).toEqual({});
    expect((await rpc.request("resources/subscribe", { uri: uri(MAX_SUBSCRIPTIONS) })).result).toEqual({});
  });
});

/** The resident set of a process, in MiB. */
function rssMiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
}

describe("a client that sends and never reads", () => {
  test("the server's memory stays bounded (at most 16 answers wait), and every answer arrives once the client reads", async () => {
    writeFileSync(join(ws, "big.txt"), "y".repeat(2 * 1024 * 1024));
    const reader = await startMcp([ws, "--quiet", "--no-history"]);
    reader.child.stdout.pause();
    const answers: Promise<RpcAnswer>[] = [];
    for (let i = 0; i < 100; i++) answers.push(reader.request("resources/read", { uri: "file:///big.txt" }));
    // Sample while nothing is read (bounded count of samples); unbounded, 100 answers of 2 MiB took 700+ MiB.
    let peak = 0;
    for (let i = 0; i < 30; i++) {
      await Bun.sleep(100);
      peak = Math.max(peak, rssMiB(reader.child.pid!));
    }
    expect(peak).toBeLessThan(350);
    reader.child.stdout.resume();
    const all = await Promise.all(answers);
    expect(all.every((a) => a.result?.contents?.[0].text.length === 2 * 1024 * 1024)).toBe(true);
    reader.child.kill("SIGKILL");
  }, 60_000);
});

describe("a message over the stdio buffer", () => {
  test("closes the session loudly and ends the process with 1, instead of leaving it up and deaf", async () => {
    const victim = await startMcp([ws, "--quiet", "--no-history"]);
    // 11 MiB without a newline: over the transport's 10 MiB buffer.
    const chunk = "x".repeat(1024 * 1024);
    for (let i = 0; i < 11; i++) victim.child.stdin.write(chunk);
    expect(await victim.exited).toBe(1);
    expect(victim.stderr()).toContain("the client sent a message over 10485760 bytes");
    expect(victim.stderr()).toContain("closing the session");
  });
});
