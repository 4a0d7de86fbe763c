/**
 * Diagnostics for an old_string that matched nowhere: the file windows (of
 * old_string's line count) most similar to it, how similar, what differs,
 * and where they are, so the model can correct its text in one step.
 *
 * Similarity is a Dice coefficient over character bigrams of each line with
 * whitespace collapsed, summed over the window's aligned line pairs: linear
 * in the text compared, and what differs (whitespace, indentation, content)
 * is reported separately. On a big file a bit-set signature per line first
 * ranks every window cheaply and only the best few are scored exactly, so
 * the work stays linear in the file size. Exact scoring has a budget too
 * ({@link SCORE_BUDGET}, in bigrams compared): long lines make each pair
 * of lines up to 4000 of them, and 60,000 such pairs had cost a quarter of
 * a second of a failed edit; past the budget the cheap ranking picks the
 * windows, and only as many are scored as the budget pays for. An
 * old_string of more than {@link MAX_SCORED_LINES} lines is scored on that
 * many of its lines, evenly spaced (4M one-character lines had made 4M
 * profiles: 300 MB and most of a second).
 */

import { formatHash, lineHash } from "../hash/fnv.ts";
import { normalizeWhitespace } from "./match-fuzzy.ts";

/**
 * What separates a window from old_string: "indentation" (only leading
 * whitespace), "whitespace" (only whitespace, anywhere), "content", or
 * "none" (identical; only seen when asked about text that is present).
 */
export type Difference = "none" | "indentation" | "whitespace" | "content";

/** One window of the file close to old_string. */
export interface WindowCandidate {
  /** 0-based first line of the window. */
  readonly start: number;
  /** 0-based end line of the window (exclusive). */
  readonly end: number;
  /** Id (`N:hh`) of the window's first line. */
  readonly startId: string;
  /** Id (`N:hh`) of the window's last line. */
  readonly endId: string;
  /** 0..1 (1 = identical after collapsing whitespace). */
  readonly similarity: number;
  /** `similarity` in whole percent; 100 only when the text is identical. */
  readonly percent: number;
  readonly differs: Difference;
  /** The first line that differs: its 1-based line in old_string and its file id. */
  readonly firstDifference?: { readonly needleLine: number; readonly id: string };
}

/** Options for {@link closestWindows}. */
export interface ClosestOptions {
  /** How many windows to return (default 3). */
  readonly limit?: number;
  /** Drop windows less similar than this (0..1, default 0.25): they only add noise. */
  readonly minSimilarity?: number;
  /** Bigrams the exact scoring may compare (default {@link SCORE_BUDGET}). */
  readonly budget?: number;
  /** Counts the bigrams compared (for tests). */
  readonly work?: { steps: number };
}

/** Line pairs below which every window is scored exactly. */
const EXHAUSTIVE_PAIRS = 60_000;
/** Windows scored exactly after the cheap ranking. */
const REFINED_WINDOWS = 64;
/** Needle lines the cheap ranking indexes (evenly spaced); bounds its work per file token. */
const INDEXED_NEEDLE_LINES = 16;
/** Characters of a line that take part in similarity (a minified line is long enough). */
const MAX_COMPARED_CHARS = 2000;
/** Most lines of old_string that similarity is computed on (evenly spaced); the window still spans all of them. */
const MAX_SCORED_LINES = 2000;
/** Most bigrams the exact scoring of one call compares (about 20 ms); at least one window is always scored. */
export const SCORE_BUDGET = 16_000_000;

/**
 * The windows of `lines` closest to `needle` (old_string's lines), best
 * first, not overlapping each other. A window has `needle.length` lines
 * (the whole file when it is shorter).
 */
