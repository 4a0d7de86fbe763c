/**
 * Crash trials for local storage: the real `toolwarden serve` takes four
 * large writes at once (three overwrites, one create in new directories)
 * and is killed with SIGKILL at a random moment; then every file must hold
 * exactly its old or its new bytes, and a write acknowledged before the
 * kill its new ones.
 *
 * Why one real server per trial. The property lives in the provider (temp
 * file, fsync, rename), but a lighter writer process (the same storage and
 * write tool through the pipeline, no HTTP) would skip part of what a user
 * runs, and measured no cheaper here: it starts in ~0.13 s of CPU against
 * the server's ~0.37 s, but with the next processes starting ahead (a
 * pool), a trial's time is mostly the writes it interrupts (one run each:
 * 100 writer kills 60 s, 100 server kills 48 s). A trial's four writes are
 * four chances to be cut.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { isTempName } from "../../../src/storage/local/temp-name.ts";
import { startServe, tempDir } from "../cli.ts";
import { restCaller } from "./client.ts";
import { bigContent, EXISTING_FILES, TRIAL_FILES } from "./crash-files.ts";

export { TRIAL_FILES } from "./crash-files.ts";

/** Token of every crash-trial server. */
export const CRASH_TOKEN = "crash-token-0123456789abcdef";

/** A server with the old files viewed, ready to take the writes. */
interface Victim {
  /** Send the four writes; resolves once each is answered or cut off. */
  go(): Promise<void>;
  /** Files whose write was reported successful. */
  readonly acknowledged: string[];
  /** Writes answered with a failure (none may be). */
  readonly failures: string[];
  kill(): Promise<void>;
}

/** A trial's directory with the old files in place, and its server starting. */
export interface PreparedTrial {
  readonly dir: string;
  readonly old: Record<string, string | undefined>;
  readonly next: Record<string, string>;
  readonly victim: Promise<Victim>;
  remove(): void;
}

/** Seed a fresh directory and start a server on it; `bytes` per file. */
export function prepareTrial(index: number, bytes: number): PreparedTrial {
  const dir = tempDir("tw-crash-");
  const old: Record<string, string | undefined> = {};
  const next: Record<string, string> = {};
  for (const file of TRIAL_FILES) {
    next[file] = bigContent(file, `new-${index}`, bytes);
    if (!EXISTING_FILES.includes(file)) continue;
    old[file] = bigContent(file, `old-${index}`, bytes);
    mkdirSync(join(dir.path, file, ".."), { recursive: true });
    writeFileSync(join(dir.path, file), old[file]!);
  }
  const victim = serveVictim(dir.path, next);
  // A victim that failed to start is reported by the trial that awaits it.
  victim.catch(() => {});
  return { dir: dir.path, old, next, victim, remove: dir.remove };
}

async function serveVictim(dir: string, next: Record<string, string>): Promise<Victim> {
  const server = await startServe([dir, "--port", "0", "--token", CRASH_TOKEN, "--quiet"]);
  const caller = restCaller(server.url, CRASH_TOKEN);
  const session = "crash";
  try {
    // A whole-file write must be based on every line of the version it replaces: view each file
    // to its end, following the "Continue" of each cut view (ranged views of one version add up).
    for (const file of EXISTING_FILES) {
      let start = 1;
      for (let round = 0; round < 10_000; round++) {
        const view = await caller.call("view", { path: file, start }, session);
        if (view.result?.isError !== false) throw new Error(`view ${file}: HTTP ${view.status} ${view.problem ?? JSON.stringify(view.result)}`);
        const cut = /\[cut at line (\d+) /.exec(view.result.content.map((c) => c.text).join("\n"));
        if (!cut) break;
        start = Number(cut[1]) + 1;
      }
    }
  } catch (error) {
    server.kill();
    throw error;
  }
  const acknowledged: string[] = [];
  const failures: string[] = [];
  return {
    acknowledged,
    failures,
    async go() {
      await Promise.all(
        TRIAL_FILES.map(async (file) => {
          const outcome = await caller.call("write", { path: file, content: next[file] }, session);
          // A write cut off by the kill is a transport error (status 0), not a failure.
          if (outcome.result?.isError === false) acknowledged.push(file);
          else if (outcome.status !== 0) failures.push(`${file}: HTTP ${outcome.status} ${outcome.problem ?? outcome.result?.code}`);
        }),
      );
    },
    async kill() {
      server.kill();
      await server.exited;
    },
  };
}

/** How one file came out of a trial. */
export type FileOutcome = "old" | "new" | "torn";

/** What a trial did and found. */
export interface TrialReport {
  /** ms after the writes were sent that the kill came (undefined: not killed, a calibration run). */
  readonly killAtMs?: number;
  /** ms from sending the writes until every one was answered (calibration runs only). */
  readonly allDoneMs?: number;
  readonly files: Record<string, FileOutcome>;
  /** Files whose write was reported successful before the kill (those must be new). */
  readonly acknowledged: string[];
  /** Temp files the kill left on disk (relative paths). */
  readonly strayTemps: string[];
}

/**
 * Run one trial: send the writes and SIGKILL the victim `killAtMs` later
 * (undefined: let them finish, which calibrates how long they take). The
 * server is dead when this resolves.
 */
export async function runTrial(trial: PreparedTrial, killAtMs: number | undefined): Promise<TrialReport> {
  const victim = await trial.victim;
  try {
    const started = performance.now();
    const going = victim.go();
    let allDoneMs: number | undefined;
    if (killAtMs === undefined) {
      await going;
      allDoneMs = performance.now() - started;
      if (victim.failures.length > 0 || victim.acknowledged.length !== TRIAL_FILES.length) {
        throw new Error(`calibration writes did not all succeed: ${victim.failures.join("; ")}`);
      }
    } else {
      await new Promise((resolve) => setTimeout(resolve, killAtMs));
      await victim.kill();
      await going;
    }
    if (victim.failures.length > 0) throw new Error(`writes failed before the kill: ${victim.failures.join("; ")}`);
    return {
      ...(killAtMs === undefined ? { allDoneMs } : { killAtMs }),
      files: Object.fromEntries(TRIAL_FILES.map((f) => [f, outcomeOf(trial, f)])),
      acknowledged: [...victim.acknowledged],
      strayTemps: tempFilesUnder(trial.dir),
    };
  } finally {
    await victim.kill();
  }
}

function outcomeOf(trial: PreparedTrial, file: string): FileOutcome {
  let text: string | undefined;
  try {
    text = readFileSync(join(trial.dir, file), "utf8");
  } catch {
    text = undefined;
  }
  if (text === trial.next[file]) return "new";
  if (text === trial.old[file]) return "old";
  return "torn";
}

/** Temp files (the provider's reserved names) anywhere under `dir`, as paths relative to it. */
export function tempFilesUnder(dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const full = join(at, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (isTempName(name)) found.push(relative(dir, full));
    }
  };
  walk(dir);
  return found.sort();
}

