/**
 * Timing loops. Contenders are always interleaved: each round runs every
 * contender once, in an order that rotates from round to round, so a
 * neighbour's job, GC or thermal drift lands on all of them alike and a
 * ratio taken within a round compares like with like.
 */

/** One thing to time: an async call whose duration is one sample. */
export interface Contender {
  readonly name: string;
  run(): Promise<unknown> | unknown;
}

/** Options of {@link alternate}. */
export interface AlternateOptions {
  /** Rounds (samples per contender). */
  readonly rounds: number;
  /** Untimed calls of each contender first (JIT warm-up, caches). */
  readonly warmup?: number;
  /** A sample repeats the call until it has taken at least this long (ms); the sample is the mean. */
  readonly minSampleMs?: number;
  /**
   * Untimed, before every sample: e.g. {@link settleDisk}, so that one
   * contender's unflushed writes are not written back inside the next
   * one's fsync.
   */
  readonly settle?: () => unknown;
}

/** Milliseconds per call, one entry per round, for each contender. */
export type Samples = Record<string, number[]>;

/** Time `contenders` interleaved; see the module comment. */
export async function alternate(contenders: readonly Contender[], options: AlternateOptions): Promise<Samples> {
  const samples: Samples = {};
  const reps: Record<string, number> = {};
  for (const c of contenders) {
    samples[c.name] = [];
    for (let i = 0; i < (options.warmup ?? 1); i++) await c.run();
    reps[c.name] = await calibrate(c, options.minSampleMs ?? 0);
  }
  collectGarbage();
  for (let round = 0; round < options.rounds; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const c = contenders[(round + k) % contenders.length];
      const n = reps[c.name];
      await options.settle?.();
      const t0 = performance.now();
      for (let i = 0; i < n; i++) await c.run();
      samples[c.name].push((performance.now() - t0) / n);
    }
  }
  return samples;
}

/**
 * Write every dirty page and journal entry back to disk (`sync`). On ext4
 * (data=ordered) an fsync commits the journal, and a commit first writes
 * the data of every file with pending writes: a contender that writes
 * without flushing (the reference server) would otherwise have its writes
 * flushed, and timed, inside the next contender's fsync.
 */
export function settleDisk(): void {
  (libcSync ??= loadSync())();
}

let libcSync: (() => void) | undefined;

/** sync(2) through Bun's FFI (no process to spawn between two timed blocks), else the `sync` command. */
function loadSync(): () => void {
  try {
    const { dlopen } = require("bun:ffi") as typeof import("bun:ffi");
    const libc = dlopen("libc.so.6", { sync: { args: [], returns: "void" } });
    return () => libc.symbols.sync();
  } catch {
    return () => void Bun.spawnSync(["sync"]);
  }
}

/**
 * A full collection before timing, where the runtime offers one (Bun): the
 * garbage of building fixtures (tens of MB of strings) is otherwise swept
 * during the timed calls that follow, and made a 0.3 ms edit measure 2.5 ms.
 */
export function collectGarbage(): void {
  (globalThis as { Bun?: { gc(full: boolean): void } }).Bun?.gc(true);
}

/** How many calls fill `minSampleMs` (at least one). */
async function calibrate(c: Contender, minSampleMs: number): Promise<number> {
  if (minSampleMs <= 0) return 1;
  let n = 0;
  const t0 = performance.now();
  do {
    await c.run();
    n++;
  } while (performance.now() - t0 < minSampleMs && n < 10_000);
  return n;
}

/** Time one contender alone: `rounds` samples (after warm-up). */
export async function sample(c: Contender, options: AlternateOptions): Promise<number[]> {
  return (await alternate([c], options))[c.name];
}
