/**
 * The inspector driven in a real browser (chromium-headless-shell through
 * playwright-core), the same flows against any running server: sign in, a
 * REST call appearing in the live feed, its diff, a revert from the page,
 * a conflict, signing out, and no console errors along the way. Waits are on
 * the DOM, never fixed sleeps.
 */
import { expect } from "bun:test";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { type HistoryTarget, ok, utf8 } from "./history-flow.ts";

export const CHROMIUM = process.env.TW_CHROMIUM ?? "/usr/bin/chromium-headless-shell";

/** Launch the system's headless Chromium (CI installs the Debian package). */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no browser at ${CHROMIUM}: apt-get install -y chromium-headless-shell (or set TW_CHROMIUM)`);
  return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
}

/**
 * Where a screenshot for the docs goes: `docs/NAME` when it is missing or
 * `TW_SCREENSHOTS=1` asks to retake it, else a temp file (so a test run does
 * not leave a changed binary in the work tree every time).
 */
export function screenshotPath(root: string, name: string): string {
  const docs = join(root, "docs", name);
  if (process.env.TW_SCREENSHOTS === "1" || !existsSync(docs)) return docs;
  return join(mkdtempSync(join(tmpdir(), "tw-shot-")), name);
}

/** A page whose console errors and uncaught exceptions are collected. */
export interface WatchedPage {
  readonly page: Page;
  readonly context: BrowserContext;
  readonly errors: string[];
}

export async function watchedPage(browser: Browser): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(`console: ${msg.text()}`);
  });
  page.on("pageerror", (error) => errors.push(`page: ${error.message}`));
  return { page, context, errors };
}

/** Flow 1: the sign-in page, then the feed. */
export async function signIn(page: Page, url: string, token: string): Promise<void> {
  await page.goto(`${url}/ui`);
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
  await page.getByLabel(/Token/).fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Calls" }).waitFor();
}

/**
 * Flow 2: a write over REST appears in the open feed without a reload.
 * Returns the time it took (ms) for the report; the wait itself is on the DOM.
 */
export async function expectLiveCall(page: Page, target: HistoryTarget, path: string, session: string): Promise<number> {
  await page.evaluate(() => ((window as unknown as { twMarker: number }).twMarker = 42));
  // The stream is open once the feed's script has connected; the first event it sends is "ready".
  const started = performance.now();
  await ok(target, "view", { path }, session);
  await ok(target, "edit", { path, old_string: "port = 3000", new_string: "port = 8080" }, session);
  const row = page.locator("#feed tr", { hasText: "edit" }).filter({ hasText: path }).first();
  await row.waitFor({ timeout: 20_000 });
  const elapsed = performance.now() - started;
  expect(await page.evaluate(() => (window as unknown as { twMarker?: number }).twMarker)).toBe(42);
  expect(await row.textContent()).toContain(session);
  expect(await row.textContent()).toContain("OK");
  return elapsed;
}

/** Flow 3: the call page shows the arguments, the model's text and the coloured diff with line ids. */
export async function expectDiff(page: Page, path: string): Promise<void> {
  await page.locator("#feed tr", { hasText: "edit" }).filter({ hasText: path }).first().getByRole("link", { name: "edit" }).click();
  await page.getByRole("heading", { name: "Arguments" }).waitFor();
  expect(await page.locator("pre.args").textContent()).toContain('"new_string":"port = 8080"');
  expect((await page.locator("pre.result").textContent())!.length).toBeGreaterThan(0);
  const added = await page.locator("pre.diff span.add").allTextContents();
  const removed = await page.locator("pre.diff span.del").allTextContents();
  expect(added.some((l) => /^\+ \d+:[0-9a-z]{2}\|export const port = 8080;$/.test(l))).toBe(true);
  expect(removed.some((l) => /^- \d+:[0-9a-z]{2}\|export const port = 3000;$/.test(l))).toBe(true);
  // Colour is not the only signal, but it is there.
  const colour = await page
    .locator("pre.diff span.add")
    .first()
    .evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(colour).not.toBe("rgba(0, 0, 0, 0)");
}

/** Open a file's page from the Files tree (keyboard-reachable links). */
export async function openFile(page: Page, url: string, path: string): Promise<void> {
  await page.goto(`${url}/ui/files`);
  await page.getByRole("link", { name: path.split("/").pop()! }).click();
  await page.getByRole("heading", { name: path }).waitFor();
}

/** Flow 4: "Revert to this version" on the oldest version restores the file byte for byte. */
export async function expectRevertFromPage(page: Page, url: string, target: HistoryTarget, path: string, original: Uint8Array): Promise<void> {
  await openFile(page, url, path);
  expect(await page.locator("pre.view").textContent()).toMatch(/^1:[0-9a-z]{2}\|export const port = 8080;/);
  await page.locator("table.history tbody tr").last().getByRole("button", { name: "Revert to this version" }).click();
  await page.getByRole("heading", { name: "Reverted" }).waitFor();
  expect(await target.bytes(path)).toEqual(original);
}

/** Flow 5: the page was loaded, then another writer changed the file: the revert is a conflict, and their bytes stay. */
export async function expectConflictShown(page: Page, url: string, target: HistoryTarget, path: string, session: string): Promise<void> {
  await ok(target, "view", { path }, session);
  await ok(target, "edit", { path, old_string: "port = 3000", new_string: "port = 9090" }, session);
  await openFile(page, url, path);
  const theirs = utf8("export const port = 1234; // someone else\n");
  await target.seed(path, theirs);
  await page.locator("table.history tbody tr").last().getByRole("button", { name: "Revert to this version" }).click();
  await page.getByRole("heading", { name: "Revert conflict" }).waitFor();
  expect(await page.getByRole("alert").textContent()).toContain("Conflict");
  expect(await page.locator("section.conflict").textContent()).toContain("changed since");
  expect(await target.bytes(path)).toEqual(theirs);
}

/** Flow 6: after signing out, every page is the sign-in page; so it is for a browser with no cookie. */
export async function expectSignedOut(browser: Browser, page: Page, url: string, secretPath: string): Promise<void> {
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
  for (const at of ["/ui", "/ui/files", `/ui/file?path=${encodeURIComponent(secretPath)}`, "/ui/sessions"]) {
    await page.goto(`${url}${at}`);
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    expect(await page.content()).not.toContain(secretPath);
  }
  const fresh = await browser.newContext();
  const other = await fresh.newPage();
  await other.goto(`${url}/ui/files`);
  await other.getByRole("heading", { name: "Sign in" }).waitFor();
  expect(await other.content()).not.toContain(secretPath);
  await fresh.close();
}
