/**
 * Which lines of a version a session has seen. A whole-file `write` replaces
 * every line, so it must be based on every line of the version it replaces:
 * a 3-line ranged view or one search hit is not enough. Ranged views of the
 * same version add up. Pure: the tools record, the store keeps.
 */

import type { Version } from "../storage/types.ts";
import { loosened, withShown } from "./own-edits.ts";
import { mergeSpans } from "./spans.ts";
import type { LineSpan, Observation } from "./types.ts";

/** Most spans kept per observation; past it, middle spans are forgotten (those lines count as unseen again). */
export const MAX_SPANS = 64;

/** The spans of lines 1..total not in `seen` (undefined: the whole version was seen, so none). */
export function unseenSpans(seen: readonly LineSpan[] | undefined, total: number): LineSpan[] {
  if (seen === undefined) return [];
  const out: LineSpan[] = [];
  let next = 1;
  for (const [a, b] of mergeSpans(seen)) {
    if (a > next) out.push([next, Math.min(a - 1, total)]);
    next = Math.max(next, b + 1);
    if (next > total) break;
  }
  if (next <= total) out.push([next, total]);
  return out.filter(([a, b]) => a <= b);
}

/**
 * The observation after a session saw lines `from..to` of `total` at
 * `version` (`to < from`: no line, e.g. a range past the end). A view of
 * every line, or one that completes earlier views of the same version, is
 * a whole observation (no `seen`); otherwise the spans seen so far.
 */
export function observeLines(prior: Observation | undefined, version: Version, from: number, to: number, total: number): Observation {
  const whole: Observation = { kind: "present", version };
  if (total === 0 || (from <= 1 && to >= total)) return whole;
  const same = prior?.kind === "present" && prior.version === version ? prior : undefined;
  // A part of a version someone else wrote: the session's own earlier edits still make its older ids doubtful.
  const other = prior?.kind === "present" && !same ? prior.own : undefined;
  if (other !== undefined) {
    const spans: LineSpan[] = to >= from ? [[from, to]] : [];
    return { kind: "present", version, seen: spans, own: loosened(other, spans) };
  }
  const before = same ? same.seen : [];
  if (before === undefined) {
    // The session saw this version whole before: a ranged look again takes nothing away, and the
    // lines it showed now carry current ids for the session (see own-edits.ts).
    if (!same?.own) return whole;
    return { ...whole, own: to >= from ? withShown(same.own, [[from, to]]) : same.own };
  }
  let seen = mergeSpans(to >= from ? [...before, [from, to]] : before);
  if (unseenSpans(seen, total).length === 0) return whole;
  if (seen.length > MAX_SPANS) seen = [[seen[0][0], seen[0][1]], ...seen.slice(-(MAX_SPANS - 1))];
  // Every line seen of this version ends the doubt about old ids (above); until then the moves stay.
  const own = same?.own && (to >= from ? withShown(same.own, [[from, to]]) : same.own);
  return own ? { kind: "present", version, seen, own } : { kind: "present", version, seen };
}
