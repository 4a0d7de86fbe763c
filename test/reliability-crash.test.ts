/**
 * Crashes: the real `toolwarden serve` (Bun, local storage) is killed with
 * SIGKILL at random moments while it takes large writes. Every file must
 * then hold exactly its old or its new content (a write acknowledged before
 * the kill: the new), and the temp files a kill leaves behind must never
 * show at the next start and be removed by the sweep (see
 * test/reliability/crash.ts for the trial design).
 *
 * TW_CRASH_TRIALS sets the number of kills (default 100).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { cleanTempFiles } from "../src/storage/local.ts";
import { startServe } from "./cli-helpers.ts";
import { expectSuccess, resultText, restCaller } from "./reliability/client.ts";
import { CRASH_TOKEN, prepareTrial, runTrial, tempFilesUnder, TRIAL_FILES, type PreparedTrial, type TrialReport } from "./reliability/crash.ts";

const TRIALS = Number(process.env.TW_CRASH_TRIALS ?? 100);
/** Size of each written file: four pipe buffers, many pages; an overwrite this size takes the tool ~0.1 s. */
const BYTES = 256 * 1024;
/** Servers starting ahead of the trial that runs. */
const POOL = 2;
/** Directories kept after the trials for the restart checks (each holds stray temp files). */
const kept: PreparedTrial[] = [];

afterAll(() => {
  for (const trial of kept) trial.remove();
});

describe("SIGKILL during large writes (real toolwarden serve, local storage)", () => {
  test(`${TRIALS} kills at random moments: every file is entirely old or entirely new`, async () => {
    let index = 0;
    const pool: PreparedTrial[] = Array.from({ length: POOL }, () => prepareTrial(index++, BYTES));
    const take = (): PreparedTrial => {
      pool.push(prepareTrial(index++, BYTES));
      return pool.shift()!;
    };

    try {
      // Calibration: how long the four writes take here when nothing interrupts them.
      let windowMs = 0;
      for (let i = 0; i < 2; i++) {
        const trial = take();
        const report = await runTrial(trial, undefined);
        trial.remove();
        expect(Object.values(report.files)).toEqual(TRIAL_FILES.map(() => "new"));
        windowMs = Math.max(windowMs, report.allDoneMs!);
      }

      const reports: TrialReport[] = [];
      for (let i = 0; i < TRIALS; i++) {
        const trial = take();
        // Up to a bit past the calibrated end, so some kills come after every write landed.
        const report = await runTrial(trial, Math.random() * windowMs * 1.2);
        reports.push(report);
        for (const [file, outcome] of Object.entries(report.files)) {
          if (outcome === "torn") throw new Error(`trial ${i}: ${file} is neither its old nor its new content (killed at ${report.killAtMs!.toFixed(0)} ms)`);
          if (report.acknowledged.includes(file) && outcome !== "new") throw new Error(`trial ${i}: the write of ${file} was acknowledged but the file is old`);
        }
        if (report.strayTemps.length > 0 && kept.length < 2) kept.push(trial);
        else trial.remove();
      }

      const counts = { old: 0, new: 0 };
      for (const r of reports) for (const o of Object.values(r.files)) counts[o as "old" | "new"]++;
      const strays = reports.reduce((n, r) => n + r.strayTemps.length, 0);
      const acked = reports.reduce((n, r) => n + r.acknowledged.length, 0);
      console.log(
        `crash: ${TRIALS} kills within ${windowMs.toFixed(0)} ms of sending 4 x ${BYTES / 1024} KiB writes; ` +
          `files old ${counts.old}, new ${counts.new}, torn 0; ${acked} writes acknowledged before the kill (all new); ` +
          `${strays} temp files left by ${reports.filter((r) => r.strayTemps.length > 0).length} kills`,
      );
      // The kills must have landed inside writes, or this proves little: both outcomes, and kills mid-temp-file.
      expect(counts.old).toBeGreaterThan(0);
      expect(counts.new).toBeGreaterThan(0);
      expect(kept).toHaveLength(2);
    } finally {
      for (const trial of pool) {
        void trial.server.then((s) => s.kill(), () => {});
        trial.remove();
      }
    }
  }, 240_000);

  test("the next start lists no temp file, a temp name is not addressable, and the sweep removes old ones", async () => {
    expect(kept.length).toBeGreaterThan(0);
    const trial = kept[0];
    const strays = tempFilesUnder(trial.dir);
    expect(strays.length).toBeGreaterThan(0);

    // Young temp files may belong to a write in flight in another process: left, but never shown.
    const first = await startServe([trial.dir, "--port", "0", "--token", CRASH_TOKEN, "--quiet"]);
    try {
      const caller = restCaller(first.url, CRASH_TOKEN);
      const listing = resultText(expectSuccess(await caller.call("view", { path: ".", depth: 20, hidden: true, gitignore: false }, "after"), "listing"));
      expect(listing).not.toContain(".tw-");
      expect(listing).not.toContain(".tmp");
      const refused = await caller.call("view", { path: strays[0] }, "after");
      expect(refused.result?.code).toBe("FS_INVALID_PATH");
      // What the listing shows reads back as the disk holds it.
      for (const file of TRIAL_FILES) {
        const onDisk = (() => {
          try {
            return readFileSync(join(trial.dir, file), "utf8");
          } catch {
            return undefined;
          }
        })();
        if (onDisk === undefined) continue;
        const view = await caller.call("view", { path: file, end: 1 }, "after");
        expect(resultText(expectSuccess(view, `view ${file}`))).toContain(`1:`);
        expect(resultText(view.result!)).toContain(onDisk.slice(0, onDisk.indexOf("\n")));
      }
    } finally {
      first.kill();
      await first.exited;
    }
    expect(tempFilesUnder(trial.dir)).toEqual(strays);

    // Past the grace period, the next start sweeps them.
    const longAgo = new Date(Date.now() - 5 * 60_000);
    for (const stray of strays) utimesSync(join(trial.dir, stray), longAgo, longAgo);
    const second = await startServe([trial.dir, "--port", "0", "--token", CRASH_TOKEN, "--quiet"]);
    second.kill();
    await second.exited;
    expect(tempFilesUnder(trial.dir)).toEqual([]);
  }, 60_000);

  test("cleanTempFiles removes every temp file a kill left, whatever its age", async () => {
    expect(kept).toHaveLength(2);
    const trial = kept[1];
    const strays = tempFilesUnder(trial.dir);
    expect(strays.length).toBeGreaterThan(0);
    expect(await cleanTempFiles(trial.dir)).toBe(strays.length);
    expect(tempFilesUnder(trial.dir)).toEqual([]);
  });
});
