/** Progress, per-call log messages and cancellation over `toolwarden mcp` (stdio), with the official SDK client. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type JSONRPCMessage, LoggingMessageNotificationSchema, type LoggingMessageNotification } from "@modelcontextprotocol/sdk/types.js";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, cleanEnv, tempDir } from "../helpers/cli.ts";

function textOf(result: unknown): string {
  return (result as { content: { text: string }[] }).content.map((b) => b.text).join("\n");
}

/** Whether process `pid` exists (signal 0 only checks). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("toolwarden mcp: progress, logging, cancellation", () => {
  const dir = tempDir();
  let client: Client;
  const messages: LoggingMessageNotification["params"][] = [];
  // Every message as it comes off the pipe. The SDK client runs notification handlers a microtask
  // later but drops a call's progress handler at once when its result is read: when a report and the
  // result arrive in one read, `onprogress` never sees the report. What the server sent is read here.
  const wire: JSONRPCMessage[] = [];
  const progressSent = () =>
    wire.flatMap((m) => ("method" in m && m.method === "notifications/progress" ? [m.params as { progress: number; message?: string }] : []));

  beforeAll(async () => {
    mkdirSync(join(dir.path, "many"));
    for (let i = 0; i < 60; i++) writeFileSync(join(dir.path, "many", `f${String(i).padStart(2, "0")}.txt`), `line ${i}\nneedle ${i}\n`);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp", dir.path, "--allow-shell", "--quiet"],
      env: cleanEnv(),
      stderr: "pipe",
    });
    // connect() keeps an onmessage already set and calls it first, for every message, in order.
    transport.onmessage = (message) => void wire.push(message);
    client = new Client({ name: "notify-test", version: "1.0.0" });
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void messages.push(n.params));
    await client.connect(transport);
  });
  afterAll(async () => {
    await client?.close();
    dir.remove();
  });

  test("the server declares the logging capability", () => {
    expect(client.getServerCapabilities()?.logging).toEqual({});
  });

  test("a search over many files reports progress that only grows", async () => {
    wire.length = 0;
    const result = await client.callTool({ name: "view", arguments: { path: "many", content: "needle" } }, undefined, { onprogress: () => {} });
    expect(result.isError).toBe(false);
    const reports = progressSent();
    expect(reports.map((r) => r.progress)).toEqual([25, 50]);
    expect(reports[1].message).toBe("50 files searched, 50 matching lines so far");
  });

  test("bash reports its output as progress", async () => {
    wire.length = 0;
    const result = await client.callTool({ name: "bash", arguments: { command: "printf 'a%.0s' $(seq 1 5000)" } }, undefined, { onprogress: () => {} });
    expect(textOf(result)).toContain("aaaa");
    const reports = progressSent();
    expect(reports.length).toBeGreaterThanOrEqual(1);
    const values = reports.map((r) => r.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(values.at(-1)!).toBeLessThanOrEqual(5000);
  });

  test("a failed call is logged as notifications/message unasked; logging/setLevel info adds every success", async () => {
    const logged = () => messages.map((m) => [m.level, (m.data as { tool: string; outcome: string }).outcome]);
    messages.length = 0;
    await client.callTool({ name: "view", arguments: { path: "many/f01.txt" } });
    await client.callTool({ name: "view", arguments: { path: "missing.txt" } });
    // The notifications precede their responses on the same pipe, so they are all here.
    expect(logged()).toEqual([["warning", "FS_NOT_FOUND"]]);
    expect(messages[0].logger).toBe("toolwarden");

    await client.setLoggingLevel("info");
    messages.length = 0;
    await client.callTool({ name: "view", arguments: { path: "many/f01.txt" } });
    await client.callTool({ name: "view", arguments: { path: "missing.txt" } });
    expect(logged()).toEqual([
      ["info", "ok"],
      ["warning", "FS_NOT_FOUND"],
    ]);

    await client.setLoggingLevel("error");
    messages.length = 0;
    await client.callTool({ name: "view", arguments: { path: "missing.txt" } });
    expect(messages).toEqual([]);
    await client.setLoggingLevel("warning");
  });

  test("notifications/cancelled stops a running command and kills its whole process group", async () => {
    const pidFile = join(dir.path, "child.pid");
    const doneFile = join(dir.path, "done.txt");
    const controller = new AbortController();
    // A grandchild in the background, then output that tells the test both are running.
    const command = `sleep 300 & echo $! > child.pid; echo started; wait; echo finished > done.txt`;
    const call = client.callTool({ name: "bash", arguments: { command } }, undefined, {
      signal: controller.signal,
      onprogress: () => {
        if (existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "") controller.abort("test cancels");
      },
    });
    await expect(call).rejects.toThrow();
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    expect(pid).toBeGreaterThan(0);
    // The group gets SIGTERM at once; wait for it by count, not by a clock budget.
    let checks = 0;
    while (alive(pid) && checks++ < 3000) await Bun.sleep(10);
    expect(alive(pid)).toBe(false);
    expect(existsSync(doneFile)).toBe(false);
    // The session still works after a cancelled call.
    const after = await client.callTool({ name: "bash", arguments: { command: "echo still here" } });
    expect(textOf(after)).toContain("still here");
  });
});
