/**
 * The timing loop of the hashing benchmark, shared by every runtime's child
 * (and by the workerd worker). Contenders alternate within each run, and the
 * order rotates run by run, so drift (thermal, a neighbour's job, GC) lands
 * on all of them alike.
 */

/** Something that hashes a buffer; its result is kept alive so the work cannot be skipped. */
export interface Contender {
  readonly name: string;
  hashLines(bytes: Uint8Array): { readonly count: number };
}

/** MB/s samples (input MB = 1e6 bytes) per contender. */
export type Samples = Record<string, number[]>;

/** Options of {@link measure}. */
export interface MeasureOptions {
  /** Samples per contender. */
  runs: number;
  /** A sample repeats the call until it has taken at least this long (ms). */
  minSampleMs: number;
  /** A monotonic clock in ms (performance.now by default). */
  now?: () => number;
}

/** Time `contenders` on `bytes`; every contender must agree on the line count. */
export function measure(contenders: readonly Contender[], bytes: Uint8Array, options: MeasureOptions): Samples {
  const now = options.now ?? (() => performance.now());
  const samples: Samples = {};
  const reps: Record<string, number> = {};
  let lines = -1;
  for (const c of contenders) {
    samples[c.name] = [];
    // warm-up doubles as calibration: enough calls per sample to fill minSampleMs
    let n = 0;
    const t0 = now();
    do {
      const count = c.hashLines(bytes).count;
      if (lines === -1) lines = count;
      if (count !== lines) throw new Error(`${c.name} found ${count} lines, expected ${lines}`);
      n++;
    } while (now() - t0 < options.minSampleMs && n < 1000);
    reps[c.name] = n;
  }
  let sink = 0;
  for (let run = 0; run < options.runs; run++) {
    for (let k = 0; k < contenders.length; k++) {
      const c = contenders[(run + k) % contenders.length];
      const n = reps[c.name];
      const t0 = now();
      for (let i = 0; i < n; i++) sink += c.hashLines(bytes).count;
      const ms = now() - t0;
      samples[c.name].push((bytes.length * n) / 1e3 / Math.max(ms, 1e-3));
    }
  }
  if (sink === 0.5) console.log(sink);
  return samples;
}

/** Median, quartiles and range of samples. */
export interface Summary {
  readonly median: number;
  readonly p25: number;
  readonly p75: number;
  readonly min: number;
  readonly max: number;
}

/** Quantile by linear interpolation between order statistics. */
function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

/** Summarise MB/s samples. */
export function summarise(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    median: quantile(sorted, 0.5),
    p25: quantile(sorted, 0.25),
    p75: quantile(sorted, 0.75),
    min: sorted[0],
    max: sorted[sorted.length - 1],
  };
}
