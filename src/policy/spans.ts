/** Line spans as sessions record them. Pure. */

import type { LineSpan } from "./types.ts";

/** `spans` sorted, with overlapping and adjacent spans merged. */
export function mergeSpans(spans: readonly LineSpan[]): LineSpan[] {
  const sorted = spans
    .filter(([a, b]) => a <= b)
    .map(([a, b]) => [a, b] as [number, number])
    .sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}
