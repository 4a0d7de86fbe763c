/**
 * Substring search on bytes, for deciding that a file cannot match before
 * decoding it. Anchors on the needle's rarest byte (by a rough frequency
 * rank of bytes in source text) with the native `indexOf`, then compares
 * the rest in place: most files never become a string at all.
 *
 * The anchor path alone is not linear: a needle of "a" x 10,000 + "e" in a
 * file of "a" x 1,000,000 compares 10,000 bytes at every "a" (8 s on Bun).
 * So it keeps count: once the bytes it compared pass a few times the bytes
 * it walked, the search goes on with the two-way algorithm (Crochemore and
 * Perrin; glibc's `memmem`), which compares at most about twice the bytes
 * it walks, with constant extra space. Typical text never gets there (a
 * candidate usually fails on its first or second byte). Pure.
 */

/** Rough commonness of a byte in source code and prose: higher is more common. */
function commonness(byte: number): number {
  if (byte === 0x20 || byte === 0x0a) return 100;
  if (byte >= 0x61 && byte <= 0x7a) return "etaoinsrlcdumhpfgybvwkxjqz".length - "etaoinsrlcdumhpfgybvwkxjqz".indexOf(String.fromCharCode(byte)) + 40;
  if (byte === 0x09 || byte === 0x0d || byte === 0x2e || byte === 0x28 || byte === 0x29 || byte === 0x3b || byte === 0x2c) return 40;
  if (byte >= 0x30 && byte <= 0x39) return 30;
  if (byte >= 0x41 && byte <= 0x5a) return 20;
  if (byte < 0x80) return 25;
  return 10;
}

/** A compiled needle: where its anchor byte sits. */
export interface BytesNeedle {
  readonly bytes: Uint8Array;
  readonly anchor: number;
}

/**
 * What searches cost, for callers (and tests) that want to see it: bytes of
 * the needle compared with bytes of the text, on either path. The native
 * `indexOf` walks between anchor candidates are not counted; they are
 * linear in the text walked.
 */
export interface SearchWork {
  compared: number;
  /** Searches that left the anchor path for the two-way algorithm. */
  switched: number;
}

/** {@link commonness} of each byte value: a 4 MB needle compiles in milliseconds, not a fifth of a second. */
const COMMONNESS = Uint8Array.from({ length: 256 }, (_, byte) => commonness(byte));

export function compileNeedle(bytes: Uint8Array): BytesNeedle {
  let anchor = 0;
  let rarest = bytes.length > 0 ? COMMONNESS[bytes[0]!]! : 0;
  for (let i = 1; i < bytes.length; i++) {
    const c = COMMONNESS[bytes[i]!]!;
    if (c < rarest) {
      anchor = i;
      rarest = c;
    }
  }
  return { bytes, anchor };
}

/** True when `needle` occurs in `hay`. An empty needle occurs everywhere. */
export function containsBytes(hay: Uint8Array, needle: BytesNeedle, work?: SearchWork): boolean {
  return indexOfBytes(hay, needle, 0, work) !== -1;
}

/**
 * The anchor path goes on while the bytes it compared stay within this
 * many per byte it walked (from `from` to the current candidate), plus the
 * needle's length and a little (one whole-needle comparison is always
 * allowed). The check follows each candidate, so a search compares at most
 * 4 per byte walked plus twice the needle's length before two-way takes
 * over. Checking each candidate cost about 10% when counting every run of
 * 4 spaces in 40 MB of JS (a candidate at nearly every byte), and nothing
 * measurable for identifiers and phrases.
 */
const BYTES_PER_BYTE = 4;
const SLACK = 64;

/**
 * Where `needle` first occurs in `hay` at or after `from`, or -1. An empty
 * needle occurs at `from`. Linear: at most a few comparisons per byte of
 * `hay` walked, plus a few times the needle's length (see the module
 * comment); so counting occurrences, each search starting where the last
 * one ended, is linear in `hay` too.
 */
