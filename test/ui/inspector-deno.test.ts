/** The inspector under Deno (`deno task serve`, the same app): sign in, the live feed, the diff, a revert from the page, in a real browser. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { directoryTarget, historyTokensConfig } from "../helpers/history-app.ts";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { expectDiff, expectLiveCall, expectRevertFromPage, launchBrowser, signIn, type WatchedPage, watchedPage } from "../helpers/browser.ts";
import { ROOT, type ServeProcess, startServe, tempDir } from "../helpers/cli.ts";
import { type HistoryTarget, utf8 } from "../helpers/history-flow.ts";

const deno = join(ROOT, "node_modules", ".bin", "deno");
const work = tempDir("tw-inspector-deno-");
const root = join(work.path, "ws");
const ORIGINAL = utf8("export const port = 3000;\nexport const host = 'localhost';\n");
let server: ServeProcess;
let target: HistoryTarget;
let browser: Browser;
let watched: WatchedPage;

beforeAll(async () => {
  mkdirSync(join(root, "src"), { recursive: true });
  writeFileSync(join(root, "src/app.ts"), ORIGINAL);
  const config = join(work.path, "tw.json");
  writeFileSync(config, historyTokensConfig(root));
  // Own process group: `deno task` runs `deno run` as a child, and cleanup must reach both.
  server = await startServe([root, "--port", "0", "--config", config, "--state", join(work.path, "state")], {
    command: [deno, "task", "serve"],
    detached: true,
  });
  target = directoryTarget(server.url, root);
  browser = await launchBrowser();
  watched = await watchedPage(browser);
}, 90_000);
afterAll(async () => {
  await browser?.close();
  try {
    process.kill(-server.child.pid!, "SIGKILL");
  } catch {
    // Already gone.
  }
  work.remove();
});

describe("the inspector under Deno, in a real browser", () => {
  test("sign in, a REST call in the live feed, its diff, a revert from the page, no console errors", async () => {
    expect(server.banner).toContain(`ui:     ${server.url}/ui`);
    await signIn(watched.page, server.url, "admin-token-0123456789");
    const ms = await expectLiveCall(watched.page, target, "src/app.ts", "agent-d");
    console.log(`inspector (Deno): a REST call appeared in the feed after ${ms.toFixed(0)} ms`);
    await expectDiff(watched.page, "src/app.ts");
    await expectRevertFromPage(watched.page, server.url, target, "src/app.ts", ORIGINAL);
    expect(watched.errors).toEqual([]);
  }, 90_000);
});
