/**
 * Crashes: the real `toolwarden serve` (Bun, local storage) is killed with
 * SIGKILL at random moments while it takes large writes (see
 * test/reliability/crash.ts for the trial design). Every file must then
 * hold exactly its old or its new content (a write acknowledged before the
 * kill: the new), and the temp files a kill leaves must never show at the
 * next start and be removed by the sweep.
 *
 * TW_CRASH_TRIALS sets the number of kills (default 100).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { cleanTempFiles } from "../../src/storage/local/mod.ts";
import { startServe } from "../helpers/cli.ts";
import { expectSuccess, resultText, restCaller } from "../helpers/reliability/client.ts";
import { CRASH_TOKEN, KILL_SPAN, runKills, tempFilesUnder, TRIAL_FILES, type PreparedTrial } from "../helpers/reliability/crash.ts";

const KILLS = Number(process.env.TW_CRASH_TRIALS ?? 100);
/** Size of each written file: four pipe buffers, many pages; an overwrite this size takes the tool ~0.1 s. */
const BYTES = 256 * 1024;
/** Servers starting ahead of the trial that runs: one per core. */
const POOL = 2;
/** Trial directories kept for the restart checks, each holding temp files a kill left. */
const kept: PreparedTrial[] = [];

afterAll(() => {
  for (const trial of kept) trial.remove();
});

describe("SIGKILL during large writes (real toolwarden serve, local storage)", () => {
  test(`${KILLS} kills at random moments: every file is entirely old or entirely new`, async () => {
    const s = await runKills(KILLS, {
      bytes: BYTES,
      pool: POOL,
      keep: (report) => report.strayTemps.length > 0 && kept.length < 2,
      onKept: (trial) => kept.push(trial),
    });
    console.log(
      `crash: ${s.kills} kills within ${(s.windowMs * KILL_SPAN).toFixed(0)} ms of sending 4 x ${BYTES / 1024} KiB writes; ` +
        `files old ${s.old}, new ${s.new}, torn 0; ${s.acknowledged} writes acknowledged before the kill (all new); ` +
        `${s.strayTemps} temp files left by ${s.killsLeavingTemps} kills`,
    );
    // The kills must land inside the writes, or this proves little: both outcomes, and kills
    // between a temp file's creation and its rename (the restart checks below need those).
    expect(s.old).toBeGreaterThan(0);
    expect(s.new).toBeGreaterThan(0);
    expect(kept).toHaveLength(2);
  }, 240_000);

  test("the next start lists no temp file, a temp name is not addressable, and the sweep removes old ones", async () => {
    expect(kept.length).toBeGreaterThan(0);
    const trial = kept[0];
    const strays = tempFilesUnder(trial.dir);
    expect(strays.length).toBeGreaterThan(0);
    // As if the restart came right after the crash (the trials ran for a while since).
    const now = new Date();
    for (const stray of strays) utimesSync(join(trial.dir, stray), now, now);

    // Young temp files may belong to a write in flight in another process: left, but never shown.
    const first = await startServe([trial.dir, "--port", "0", "--token", CRASH_TOKEN, "--quiet"]);
    try {
      const caller = restCaller(first.url, CRASH_TOKEN);
      const listing = resultText(expectSuccess(await caller.call("view", { path: ".", depth: 20, hidden: true, gitignore: false }, "after"), "listing"));
      expect(listing).not.toContain(".tw-");
      expect(listing).not.toContain(".tmp");
      const refused = await caller.call("view", { path: strays[0] }, "after");
      expect(refused.result?.code).toBe("FS_INVALID_PATH");
      // Each file reads back as the disk holds it.
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
