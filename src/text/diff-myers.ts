/**
 * Myers' O(ND) shortest edit script over two arrays of line numbers (lines
 * interned to integers, so comparing is one integer compare). The search
 * gives up beyond `maxD` differences: its time is O((N+M)·D) and its trace
 * memory O(D²), and a diff that large is reported as "too large" instead.
 */

/** Old `[aStart, aEnd)` was replaced by new `[bStart, bEnd)` (0-based). */
export interface ChangeBlock {
  readonly aStart: number;
  readonly aEnd: number;
  readonly bStart: number;
  readonly bEnd: number;
}

/**
 * The change blocks that turn `a` into `b` with the fewest inserted plus
 * deleted lines, or `undefined` when that takes more than `maxD` of them.
 */
export function myersDiff(a: Int32Array, b: Int32Array, maxD: number): ChangeBlock[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, Math.max(0, Math.floor(maxD)));
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  // trace[d] holds v[k] for k in [-d-1, d+1] as it was before step d.
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return blocksFromTrace(trace, n, m);
    }
  }
  return undefined;
}

function blocksFromTrace(trace: readonly Int32Array[], n: number, m: number): ChangeBlock[] {
  // Mark the lines on the path's diagonals (kept lines), walking back from the end.
  const keptA = new Uint8Array(n);
  const keptB = new Uint8Array(m);
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const v = trace[d];
    const at = (k: number): number => v[k + d + 1];
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      keptA[x] = 1;
      keptB[y] = 1;
    }
    x = prevX;
    y = prevY;
  }

  const blocks: ChangeBlock[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && keptA[i] && keptB[j]) {
      i++;
      j++;
      continue;
    }
    const aStart = i;
    const bStart = j;
    while (i < n && !keptA[i]) i++;
    while (j < m && !keptB[j]) j++;
    blocks.push({ aStart, aEnd: i, bStart, bEnd: j });
  }
  return blocks;
}
