/**
 * Substring search in time linear in the text, whatever the needle. The
 * engine's own `indexOf` / `includes` compare the needle afresh at each
 * candidate position: "a".repeat(5000) + "b" + "a".repeat(5000) looked up
 * in a 1 MB line of "a" costs ~5e9 comparisons (seconds, one request).
 * Here the needle's first character is still found with the native
 * single-character `indexOf` (memchr-fast on ordinary text), and from there
 * Knuth-Morris-Pratt never re-reads a character of the text. Pure.
 */

/** A needle prepared for {@link indexOfText}: KMP's failure table. */
export interface TextNeedle {
  readonly text: string;
  /** `fail[i]`: length of the longest proper border of `text[0..i]`. */
  readonly fail: Int32Array;
}

/** Work done by searches: characters of the text read in the KMP loop and fallbacks taken (not the native skips); at most twice the text. */
export interface SearchWork {
  steps: number;
}

export function compileText(text: string): TextNeedle {
  const fail = new Int32Array(text.length);
  for (let i = 1, k = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    while (k > 0 && c !== text.charCodeAt(k)) k = fail[k - 1];
    if (c === text.charCodeAt(k)) k++;
    fail[i] = k;
  }
  return { text, fail };
}

/**
 * Where `needle` first occurs in `hay` at or after `from`, or -1 (an empty
 * needle occurs at `from`). At most `2 * (hay.length - from)` steps (see
 * {@link SearchWork}), plus the native single-character skips.
 */
export function indexOfText(hay: string, needle: TextNeedle, from = 0, work?: SearchWork): number {
  if (needle.text.length === 0) return from <= hay.length ? from : -1;
  return scan(hay, needle, Math.max(0, from), 1, work)[0] ?? -1;
}

/** Whether `needle` occurs in `hay` (see {@link indexOfText}). */
export function containsText(hay: string, needle: TextNeedle, work?: SearchWork): boolean {
  return indexOfText(hay, needle, 0, work) !== -1;
}

/**
 * Where `needle` occurs in `hay`, overlapping occurrences included ("aa"
 * occurs twice in "aaa"), at most `limit` of them, in order. After a match
 * the search goes on from the needle's longest border, as KMP does, never
 * from the match start + 1 afresh: restarting would re-read up to the
 * needle's length per match, quadratic for "a" x 1000 in "a" x 1e6. Linear
 * in `hay` (steps counted in `work`, at most twice its length).
 */
export function allIndexesOfText(hay: string, needle: TextNeedle, limit = Number.POSITIVE_INFINITY, work?: SearchWork): number[] {
  if (needle.text.length === 0 || limit <= 0) return [];
  return scan(hay, needle, 0, limit, work);
}

/** KMP from `from`: the starts of up to `limit` occurrences, overlapping ones included, in order. */
function scan(hay: string, needle: TextNeedle, from: number, limit: number, work: SearchWork | undefined): number[] {
  const p = needle.text;
  const m = p.length;
  const found: number[] = [];
  const first = p[0];
  const fail = needle.fail;
  let k = 0;
  let i = from;
  let steps = 0;
  while (i < hay.length) {
    if (k === 0) {
      // Nothing matched yet: skip to the next place the needle can start, natively.
      const at = hay.indexOf(first, i);
      if (at === -1) break;
      i = at + 1;
      k = 1;
    } else {
      const c = hay.charCodeAt(i);
      steps++;
      while (k > 0 && c !== p.charCodeAt(k)) {
        k = fail[k - 1];
        steps++;
      }
      if (c === p.charCodeAt(k)) k++;
      i++;
    }
    if (k === m) {
      found.push(i - m);
      if (found.length >= limit) break;
      k = fail[m - 1];
    }
  }
  if (work) work.steps += steps;
  return found;
}
