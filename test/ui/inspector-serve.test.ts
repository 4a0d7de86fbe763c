/**
 * The inspector in a real browser against a real `serve` process (Bun) over
 * a local directory: every flow of issue 18, and the screenshots in docs/.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { directoryTarget, historyTokensConfig } from "../helpers/history-app.ts";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import {
  expectConflictShown,
  expectDiff,
  expectLiveCall,
  expectRevertFromPage,
  expectSignedOut,
  launchBrowser,
  screenshotPath,
  signIn,
  type WatchedPage,
  watchedPage,
} from "../helpers/browser.ts";
import { ROOT, type ServeProcess, startServe, tempDir } from "../helpers/cli.ts";
import { type HistoryTarget, ok, utf8 } from "../helpers/history-flow.ts";

const work = tempDir("tw-inspector-");
const root = join(work.path, "ws");
const ORIGINAL = utf8("export const port = 3000;\nexport const host = 'localhost';\n");
let server: ServeProcess;
let target: HistoryTarget;
let browser: Browser;
let watched: WatchedPage;

beforeAll(async () => {
  mkdirSync(join(root, "src"), { recursive: true });
  writeFileSync(join(root, "src/app.ts"), ORIGINAL);
  writeFileSync(join(root, "README.md"), "# demo\n");
  const config = join(work.path, "tw.json");
  writeFileSync(config, historyTokensConfig(root));
  server = await startServe([root, "--port", "0", "--config", config, "--state", join(work.path, "state")]);
  target = directoryTarget(server.url, root);
  browser = await launchBrowser();
  watched = await watchedPage(browser);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  server?.kill();
  work.remove();
});

describe("the inspector on a real serve, in a real browser", () => {
  test("the banner prints the UI address", () => {
    expect(server.banner).toContain(`ui:     ${server.url}/ui`);
  });

  test("an agent token cannot sign in; an admin token can", async () => {
    const { page } = watched;
    await page.goto(`${server.url}/ui`);
    await page.getByLabel(/Token/).fill("agent-token-0123456789");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").waitFor();
    expect(await page.getByRole("alert").textContent()).toContain("needs a token with scope audit");
    await signIn(page, server.url, "admin-token-0123456789");
  }, 30_000);

  test("a call made over REST appears in the feed without a reload", async () => {
    await ok(target, "view", { path: "README.md" }, "agent-1");
    const ms = await expectLiveCall(watched.page, target, "src/app.ts", "agent-1");
    console.log(`inspector: a REST call appeared in the feed after ${ms.toFixed(0)} ms`);
    const shot = screenshotPath(ROOT, "inspector.png");
    await watched.page.screenshot({ path: shot });
    expect(statSync(shot).size).toBeGreaterThan(10_000);
  }, 30_000);

  test("its page shows the arguments, the model's text and the diff with line ids", async () => {
    await expectDiff(watched.page, "src/app.ts");
    const shot = screenshotPath(ROOT, "inspector-call.png");
    await watched.page.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(10_000);
  }, 30_000);

  test("revert to the original version from the file page restores it byte for byte", async () => {
    await expectRevertFromPage(watched.page, server.url, target, "src/app.ts", ORIGINAL);
  }, 30_000);

  test("a revert after another writer changed the file shows the conflict and forces nothing", async () => {
    await expectConflictShown(watched.page, server.url, target, "src/app.ts", "agent-2");
  }, 30_000);

  test("sessions list their calls and the files they observed", async () => {
    const { page } = watched;
    await page.goto(`${server.url}/ui/sessions`);
    await page.getByRole("link", { name: "agent-1" }).click();
    await page.getByRole("heading", { name: "Session agent-1" }).waitFor();
    const observed = page.locator("h2:text('Files it observed') + p + ul");
    expect(await observed.textContent()).toContain("README.md");
    expect(await observed.textContent()).toContain("src/app.ts");
  }, 30_000);

  test("keyboard only: Tab reaches the navigation and the revert buttons, Enter follows a link", async () => {
    const { page } = watched;
    await page.goto(`${server.url}/ui/file?path=src%2Fapp.ts`);
    const focused = () => page.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.textContent?.trim()}`);
    const reached: string[] = [];
    for (let i = 0; i < 40 && !reached.includes("BUTTON Revert to this version"); i++) {
      await page.keyboard.press("Tab");
      reached.push(await focused());
    }
    expect(reached).toContain("A Files");
    expect(reached).toContain("BUTTON Sign out");
    expect(reached).toContain("BUTTON Revert to this version");
    await page.goto(`${server.url}/ui`);
    for (let i = 0; i < 10 && (await focused()) !== "A Sessions"; i++) await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Sessions" }).waitFor();
  }, 30_000);

  test("a forged revert (no CSRF token, foreign origin) changes nothing", async () => {
    const before = await target.bytes("src/app.ts");
    const cookies = await watched.context.cookies();
    const cookie = cookies.map((c) => `${c.name}=${c.value}`).join("; ");
    const forged = await fetch(`${server.url}/ui/revert`, {
      method: "POST",
      headers: { cookie, origin: "http://evil.example", "content-type": "application/x-www-form-urlencoded" },
      body: "path=src/app.ts&version=x&expect=",
    });
    expect(await forged.text()).not.toContain("Reverted");
    const noToken = await fetch(`${server.url}/ui/revert`, {
      method: "POST",
      headers: { cookie, origin: server.url, "content-type": "application/x-www-form-urlencoded" },
      body: "change=x",
    });
    expect(await noToken.text()).toContain("CSRF");
    expect(await target.bytes("src/app.ts")).toEqual(before!);
  }, 30_000);

  test("signing out, or having no cookie, leaves only the sign-in page", async () => {
    await expectSignedOut(browser, watched.page, server.url, "src/app.ts");
  }, 30_000);

  test("the browser console showed no errors", () => {
    expect(watched.errors).toEqual([]);
  });
});
