import { isHighSurrogate, isLowSurrogate, wholeCharRange } from "../text/render.ts";

const ELLIPSIS = "…";

/**
 * At most `max` characters of `text` centred on the match `[start, end)`,
 * with "…" (counted in `max`) on each side that was cut. A long match keeps
 * its beginning. Never splits a surrogate pair. `max` 0 gives "".
 */
export function excerptAround(text: string, start: number, end: number, max: number): string {
  if (max <= 0) return "";
  if (text.length <= max) return text;
  // Too small for an ellipsis on either side: the start of the match alone.
  if (max < 3) {
    const [lo, hi] = wholeCharRange(text, start, start + max);
    return text.slice(lo, hi);
  }
  let lo: number;
  let hi: number;
  const matchLength = Math.max(0, end - start);
  if (matchLength >= max - 2) {
    // The character before the match becomes the leading "…".
    lo = start > 0 ? start - 1 : 0;
    hi = lo + max;
  } else {
    const room = max - matchLength;
    lo = start - Math.floor(room / 2);
    hi = end + Math.ceil(room / 2);
  }
  // Give an unused side's share to the other side.
  if (lo < 0) {
    hi = Math.min(text.length, hi - lo);
    lo = 0;
  }
  if (hi > text.length) {
    lo = Math.max(0, lo - (hi - text.length));
    hi = text.length;
  }
  // Make room for the ellipses inside the bound.
  if (lo > 0) lo += 1;
  if (hi < text.length) hi -= 1;
  if (lo > 0 && lo < text.length && isLowSurrogate(text.charCodeAt(lo))) lo += 1;
  if (hi < text.length && hi > 0 && isHighSurrogate(text.charCodeAt(hi - 1))) hi -= 1;
  if (hi < lo) hi = lo;
  return (lo > 0 ? ELLIPSIS : "") + text.slice(lo, hi) + (hi < text.length ? ELLIPSIS : "");
}
