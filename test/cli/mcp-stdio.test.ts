/** `toolwarden mcp` as an MCP client launches it: the official SDK client spawning the real process over stdio. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, cleanEnv, lineId, runCli, tempDir } from "../helpers/cli.ts";

function textOf(result: unknown): string {
  return (result as { content: { text: string }[] }).content.map((b) => b.text).join("\n");
}

describe("toolwarden mcp over stdio", () => {
  const dir = tempDir();
  let client: Client;
  let transport: StdioClientTransport;
  let stderr = "";

  beforeAll(async () => {
    writeFileSync(join(dir.path, "notes.txt"), "alpha\nbeta\ngamma\n");
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp", dir.path, "--allow-shell"],
      env: cleanEnv(),
      stderr: "pipe",
    });
    transport.stderr!.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    client = new Client({ name: "stdio-test", version: "1.0.0" });
    // The client rejects any stdout line that is not a JSON-RPC message, so a clean connect proves stdout is protocol only.
    await client.connect(transport);
  });
  afterAll(async () => {
    await client?.close();
    dir.remove();
  });

  test("tools/list has the file tools and, with --allow-shell, bash", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["view", "write", "edit", "batch_edit", "bash"]);
    expect(client.getServerVersion()?.name).toBe("toolwarden");
  });

  test("a view then an edit change the file on disk, and each call is logged on stderr", async () => {
    const view = await client.callTool({ name: "view", arguments: { path: "notes.txt" } });
    expect(view.isError).toBe(false);
    expect(lineId(textOf(view), "beta")).toMatch(/^2:[0-9a-f]{2}$/);
    const edit = await client.callTool({ name: "edit", arguments: { path: "notes.txt", old_string: "beta", new_string: "BETA" } });
    expect(edit.isError).toBe(false);
    expect(readFileSync(join(dir.path, "notes.txt"), "utf8")).toBe("alpha\nBETA\ngamma\n");
    expect(stderr).toMatch(/ mcp view ok \d+ms\n/);
    expect(stderr).toMatch(/ mcp edit ok \d+ms\n/);
    expect(stderr).toContain(`mcp over stdio on ${dir.path}`);
  });

  test("structuredContent carries path, version, shown lines, and the changed ranges with fresh ids an edit can use directly", async () => {
    writeFileSync(join(dir.path, "list.txt"), "one\ntwo\nthree\n");
    const view = await client.callTool({ name: "view", arguments: { path: "list.txt" } });
    const seen = view.structuredContent as { ok: boolean; path: string; version: string; lines: unknown };
    expect(seen).toMatchObject({ ok: true, path: "list.txt", lines: { from: 1, to: 3, total: 3 } });
    expect(seen.version).toBeString();

    const edit = await client.callTool({ name: "edit", arguments: { path: "list.txt", old_string: "two", new_string: "2a\n2b" } });
    const changed = edit.structuredContent as {
      ok: boolean;
      version: string;
      changes: { oldStart: number; oldCount: number; newStart: number; newCount: number; ids: string[]; complete: boolean }[];
    };
    expect(changed.ok).toBe(true);
    expect(changed.version).not.toBe(seen.version);
    expect(changed.changes).toHaveLength(1);
    expect(changed.changes[0]).toMatchObject({ oldStart: 2, oldCount: 1, newStart: 2, newCount: 2, complete: true });
    // The ids are the ones the diff text shows for the new lines.
    expect(changed.changes[0].ids).toEqual([lineId(textOf(edit).replaceAll("+ ", ""), "2a"), lineId(textOf(edit).replaceAll("+ ", ""), "2b")]);

    // A harness chains the next edit on those ids without parsing text or viewing again.
    const [, second] = changed.changes[0].ids;
    const batch = await client.callTool({
      name: "batch_edit",
      arguments: { path: "list.txt", operations: [{ operation: "replace", start: second, content: "2B" }] },
    });
    expect(textOf(batch)).toContain("Applied 1 operation");
    expect(readFileSync(join(dir.path, "list.txt"), "utf8")).toBe("one\n2a\n2B\nthree\n");
    expect(batch.structuredContent).toMatchObject({ ok: true, path: "list.txt", changes: [{ oldStart: 3, oldCount: 1, newStart: 3, newCount: 1 }] });

    const failed = await client.callTool({ name: "view", arguments: { path: "missing.txt" } });
    expect(failed.structuredContent).toEqual({ ok: false, code: "FS_NOT_FOUND" });
  });

  test("every tool declares the output schema its structuredContent follows", async () => {
    const { tools } = await client.listTools();
    for (const tool of tools) expect(tool.outputSchema).toMatchObject({ type: "object", required: ["ok"] });
  });

  test("an edit without a view fails loudly and leaves the file as it was", async () => {
    writeFileSync(join(dir.path, "unseen.txt"), "one\n");
    const result = await client.callTool({ name: "edit", arguments: { path: "unseen.txt", old_string: "one", new_string: "two" } });
    expect(result.isError).toBe(true);
    expect((result._meta as Record<string, unknown>)["toolwarden/code"]).toBe("FS_NOT_OBSERVED");
    expect(readFileSync(join(dir.path, "unseen.txt"), "utf8")).toBe("one\n");
  });
});

describe("toolwarden mcp on the command line", () => {
  test("--help goes to stdout and names the transport", async () => {
    const out = await runCli(["mcp", "--help"]);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("Usage: toolwarden mcp [DIR]");
  });

  test("a missing directory is one line on stderr, nothing on stdout, exit 2", async () => {
    const out = await runCli(["mcp", "/nonexistent/tw-dir"]);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe("");
    expect(out.stderr).toContain("/nonexistent/tw-dir: no such directory");
  });

  test("calls still running when the client closes stdin are answered before the process exits", async () => {
    const dir = tempDir();
    try {
      const lines = [
        {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "pipe", version: "1" } },
        },
        { jsonrpc: "2.0", method: "notifications/initialized" },
        // Still running when stdin ends (the whole input arrives at once): answered all the same.
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "bash", arguments: { command: "sleep 0.3; echo late" } } },
        { jsonrpc: "2.0", id: 3, method: "tools/list" },
      ];
      const out = await runCli(["mcp", dir.path, "--quiet", "--no-history", "--allow-shell"], { stdin: `${lines.map((l) => JSON.stringify(l)).join("\n")}\n` });
      expect(out.code).toBe(0);
      const answers = out.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { id?: number; result?: { content?: { text: string }[] } });
      expect(answers.map((a) => a.id).sort()).toEqual([1, 2, 3]);
      expect(answers.find((a) => a.id === 2)!.result!.content![0].text).toContain("late");
    } finally {
      dir.remove();
    }
  });

  test("the process exits 0 when the client closes stdin", async () => {
    const dir = tempDir();
    try {
      const out = await runCli(["mcp", dir.path], { stdin: "" });
      expect(out.code).toBe(0);
      expect(out.stdout).toBe("");
    } finally {
      dir.remove();
    }
  });
});
