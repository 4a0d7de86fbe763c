/**
 * Which lines a file view shows: `start`/`end` as given by the model
 * (numbers, negative from the end, or line ids whose number is used) turned
 * into a 1-based inclusive range over a file of known length. Pure.
 *
 * Out-of-range ends are clamped and explained in a note, because the model
 * usually just misjudged the length and the nearest lines are what it
 * wants. Line 0 and a start after the end are refused, since any guess
 * would show lines it did not ask for; the refusal names the fix.
 */

import { formatHash } from "../../hash/fnv.ts";
import { formatId, parseLineRef, resolveLineRef } from "../../text/ids.ts";

/** A range resolved against a file, plus one note per bound that needed explaining. */
export type ResolvedRange =
  | { readonly ok: true; readonly from: number; readonly to: number; readonly notes: readonly string[] }
  | { readonly ok: false; readonly message: string };

type Bound = string | number | undefined;

function shown(value: string | number): string {
  return typeof value === "number" ? String(value) : JSON.stringify(value);
}

function parseBound(which: "start" | "end", value: Bound) {
  if (value === undefined) return { ok: true as const, line: undefined, hash: undefined };
  const parsed = parseLineRef(value);
  if (parsed.ok) return { ok: true as const, line: parsed.line, hash: parsed.hash };
  const zero = typeof value === "number" ? value === 0 : /^\s*[+-]?0+\s*$/.test(value) || /^\s*[+-]?0+\s*:/.test(value);
  if (zero) {
    const fix =
      which === "start"
        ? 'use "start": 1 for the first line (negative numbers count from the end: -1 is the last line)'
        : 'use "end": -1 for the last line, or a line number from 1';
    return { ok: false as const, message: `${which} ${shown(value)}: lines are 1-indexed, so there is no line 0; ${fix}.` };
  }
  const line = lineOfBadId(value);
  if (line !== undefined) {
    // Only the number positions a view, so the bad hash is no reason to ask for a view first.
    return {
      ok: false as const,
      message: `${which} ${shown(value)} is not a line id: the hash after the colon must be 2 hex chars (as in "${line}:a3"). A view needs only the line number: "${which}": ${line}.`,
    };
  }
  return { ok: false as const, message: `${which} ${shown(value)}: ${parsed.message}.` };
}

// A positive line number, a colon, and whatever stands where the hash should be (maybe a pasted "|content").
const ID_WITH_LINE = /^\s*\+?0*([1-9][0-9]*)\s*:([^|]*)(?:\|[\s\S]*)?$/;

/**
 * The line number of a bound written as an id whose hash is malformed
 * ("3:zz", "3:"), or undefined for anything else (a valid id, a plain
 * number, text that names no line). Pure.
 */
export function lineOfBadId(value: string | number | undefined): number | undefined {
  if (typeof value !== "string") return undefined;
  const m = ID_WITH_LINE.exec(value);
  if (!m || /^\s*[0-9a-fA-F]{2}\s*$/.test(m[2])) return undefined;
  const line = Number(m[1]);
  return Number.isSafeInteger(line) ? line : undefined;
}

/**
 * Why bounds that {@link boundsWithLineNumbers} corrected were refused, for
 * the message that offers the corrected view. Pure.
 */
export function badIdText(start: Bound, end: Bound): string {
  const bad = (["start", "end"] as const)
    .map((which) => [which, which === "start" ? start : end] as const)
    .filter(([, value]) => lineOfBadId(value) !== undefined)
    .map(([which, value]) => `${which} ${shown(value!)}`);
  const example = `"${lineOfBadId(start) ?? lineOfBadId(end)}:a3"`;
  const subject = bad.length === 1 ? `${bad[0]} is not a line id` : `${bad.join(" and ")} are not line ids`;
  return `${subject}: the hash after the colon must be 2 hex chars (as in ${example}). A view needs only the line number, so nothing is lost without the hash.`;
}

/**
 * `start`/`end` with each id whose hash is malformed replaced by its line
 * number, when that is all that stops the bounds from parsing; otherwise
 * undefined (nothing to correct, or something else is wrong too). Pure.
 */