/** Kills come at a uniformly random moment in [0, KILL_SPAN x the calibrated duration of the writes). */
export const KILL_SPAN = 1.5;

/** What a run of kills found, summed over its trials. */
export interface KillSummary {
  readonly kills: number;
  readonly windowMs: number;
  readonly old: number;
  readonly new: number;
  readonly acknowledged: number;
  readonly strayTemps: number;
  readonly killsLeavingTemps: number;
}

/**
 * Calibrate on two uninterrupted trials, then run `kills` trials with a pool of `pool` victims starting ahead, each killed at a random
 * moment up to {@link KILL_SPAN} times the calibrated duration of the
 * writes (so some kills come after every write landed). Throws at the first torn file or lost acknowledged
 * write. `keep` decides which finished trials' directories to keep (the
 * caller removes them); the others are removed.
 */
export async function runKills(
  kills: number,
  options: { bytes: number; pool: number; keep?: (report: TrialReport) => boolean; onKept?: (trial: PreparedTrial) => void },
): Promise<KillSummary> {
  let index = 0;
  const pool: PreparedTrial[] = Array.from({ length: options.pool }, () => prepareTrial(index++, options.bytes));
  let remaining = kills + 2;
  const take = (): PreparedTrial => {
    remaining--;
    if (remaining >= options.pool) pool.push(prepareTrial(index++, options.bytes));
    return pool.shift()!;
  };
  const summary = { kills, windowMs: Number.POSITIVE_INFINITY, old: 0, new: 0, acknowledged: 0, strayTemps: 0, killsLeavingTemps: 0 };
  try {
    // The faster of two runs: a slow one mostly measures what else the machine was doing.
    for (let i = 0; i < 2; i++) {
      const trial = take();
      try {
        const report = await runTrial(trial, undefined);
        if (Object.values(report.files).some((o) => o !== "new")) throw new Error(`calibration trial ended ${JSON.stringify(report.files)}`);
        summary.windowMs = Math.min(summary.windowMs, report.allDoneMs!);
      } finally {
        trial.remove();
      }
    }
    for (let i = 0; i < kills; i++) {
      const trial = take();
      let kept = false;
      try {
        const report = await runTrial(trial, Math.random() * summary.windowMs * KILL_SPAN);
        for (const [file, outcome] of Object.entries(report.files)) {
          const at = `trial ${i}, killed ${report.killAtMs!.toFixed(0)} ms after sending the writes`;
          if (outcome === "torn") throw new Error(`${at}: ${file} is neither its old nor its new content`);
          if (report.acknowledged.includes(file) && outcome !== "new") throw new Error(`${at}: the write of ${file} was acknowledged, yet the file is old`);
          summary[outcome]++;
        }
        summary.acknowledged += report.acknowledged.length;
        summary.strayTemps += report.strayTemps.length;
        if (report.strayTemps.length > 0) summary.killsLeavingTemps++;
        if (options.keep?.(report)) {
          kept = true;
          options.onKept?.(trial);
        }
      } finally {
        if (!kept) trial.remove();
      }
    }
  } finally {
    for (const trial of pool) {
      void trial.victim.then(
        (v) => v.kill(),
        () => {},
      );
      trial.remove();
    }
  }
  return summary;
}