export function closestWindows(lines: readonly string[], needle: readonly string[], options: ClosestOptions = {}): WindowCandidate[] {
  const limit = options.limit ?? 3;
  const minSimilarity = options.minSimilarity ?? 0.25;
  if (lines.length === 0 || needle.length === 0 || limit <= 0) return [];
  const size = Math.min(needle.length, lines.length);
  const windows = lines.length - size + 1;

  const budget = options.budget ?? SCORE_BUDGET;
  const scoredLines = sampleIndices(needle.length, MAX_SCORED_LINES);
  const needleProfiles = scoredLines.map((i) => profile(needle[i]));
  const fileProfiles = new Array<Uint32Array | undefined>(lines.length);
  let steps = 0;
  const score = (s: number): number => {
    let shared = 0;
    let total = 0;
    for (let n = 0; n < scoredLines.length; n++) {
      const i = scoredLines[n];
      const a = needleProfiles[n];
      total += a.length;
      if (s + i >= lines.length) continue;
      const b = (fileProfiles[s + i] ??= profile(lines[s + i]));
      total += b.length;
      steps += a.length + b.length;
      shared += 2 * intersectionSize(a, b);
    }
    return total === 0 ? 0 : shared / total;
  };

  // What scoring costs, from line lengths alone (a profile has at most a line's characters + 1, up to MAX_COMPARED_CHARS + 1;
  // a window's file lines are all counted, which over-counts a sampled old_string: fewer windows are scored, never more).
  let needleCost = 0;
  for (const p of needleProfiles) needleCost += p.length;
  const before = new Float64Array(lines.length + 1);
  for (let j = 0; j < lines.length; j++) before[j + 1] = before[j] + Math.min(lines[j].length, MAX_COMPARED_CHARS) + 1;
  let allCost = 0;
  let windowCost = 0;
  for (let s = 0; s < windows; s++) {
    const cost = needleCost + before[Math.min(lines.length, s + needle.length)] - before[s];
    allCost += cost;
    if (cost > windowCost) windowCost = cost;
  }
  const starts =
    windows * scoredLines.length <= EXHAUSTIVE_PAIRS && allCost <= budget
      ? Array.from({ length: windows }, (_, s) => s)
      : rankWindows(lines, needle, windows, Math.max(1, Math.min(REFINED_WINDOWS, Math.floor(budget / windowCost))));
  const scored = starts.map((s) => ({ s, similarity: score(s) }));
  if (options.work) options.work.steps += steps;
  scored.sort((x, y) => y.similarity - x.similarity || x.s - y.s);

  const picked: WindowCandidate[] = [];
  for (const { s, similarity } of scored) {
    if (picked.length >= limit || similarity < minSimilarity) break;
    if (picked.some((c) => s < c.end && c.start < s + size)) continue;
    picked.push(describeWindow(lines, needle, s, size, similarity));
  }
  return picked;
}

function describeWindow(lines: readonly string[], needle: readonly string[], start: number, size: number, similarity: number): WindowCandidate {
  const window = lines.slice(start, start + size);
  const differs = classifyDifference(needle, window);
  const at = firstDifferentLine(needle, window);
  return {
    start,
    end: start + size,
    startId: lineId(lines, start),
    endId: lineId(lines, start + size - 1),
    similarity,
    percent: differs === "none" ? 100 : Math.min(99, Math.round(similarity * 100)),
    differs,
    firstDifference: at === -1 ? undefined : { needleLine: at + 1, id: lineId(lines, Math.min(start + at, lines.length - 1)) },
  };
}

/**
 * What separates two runs of lines compared pair by pair (see {@link Difference});
 * runs of different lengths differ in content.
 */
export function classifyDifference(a: readonly string[], b: readonly string[]): Difference {
  if (a.length !== b.length) return "content";
  if (a.every((line, i) => line === b[i])) return "none";
  if (a.every((line, i) => line.trimStart() === b[i].trimStart())) return "indentation";
  if (a.every((line, i) => stripWhitespace(line) === stripWhitespace(b[i]))) return "whitespace";
  return "content";
}

/**
 * Similarity of two lines, 0..1: Dice coefficient of their character bigrams
 * after collapsing whitespace (1 for lines that differ only in whitespace).
 */
export function lineSimilarity(a: string, b: string): number {
  const x = profile(a);
  const y = profile(b);
  return (2 * intersectionSize(x, y)) / (x.length + y.length);
}

function firstDifferentLine(needle: readonly string[], window: readonly string[]): number {
  for (let i = 0; i < needle.length; i++) if (needle[i] !== window[i]) return i;
  return -1;
}

function stripWhitespace(line: string): string {
  return line.replace(/\s+/g, "");
}

function lineId(lines: readonly string[], i: number): string {
  return `${i + 1}:${formatHash(lineHash(lines[i]))}`;
}

/**
 * Sorted bigram codes of a line with whitespace collapsed, padded with a
 * sentinel at both ends so one-character and empty lines still have
 * bigrams (two blank lines are identical, not incomparable).
 */
function profile(line: string): Uint32Array {
  const text = normalizeWhitespace(line.length > MAX_COMPARED_CHARS ? line.slice(0, MAX_COMPARED_CHARS) : line);
  const codes = new Uint32Array(text.length + 1);
  let prev = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    codes[i] = ((prev << 16) | ch) >>> 0;
    prev = ch;
  }
  codes[text.length] = (prev << 16) >>> 0;
  return codes.sort();
}

