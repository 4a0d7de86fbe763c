/**
 * Summaries of timing samples. A median with its quartiles says more on a
 * noisy machine than a mean, and a ratio is summarised from per-round
 * ratios (both contenders measured back to back) rather than from two
 * medians taken at different moments.
 */

/** Median, quartiles and range of a set of samples. */
export interface Summary {
  readonly n: number;
  readonly median: number;
  readonly p25: number;
  readonly p75: number;
  readonly min: number;
  readonly max: number;
}

/** Quantile by linear interpolation between order statistics of sorted values. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

/** Summarise samples (any unit). */
export function summarise(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    median: quantile(sorted, 0.5),
    p25: quantile(sorted, 0.25),
    p75: quantile(sorted, 0.75),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/** Element-wise a[i] / b[i] (rounds where both were measured back to back). */
export function ratios(a: readonly number[], b: readonly number[]): number[] {
  const n = Math.min(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(a[i] / b[i]);
  return out;
}

/** "12.3" with a sensible number of digits for the magnitude. */
export function fmt(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  return value.toFixed(3);
}

/** "1.23 (1.10–1.40)": median and interquartile range. */
export function fmtSummary(s: Summary): string {
  return `${fmt(s.median)} (${fmt(s.p25)}–${fmt(s.p75)})`;
}
