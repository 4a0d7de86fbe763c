/**
 * The inspector on the Worker (the deployed bundle in workerd under
 * Miniflare, history in R2): sign in, and a REST call appearing in the
 * live feed (the event stream polls the log; no memory is shared between
 * requests there), its diff, and no console errors.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { expectDiff, expectLiveCall, expectSignedOut, launchBrowser, signIn, type WatchedPage, watchedPage } from "../helpers/browser.ts";
import { type HistoryTarget, utf8 } from "../helpers/history-flow.ts";
import { historyGrants, workerTarget } from "../helpers/history-app.ts";
import { buildWorkerBundle, startWorker, type RunningWorker, type WorkerBundle } from "../helpers/worker-e2e.ts";

// The agent and the auditor only: no admin token on this Worker.
const GRANTS = JSON.stringify(historyGrants("ws").filter((grant) => grant.label !== "admin"));

let bundle: WorkerBundle;
let worker: RunningWorker;
let target: HistoryTarget;
let browser: Browser;
let watched: WatchedPage;

beforeAll(async () => {
  bundle = await buildWorkerBundle();
  worker = await startWorker(bundle, { vars: { TOOLWARDEN_TOKENS: GRANTS } });
  target = workerTarget(worker, "");
  await target.seed("src/app.ts", utf8("export const port = 3000;\nexport const host = 'localhost';\n"));
  browser = await launchBrowser();
  watched = await watchedPage(browser);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await worker?.dispose();
  bundle?.dispose();
});

describe("the inspector on the Worker, in a real browser", () => {
  test("an audit token signs in", async () => {
    await signIn(watched.page, target.url, "audit-token-0123456789");
  }, 30_000);

  test("a call made over REST appears in the feed without a reload", async () => {
    const ms = await expectLiveCall(watched.page, target, "src/app.ts", "agent-w");
    console.log(`inspector (Worker): a REST call appeared in the feed after ${ms.toFixed(0)} ms`);
  }, 30_000);

  test("its diff renders; an audit token is offered no revert", async () => {
    await expectDiff(watched.page, "src/app.ts");
    expect(await watched.page.getByRole("button", { name: /Revert/ }).count()).toBe(0);
  }, 30_000);

  test("signing out leaves only the sign-in page", async () => {
    await expectSignedOut(browser, watched.page, target.url, "src/app.ts");
  }, 30_000);

  test("the browser console showed no errors", () => {
    expect(watched.errors).toEqual([]);
  });
});