/** Size of the multiset intersection of two sorted arrays. */
function intersectionSize(a: Uint32Array, b: Uint32Array): number {
  let i = 0;
  let j = 0;
  let shared = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      shared++;
      i++;
      j++;
    } else if (a[i] < b[j]) i++;
    else j++;
  }
  return shared;
}

/** Bits of a line's coarse signature (a 1-bit Bloom set of its non-whitespace bigrams). */
const SIGNATURE_WORDS = 4;

/**
 * Cheap ranking of every window for a big file. Each line gets a 128-bit set
 * of its character bigrams (whitespace skipped); a window's rough score is
 * the summed Dice of the sets of its aligned line pairs, for up to
 * {@link INDEXED_NEEDLE_LINES} needle lines. Returns the `keep` best starts.
 */
function rankWindows(lines: readonly string[], needle: readonly string[], windows: number, keep: number): number[] {
  const fileBits = new Uint32Array(lines.length * SIGNATURE_WORDS);
  const fileCounts = new Uint16Array(lines.length);
  for (let j = 0; j < lines.length; j++) fileCounts[j] = sign(lines[j], fileBits, j * SIGNATURE_WORDS);

  const needleBits = new Uint32Array(SIGNATURE_WORDS);
  const scores = new Float64Array(windows);
  const sample = sampleIndices(needle.length, INDEXED_NEEDLE_LINES);
  for (let n = 0; n < sample.length; n++) {
    const i = sample[n];
    needleBits.fill(0);
    const count = sign(needle[i], needleBits, 0);
    const w0 = needleBits[0];
    const w1 = needleBits[1];
    const w2 = needleBits[2];
    const w3 = needleBits[3];
    for (let s = 0, o = i * SIGNATURE_WORDS; s < windows; s++, o += SIGNATURE_WORDS) {
      const x0 = w0 & fileBits[o];
      const x1 = w1 & fileBits[o + 1];
      const x2 = w2 & fileBits[o + 2];
      const x3 = w3 & fileBits[o + 3];
      const shared =
        POPCOUNT16[x0 & 0xffff] +
        POPCOUNT16[x0 >>> 16] +
        POPCOUNT16[x1 & 0xffff] +
        POPCOUNT16[x1 >>> 16] +
        POPCOUNT16[x2 & 0xffff] +
        POPCOUNT16[x2 >>> 16] +
        POPCOUNT16[x3 & 0xffff] +
        POPCOUNT16[x3 >>> 16];
      scores[s] += (2 * shared) / (count + fileCounts[s + i]);
    }
  }
  return topIndices(scores, keep);
}

/** Set the signature bits of `line` in `bits[offset..offset+4)`; returns how many bits are set. */
function sign(line: string, bits: Uint32Array, offset: number): number {
  const end = Math.min(line.length, MAX_COMPARED_CHARS);
  let prev = 0;
  for (let i = 0; i <= end; i++) {
    const ch = i === end ? 0 : line.charCodeAt(i);
    if (ch === 32 || ch === 9 || ch === 11 || ch === 12 || ch === 13 || ch === 160) continue;
    const bit = (Math.imul(prev, 0x9e3779b1) ^ Math.imul(ch + 1, 0x85ebca6b)) >>> 25;
    bits[offset + (bit >>> 5)] |= 1 << (bit & 31);
    prev = ch;
  }
  let count = 0;
  for (let w = offset; w < offset + SIGNATURE_WORDS; w++) count += POPCOUNT16[bits[w] & 0xffff] + POPCOUNT16[bits[w] >>> 16];
  return count;
}

/** Set bits of every 16-bit number: popcount by table lookup in the hot loop. */
const POPCOUNT16 = (() => {
  const table = new Uint8Array(1 << 16);
  for (let i = 1; i < table.length; i++) table[i] = (i & 1) + table[i >>> 1];
  return table;
})();

function sampleIndices(length: number, most: number): number[] {
  if (length <= most) return Array.from({ length }, (_, i) => i);
  return Array.from({ length: most }, (_, k) => Math.floor((k * (length - 1)) / (most - 1)));
}

/** Indices of the `keep` largest positive scores (ties broken by position). */
function topIndices(scores: Float64Array, keep: number): number[] {
  const sorted = scores.slice().sort();
  const threshold = sorted[Math.max(0, sorted.length - keep)];
  const above: number[] = [];
  const tied: number[] = [];
  for (let s = 0; s < scores.length; s++) {
    if (scores[s] <= 0) continue;
    if (scores[s] > threshold) above.push(s);
    else if (scores[s] === threshold) tied.push(s);
  }
  return above.concat(tied.slice(0, Math.max(0, keep - above.length)));
}
