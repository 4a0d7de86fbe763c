/**
 * Two `toolwarden mcp` servers on one directory (two MCP clients on one
 * checkout), each session having viewed the file, send a change of the same
 * line at the same moment: at most one may report success, and the file
 * holds what that one reported. Before the lock file of
 * src/storage/local/target-lock.ts both were told "Applied" in about one
 * trial in six while one change was lost.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { formatHash, lineHash } from "../../src/hash/fnv.ts";
import { CLI, cleanEnv, tempDir } from "../helpers/cli.ts";

const TRIALS = 12;
type Reply = { isError?: boolean; content: { text: string }[] };

async function server(dir: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp", dir, "--quiet", "--no-history"],
    env: cleanEnv(),
    stderr: "pipe",
  });
  const client = new Client({ name: "two-servers", version: "1" });
  await client.connect(transport);
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as Reply;
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`);

describe("two servers on one directory: compare-and-swap holds between them", () => {
  const dir = tempDir("tw-two-servers-");
  let a: Client;
  let b: Client;
  beforeAll(async () => {
    writeFileSync(join(dir.path, "r.txt"), `${lines(200).join("\n")}\n`);
    [a, b] = await Promise.all([server(dir.path), server(dir.path)]);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    dir.remove();
  });

  let round = 0;

  /**
   * Both sessions view the file as it is, then send `change(who)` at once, each setting line 10 to
   * `<kind> <who> <round>` (new text every round); at most one may succeed, and line 10 is then its text.
   */
  async function race(kind: string, change: (line: string, text: string) => [string, Record<string, unknown>]) {
    round++;
    const text = readFileSync(join(dir.path, "r.txt"), "utf8");
    await Promise.all([call(a, "view", { path: "r.txt" }), call(b, "view", { path: "r.txt" })]);
    const lineOf = (who: string) => `${kind} ${who} ${round}`;
    const [ra, rb] = await Promise.all([call(a, ...change(lineOf("A"), text)), call(b, ...change(lineOf("B"), text))]);
    const won = [ra.isError ? undefined : "A", rb.isError ? undefined : "B"].filter((w) => w !== undefined);
    expect(won.length).toBeLessThanOrEqual(1);
    // The loser was told; the file holds the winner's change (or the line as it was, if both lost).
    const line10 = readFileSync(join(dir.path, "r.txt"), "utf8").split("\n")[9];
    expect(line10).toBe(won.length === 1 ? lineOf(won[0] as string) : text.split("\n")[9]);
  }

  test("batch_edit of the same line by id", async () => {
    for (let t = 0; t < TRIALS; t++) {
      await race("batch", (line, text) => {
        const start = `10:${formatHash(lineHash(text.split("\n")[9]))}`;
        return ["batch_edit", { path: "r.txt", operations: [{ operation: "replace", start, content: line }] }];
      });
    }
  });

  test("edit of the same text", async () => {
    for (let t = 0; t < TRIALS; t++) {
      await race("edit", (line, text) => ["edit", { path: "r.txt", old_string: text.split("\n")[9], new_string: line }]);
    }
  });

  test("whole-file write", async () => {
    for (let t = 0; t < TRIALS; t++) {
      await race("write", (line, text) => {
        const next = text.split("\n");
        next[9] = line;
        return ["write", { path: "r.txt", content: next.join("\n") }];
      });
    }
    // No lock or temp file is left behind by either server.
    expect(readdirSync(dir.path)).toEqual(["r.txt"]);
  });
});
