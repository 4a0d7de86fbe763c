/**
 * A regex-bomb user rule against the real server (Bun and Deno), loaded from a config file: the
 * rule runs on RE2, so `(a+)+$` over 34 a's and a "!" completes, and the server keeps answering.
 * Asserted by completion and result, never by timing.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { restCall, ROOT, runCli, startServe, tempDir, type ServeProcess } from "../helpers/cli.ts";

const TOKEN = "rule-bomb-token-0123";
const deno = join(ROOT, "node_modules", ".bin", "deno");

const BOMB_RULE = { id: "bomb", pattern: "(a+)+$", flags: "m", tools: ["view"], action: "error", message: "A line of only a's." };

function workspace(): { path: string; config: string; remove(): void } {
  const dir = tempDir();
  writeFileSync(join(dir.path, "bomb.txt"), `${"a".repeat(34)}!\n`);
  writeFileSync(join(dir.path, "hit.txt"), "aaaa\n");
  const config = join(dir.path, "tw.json");
  writeFileSync(config, JSON.stringify({ rules: { rules: [BOMB_RULE] } }));
  return { path: dir.path, config, remove: dir.remove };
}

async function exercise(server: ServeProcess): Promise<void> {
  const bomb = await restCall(server.url, TOKEN, "view", { path: "bomb.txt" }, "s");
  expect(bomb.status).toBe(200);
  expect(bomb.body.isError).toBe(false);
  expect(bomb.body.content[0].text).toContain(`|${"a".repeat(34)}!`);
  // The rule is live: a line of only a's is blocked, naming it.
  const hit = await restCall(server.url, TOKEN, "view", { path: "hit.txt" }, "s");
  expect(hit.body.isError).toBe(true);
  expect(hit.body.code).toBe("RULE_BLOCKED");
  expect(hit.body.content.map((c) => c.text).join("\n")).toContain("bomb");
  // And the server still answers the next call.
  const again = await restCall(server.url, TOKEN, "view", { path: "bomb.txt" }, "s");
  expect(again.body.isError).toBe(false);
}

describe("a regex-bomb user rule from the config file", () => {
  test("bun: the view completes, the rule still fires where it should", async () => {
    const ws = workspace();
    const server = await startServe([ws.path, "--port", "0", "--token", TOKEN, "--config", ws.config]);
    try {
      await exercise(server);
    } finally {
      server.kill();
      ws.remove();
    }
  });

  test.skipIf(!existsSync(deno))(
    "deno: the view completes, the rule still fires where it should",
    async () => {
      const ws = workspace();
      const server = await startServe([ws.path, "--port", "0", "--token", TOKEN, "--config", ws.config], {
        command: [deno, "task", "serve"],
        detached: true,
      });
      try {
        await exercise(server);
      } finally {
        // `deno task` runs `deno run` as a child: end the whole group.
        try {
          process.kill(-server.child.pid!, "SIGKILL");
        } catch {
          // Already gone.
        }
        ws.remove();
      }
    },
    60_000,
  );

  test("a lookahead rule fails start-up naming the rule and the rewrite, exit 2", async () => {
    const dir = tempDir();
    try {
      const config = join(dir.path, "tw.json");
      writeFileSync(config, JSON.stringify({ rules: { rules: [{ id: "ahead", pattern: "foo(?=bar)", action: "error", message: "x" }] } }));
      const r = await runCli(["serve", dir.path, "--config", config]);
      expect(r.code).toBe(2);
      expect(r.stderr).toStartWith(`toolwarden: ${config}: rules: rule "ahead": lookahead "(?=" is not supported`);
      expect(r.stderr).toContain('"foo(?=bar)" -> "foobar"');
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
    } finally {
      dir.remove();
    }
  });
});
