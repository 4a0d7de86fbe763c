/**
 * Crash trials for local storage: a real `toolwarden serve` takes several
 * large writes at once and is killed with SIGKILL at a random moment; then
 * every file must hold exactly its old or its new bytes.
 *
 * Why one real server per trial, started ahead of time. The property lives
 * in the provider (temp file, fsync, rename), but a lighter writer process
 * would skip what a user runs: HTTP, the pipeline, the write tool's
 * load-diff-CAS path and the start-up sweep. A server costs ~0.3-0.4 s of
 * CPU to start (module parsing), so the next trial's server starts while
 * the current one runs (a pool of two, one per core), and each trial
 * interrupts four writes at once (three overwrites, one create in new
 * directories): 100 kills take ~35 s on an idle 2-core machine.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { isTempName } from "../../src/storage/temp-name.ts";
import { startServe, tempDir, type ServeProcess } from "../cli-helpers.ts";
import { restCaller, type CallOutcome } from "./client.ts";

/** Token of every crash-trial server. */
export const CRASH_TOKEN = "crash-token-0123456789abcdef";

/** The files one trial writes: three exist before (overwrites), one does not (a create, parent included). */
export const TRIAL_FILES = ["a.txt", "b.txt", "deep/c.txt", "fresh/new/d.txt"] as const;
const EXISTING = TRIAL_FILES.slice(0, 3);

/**
 * About `bytes` of text for `file` at `generation`. Every 64th line names
 * the generation, so old and new differ all through the file (a mix of the
 * two, or a cut-off file, matches neither) while the write tool's diff stays
 * cheap; the other lines are the same in both.
 */
export function bigContent(file: string, generation: string, bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = i % 64 === 0 ? `${generation} ${file} marker ${i}\n` : `${file} line ${i} ${"x".repeat(i % 40)}\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join("");
}

/** A trial's directory with the old files in place, and a server on it (starting or up). */
export interface PreparedTrial {
  readonly dir: string;
  readonly old: Record<string, string | undefined>;
  readonly next: Record<string, string>;
  readonly server: Promise<ServeProcess>;
  remove(): void;
}

/** Seed a fresh directory and start a server on it; `bytes` per file. */
export function prepareTrial(index: number, bytes: number): PreparedTrial {
  const dir = tempDir("tw-crash-");
  const old: Record<string, string | undefined> = {};
  const next: Record<string, string> = {};
  for (const file of TRIAL_FILES) {
    next[file] = bigContent(file, `new-${index}`, bytes);
    if (!(EXISTING as readonly string[]).includes(file)) continue;
    old[file] = bigContent(file, `old-${index}`, bytes);
    mkdirSync(join(dir.path, file, ".."), { recursive: true });
    writeFileSync(join(dir.path, file), old[file]!);
  }
  const server = startServe([dir.path, "--port", "0", "--token", CRASH_TOKEN, "--quiet"]);
  // A server that failed to start is reported by the trial that awaits it.
  server.catch(() => {});
  return { dir: dir.path, old, next, server, remove: dir.remove };
}

/** How one file came out of a trial. */
export type FileOutcome = "old" | "new" | "torn";

/** What a trial did and found. */
export interface TrialReport {
  /** ms after the writes were sent that the kill came (undefined: not killed, a calibration run). */
  readonly killAtMs?: number;
  /** ms from sending the writes until every response was in (calibration runs only). */
  readonly allDoneMs?: number;
  readonly files: Record<string, FileOutcome>;
  /** Files whose write was answered "ok" before the kill (those must be new). */
  readonly acknowledged: string[];
  /** Temp files the kill left on disk (relative paths). */
  readonly strayTemps: string[];
}

/**
 * Run one trial on a prepared directory: view the existing files (an
 * overwrite needs a view), send all writes at once, and SIGKILL the server
 * `killAtMs` after sending them (or never, with undefined). The server is
 * dead when this resolves.
 */
export async function runTrial(trial: PreparedTrial, killAtMs: number | undefined): Promise<TrialReport> {
  const server = await trial.server;
  try {
    const caller = restCaller(server.url, CRASH_TOKEN);
    const session = "crash";
    for (const file of EXISTING) {
      const view = await caller.call("view", { path: file, end: 1 }, session);
      if (view.result?.isError !== false) throw new Error(`view ${file} before the writes: HTTP ${view.status} ${view.problem ?? JSON.stringify(view.result)}`);
    }
    const acknowledged: string[] = [];
    const started = performance.now();
    const writes = TRIAL_FILES.map((file) =>
      caller.call("write", { path: file, content: trial.next[file] }, session).then((outcome: CallOutcome) => {
        if (outcome.result?.isError === false) acknowledged.push(file);
        return outcome;
      }),
    );
    let allDoneMs: number | undefined;
    if (killAtMs === undefined) {
      const outcomes = await Promise.all(writes);
      allDoneMs = performance.now() - started;
      const failed = outcomes.find((o) => o.result?.isError !== false);
      if (failed) throw new Error(`calibration write failed: HTTP ${failed.status} ${failed.problem ?? JSON.stringify(failed.result)}`);
    } else {
      await new Promise((resolve) => setTimeout(resolve, killAtMs));
      server.child.kill("SIGKILL");
      await server.exited;
      // The writes cut off end as transport errors; any "ok" the server sent before dying counts.
      await Promise.all(writes);
    }
    return {
      ...(killAtMs === undefined ? { allDoneMs } : { killAtMs }),
      files: Object.fromEntries(TRIAL_FILES.map((f) => [f, outcomeOf(trial, f)])),
      acknowledged,
      strayTemps: tempFilesUnder(trial.dir),
    };
  } finally {
    server.kill();
    await server.exited;
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
  return found;
}