export function indexOfBytes(hay: Uint8Array, needle: BytesNeedle, from: number, work?: SearchWork): number {
  const n = needle.bytes;
  const m = n.length;
  if (from < 0) from = 0;
  if (m === 0) return from <= hay.length ? from : -1;
  const a = needle.anchor;
  const key = n[a]!;
  const last = hay.length - m + a;
  const base = from + a;
  const slack = m + SLACK;
  let spent = 0;
  let at = hay.indexOf(key, base);
  while (at !== -1 && at <= last) {
    const start = at - a;
    let i = 0;
    while (i < m && hay[start + i] === n[i]) i++;
    if (i === m) {
      if (work) work.compared += spent + m;
      return start;
    }
    spent += i + 1;
    if (spent > BYTES_PER_BYTE * (at - base) + slack) {
      if (work) {
        work.compared += spent;
        work.switched++;
      }
      return twoWay(hay, needle, start + 1, work);
    }
    at = hay.indexOf(key, at + 1);
  }
  if (work) work.compared += spent;
  return -1;
}

/** The two-way algorithm's critical factorisation of a needle. */
interface Factorisation {
  /** The needle splits after byte `split` (-1: before byte 0). */
  readonly split: number;
  /** The shift after the right part matched: the needle's period when `periodic`. */
  readonly shift: number;
  /** The left part repeats at `shift` (the needle is periodic): matches after a shift reuse what is known. */
  readonly periodic: boolean;
}

const factorisations = new WeakMap<BytesNeedle, Factorisation>();

/** Computed once per needle, when a search first needs it. */
function factorisationOf(needle: BytesNeedle): Factorisation {
  let f = factorisations.get(needle);
  if (f === undefined) {
    f = factorise(needle.bytes);
    factorisations.set(needle, f);
  }
  return f;
}

/** The start (minus one) and period of the maximal suffix of `x`, by byte order or by reversed byte order. */
function maximalSuffix(x: Uint8Array, reversed: boolean): [number, number] {
  const m = x.length;
  let ms = -1;
  let j = 0;
  let k = 1;
  let p = 1;
  while (j + k < m) {
    const a = x[j + k]!;
    const b = x[ms + k]!;
    if (reversed ? a > b : a < b) {
      j += k;
      k = 1;
      p = j - ms;
    } else if (a === b) {
      if (k !== p) k++;
      else {
        j += p;
        k = 1;
      }
    } else {
      ms = j;
      j = ms + 1;
      k = 1;
      p = 1;
    }
  }
  return [ms, p];
}

function factorise(x: Uint8Array): Factorisation {
  const m = x.length;
  const [i, p] = maximalSuffix(x, false);
  const [j, q] = maximalSuffix(x, true);
  const split = Math.max(i, j);
  const period = i > j ? p : q;
  // The local period never passes the right part's length; the check keeps reads inside the needle regardless.
  let periodic = split + 1 + period <= m;
  for (let t = 0; periodic && t <= split; t++) periodic = x[t] === x[t + period];
  return periodic ? { split, shift: period, periodic } : { split, shift: Math.max(split + 1, m - split - 1) + 1, periodic };
}

/**
 * The first occurrence of `needle` in `hay` at or after `from` by the
 * two-way algorithm alone, or -1: what {@link indexOfBytes} goes on with.
 * At most about 2 comparisons per byte walked.
 */
export function twoWay(hay: Uint8Array, needle: BytesNeedle, from: number, work?: SearchWork): number {
  const x = needle.bytes;
  const m = x.length;
  const { split, shift, periodic } = factorisationOf(needle);
  const end = hay.length - m;
  let compared = 0;
  let j = from;
  let found = -1;
  if (periodic) {
    // Bytes x[0..memory] are known to match after a shift by the period.
    let memory = -1;
    while (j <= end) {
      const first = Math.max(split, memory) + 1;
      let i = first;
      while (i < m && x[i] === hay[i + j]) i++;
      compared += i - first + 1;
      if (i < m) {
        j += i - split;
        memory = -1;
        continue;
      }
      i = split;
      while (i > memory && x[i] === hay[i + j]) i--;
      compared += split - i + 1;
      if (i <= memory) {
        found = j;
        break;
      }
      j += shift;
      memory = m - shift - 1;
    }
  } else {
    while (j <= end) {
      let i = split + 1;
      while (i < m && x[i] === hay[i + j]) i++;
      compared += i - split;
      if (i < m) {
        j += i - split;
        continue;
      }
      i = split;
      while (i >= 0 && x[i] === hay[i + j]) i--;
      compared += split - i + 1;
      if (i < 0) {
        found = j;
        break;
      }
      j += shift;
    }
  }
  if (work) work.compared += compared;
  return found;
}
