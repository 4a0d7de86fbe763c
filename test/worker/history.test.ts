/** Audit log, history and revert on the Worker (bundle in workerd under Miniflare), history under the workspace's reserved R2 prefix. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  expectConflict,
  expectLogOfFiveEdits,
  expectReservedUnreachable,
  expectScopes,
  expectSessionRevert,
  fiveEdits,
  type HistoryTarget,
  ORIGINALS,
} from "../helpers/history-flow.ts";
import { historyGrants, workerTarget } from "../helpers/history-app.ts";
import { buildWorkerBundle, startWorker, type RunningWorker, type WorkerBundle } from "../helpers/worker-e2e.ts";

const GRANTS = JSON.stringify(historyGrants("ws"));

let bundle: WorkerBundle;
let worker: RunningWorker;
let target: HistoryTarget;

beforeAll(async () => {
  bundle = await buildWorkerBundle();
  worker = await startWorker(bundle, { vars: { TOOLWARDEN_TOKENS: GRANTS } });
  target = workerTarget(worker);
}, 120_000);
afterAll(async () => {
  await worker?.dispose();
  bundle?.dispose();
});

describe("history on the Worker", () => {
  test("a session's 5 edits across 3 files are logged in order, the log kept under ws/.toolwarden/", async () => {
    await fiveEdits(target, "s1");
    await expectLogOfFiveEdits(target, "s1");
    const original = ORIGINALS["win.txt"]!;
    const hash = Buffer.from(await crypto.subtle.digest("SHA-256", original as Uint8Array<ArrayBuffer>)).toString("hex");
    expect(await worker.getObject(`ws/.toolwarden/history/blobs/${hash}`)).toEqual(original);
  });

  test("view, write and search cannot reach the reserved prefix", async () => {
    await expectReservedUnreachable(target);
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
