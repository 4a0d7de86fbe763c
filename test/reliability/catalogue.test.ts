/**
 * The catalogue of agent mistakes (test/helpers/reliability/catalogue-tasks.ts)
 * against the real `toolwarden serve` over the official MCP client: no
 * silent wrong write, and every failure's text gives a next call that works.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT, startServe, tempDir, type ServeProcess } from "../helpers/cli.ts";
import { layOut, runCatalogue, summarize, type TaskResult } from "../helpers/reliability/catalogue.ts";
import { catalogueTasks } from "../helpers/reliability/catalogue-tasks.ts";

const TOKEN = "catalogue-token-0123456789abcdef";
const tasks = catalogueTasks();
const ws = tempDir("tw-catalogue-");
let server: ServeProcess;

beforeAll(async () => {
  layOut(ws.path, join(ROOT, "node_modules"), tasks);
  server = await startServe([ws.path, "--port", "0", "--token", TOKEN, "--quiet"]);
});

afterAll(async () => {
  server?.kill();
  await server?.exited;
  ws.remove();
});

function report(results: readonly TaskResult[]): string {
  const s = summarize(results);
  const lines = [
    `catalogue: ${s.tasks} tasks on real sources over MCP; ${s.landed} absorbed on the first call, ${s.failures} failures: ` +
      `${s.recoveredInOne} recovered in one call, ${s.recoveredAfterView} after the view the text asked for, ${s.unrecovered} unrecovered; ` +
      `${s.silentWrongWrites} silent wrong writes, ${s.changedOnFailure} failures that changed bytes`,
  ];
  for (const r of results) {
    if (r.verdict === "landed" || r.verdict.startsWith("recovered")) continue;
    lines.push(
      `- [${r.verdict}] ${r.task.name}${r.task.owner ? ` (needs ${r.task.owner})` : ""} ${r.code ?? ""}\n  ${(r.detail ?? "").split("\n").slice(0, 30).join("\n  ")}`,
    );
  }
  const byMistake = new Map<string, string[]>();
  for (const r of results) byMistake.set(r.task.mistake, [...(byMistake.get(r.task.mistake) ?? []), r.verdict]);
  for (const [mistake, verdicts] of byMistake) lines.push(`  ${mistake}: ${verdicts.join(", ")}`);
  return lines.join("\n");
}

test("the catalogue: 60+ mistakes, 0 silent wrong writes, every failure recoverable from its text", async () => {
  expect(tasks.length).toBeGreaterThanOrEqual(60);
  const results = await runCatalogue(server.url, TOKEN, ws.path, tasks);
  console.log(report(results));
  const s = summarize(results);
  expect(s.silentWrongWrites).toBe(0);
  expect(s.changedOnFailure).toBe(0);
  expect(s.unrecovered).toBe(0);
}, 300_000);