export function boundsWithLineNumbers(start: Bound, end: Bound): { start: Bound; end: Bound } | undefined {
  const fixedStart = lineOfBadId(start) ?? start;
  const fixedEnd = lineOfBadId(end) ?? end;
  if (fixedStart === start && fixedEnd === end) return undefined;
  return resolveRange(fixedStart, fixedEnd, 0, () => 0).ok ? { start: fixedStart, end: fixedEnd } : undefined;
}

/**
 * What the session's observation says of the file since its last view:
 * "changed" (another version now), "unchanged" (the version it viewed),
 * "unviewed" (never viewed this session), or undefined (not known here).
 * An id that does not match its line is described by it: only on a file
 * that changed can the line have "changed since"; on an unchanged or
 * unviewed one the id was mistyped (or is from elsewhere).
 */
export type SinceView = "changed" | "unchanged" | "unviewed" | undefined;

/**
 * Resolve `start`/`end` against a file of `total` lines. `hashAt(n)` gives
 * line n's id hash (1-based), so an id that does not match its line gets a
 * note with its current id, worded by `since`. A non-empty file yields
 * `1 <= from <= to <= total`; an empty one yields `from = 1, to = 0`.
 */
export function resolveRange(start: Bound, end: Bound, total: number, hashAt: (line: number) => number, since?: SinceView): ResolvedRange {
  const s = parseBound("start", start);
  if (!s.ok) return s;
  const e = parseBound("end", end);
  if (!e.ok) return e;
  if (total === 0) return { ok: true, from: 1, to: 0, notes: [] };

  const from = s.line === undefined ? 1 : resolveLineRef(s.line, total);
  const to = e.line === undefined ? total : resolveLineRef(e.line, total);
  // Only two explicit bounds can contradict each other; a lone bound past the file is clamped below.
  if (start !== undefined && end !== undefined && from > to) {
    const at = (value: string | number, line: number) => (typeof value === "number" && value > 0 ? shown(value) : `${shown(value)} (line ${line} of ${total})`);
    return {
      ok: false,
      message:
        `start ${at(start!, from)} comes after end ${at(end!, to)}, so the range is empty. ` + `Swap them: "start": ${shown(end!)}, "end": ${shown(start!)}.`,
    };
  }

  const notes: string[] = [];
  const lines = `the file has ${total} ${total === 1 ? "line" : "lines"}`;
  let first = from;
  let last = to;
  if (from < 1) {
    notes.push(`start ${shown(start!)} reaches before line 1 (${lines}); showing from line 1`);
    first = 1;
  } else if (from > total) {
    notes.push(`start ${shown(start!)} is past the end (${lines}); showing the last line`);
    first = total;
  }
  if (to > total) {
    if (from <= total) notes.push(`end ${shown(end!)} is past the end (${lines}); showing up to line ${total}`);
    last = total;
  } else if (to < 1) {
    notes.push(`end ${shown(end!)} reaches before line 1 (${lines}); showing up to line 1`);
    last = 1;
  }
  if (last < first) last = first;
  for (const [which, bound, line] of [
    ["start", s, from],
    ["end", e, to],
  ] as const) {
    if (bound.hash === undefined || line < 1 || line > total) continue;
    const now = hashAt(line);
    if (now !== bound.hash) notes.push(mismatchNote(which, formatId(line, bound.hash), line, `${line}:${formatHash(now)}`, since));
  }
  return { ok: true, from: first, to: last, notes };
}

/** The note for an id whose hash is not its line's (see {@link SinceView}); the view is positioned by the number either way. */
function mismatchNote(which: "start" | "end", sent: string, line: number, current: string, since: SinceView): string {
  const shown = `showing line ${line} by its number`;
  switch (since) {
    case "changed":
      return `${which} id ${sent} is out of date: line ${line} has changed since (now ${current})`;
    case "unchanged":
      return `${which} id ${sent} is not line ${line}'s id, which is ${current}; the file has not changed since this session viewed it, so the id is mistyped or from another file; ${shown}`;
    case "unviewed":
      return `${which} id ${sent} is not line ${line}'s id, which is ${current} (this session has not viewed this file before, so the id is not from a view of it); ${shown}`;
    default:
      return `${which} id ${sent} does not match line ${line}, whose id is ${current}: the id is mistyped, or the line changed since it was read; ${shown}`;
  }
}
