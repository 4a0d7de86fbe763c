/**
 * Audit log, history and revert on a real `serve` process over a local
 * directory, with the log in a state directory outside the workspace; and
 * `toolwarden log` reading it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { directoryTarget, historyTokensConfig } from "../helpers/history-app.ts";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  expectConflict,
  expectLogOfFiveEdits,
  expectReservedUnreachable,
  expectScopes,
  expectSessionRevert,
  fiveEdits,
  type HistoryTarget,
} from "../helpers/history-flow.ts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CLI, cleanEnv, runCli, type ServeProcess, startServe, tempDir } from "../helpers/cli.ts";

const work = tempDir("tw-history-");
const root = join(work.path, "ws");
const state = join(work.path, "state");
let server: ServeProcess;
let target: HistoryTarget;

beforeAll(async () => {
  mkdirSync(root);
  const config = join(work.path, "tw.json");
  writeFileSync(config, historyTokensConfig(root));
  server = await startServe([root, "--port", "0", "--config", config, "--state", state]);
  target = directoryTarget(server.url, root);
});
afterAll(() => {
  server?.kill();
  work.remove();
});

describe("history on a local serve", () => {
  test("a session's 5 edits are logged in order; nothing of the log is inside the workspace", async () => {
    await fiveEdits(target, "s1");
    await expectLogOfFiveEdits(target, "s1");
    expect(readdirSync(root).sort()).toEqual(["docs", "src", "win.txt"]);
    expect(readdirSync(join(state, "workspaces")).length).toBe(1);
  });

  test("view, write and search cannot reach the reserved name", async () => {
    await expectReservedUnreachable(target);
  });

  test("toolwarden log prints the session's changes as a person reads them", async () => {
    const r = await runCli(["log", root, "--state", state, "--session", "s1"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    const heads = lines.filter((l) => !l.startsWith("    "));
    expect(heads.length).toBe(5);
    expect(heads[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z {2}edit src\/app\.ts {2}OK {2}by agent \(session s1\) {2}\[change \d+-[0-9a-f]+\]$/);
    expect(heads[4]).toContain("write docs/bom.md");
    expect(r.stdout).toMatch(/^ {4}changed {2}docs\/bom\.md {2}23 -> 22 B {2}\(\w{12}… -> \w{12}…\)$/m);
    expect(r.stdout).toMatch(/^ {4}changed {2}win\.txt {2}20 -> 20 B /m);
    const none = await runCli(["log", root, "--state", state, "--session", "nobody"]);
    expect(none.stdout).toBe(`No changes recorded for ${root}.\n`);
  });

  test("reverting the session restores the files byte for byte", async () => {
    await expectSessionRevert(target, "s1");
  });

  test("a later writer's change is a conflict, left as they left it", async () => {
    await expectConflict(target);
  });

  test("scopes hold", async () => {
    await expectScopes(target);
  });
});

/** A fresh workspace and state directory; once `run` is done, `toolwarden log` lists a successful write of each of `files`. */
async function expectRecorded(prefix: string, files: readonly string[], run: (ws: string, stateDir: string) => Promise<void>): Promise<void> {
  const dir = tempDir(prefix);
  try {
    const ws = join(dir.path, "ws");
    const stateDir = join(dir.path, "state");
    mkdirSync(ws);
    await run(ws, stateDir);
    const r = await runCli(["log", ws, "--state", stateDir]);
    expect(r.code).toBe(0);
    for (const file of files) expect(r.stdout).toContain(`write ${file}  OK`);
  } finally {
    dir.remove();
  }
}

describe("recording after the reply", () => {
  test("a call answered just before SIGTERM is in the log once the server has exited", async () => {
    await expectRecorded("tw-history-stop-", ["f1.txt", "f2.txt", "f3.txt"], async (ws, stateDir) => {
      const serve = await startServe([ws, "--port", "0", "--no-auth", "--quiet", "--state", stateDir]);
      try {
        const writes = await Promise.all(
          [1, 2, 3].map((k) =>
            fetch(`${serve.url}/v1/tools/write`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ path: `f${k}.txt`, content: `file ${k}\n` }),
            }).then((r) => r.json() as Promise<{ isError: boolean }>),
          ),
        );
        expect(writes.map((w) => w.isError)).toEqual([false, false, false]);
        serve.signal("SIGTERM");
        expect(await serve.exited).toBe(0);
      } finally {
        serve.kill();
      }
    });
  });

  test("stdio mcp: calls answered just before the client closes stdin are in the log once the process has exited", async () => {
    await expectRecorded("tw-history-stdio-", ["s1.txt", "s2.txt", "s3.txt"], async (ws, stateDir) => {
      const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp", ws, "--state", stateDir, "--quiet"], env: cleanEnv() });
      const client = new Client({ name: "history-stdio", version: "1" });
      await client.connect(transport);
      try {
        for (const k of [1, 2, 3]) {
          // Large enough that recording the last one (hashing and storing its bytes) is still under way when stdin closes.
          const content = `stdio ${k}\n${"x".repeat(63)}\n`.repeat(k === 3 ? 40_000 : 1);
          const written = await client.callTool({ name: "write", arguments: { path: `s${k}.txt`, content } });
          expect(written.isError).toBe(false);
        }
      } finally {
        // Ends stdin, then waits for the process to exit.
        await client.close();
      }
    });
  });
});
