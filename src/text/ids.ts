/**
 * Line ids: `N:hh`, a 1-based line number and the 2-hex-digit hash of the
 * line's content (see `src/hash/fnv.ts` for the hash and why 8 bits suffice).
 * An edit that names a line by id proves it targets the line the model read.
 *
 * Parsing is lenient only where the meaning is unambiguous, and every refusal
 * says what an id looks like and how to get a real one:
 * - surrounding whitespace is ignored (" 12:a3 ");
 * - hex digits may be uppercase ("12:A3" is "12:a3"; the hash is a number);
 * - spaces around the colon are ignored ("12 : a3");
 * - leading zeros in the line number are accepted ("012:a3" is line 12);
 * - a whole view line copied with its content ("12:a3|const x = 1;") is read
 *   as its id; the content after "|" is ignored, never compared.
 * Nothing else is guessed: a bare number, a hash of the wrong length, line 0
 * or a negative line is refused with a message that names the fix.
 */

import { formatHash } from "../hash/fnv.ts";

/** The id text of line `n` (1-based) whose content hashes to `h8`, e.g. `"12:a3"`. */
export function formatId(n: number, h8: number): string {
  return `${n}:${formatHash(h8)}`;
}

/** A parsed line id, or why the input is not one (a sentence written for the model). */
export type ParsedLineId = { readonly ok: true; readonly line: number; readonly hash: number } | { readonly ok: false; readonly message: string };

/** What every refusal of a malformed id ends with. */
const ID_SHAPE =
  'a line id is "N:hh": the 1-based line number, a colon, and the 2 hex chars of the line\'s hash, e.g. "12:a3". View the file to get the current ids';

/** The number part of an id; the sign is matched only to explain that ids are 1-based. */
const LINE_NUMBER = /^-?[0-9]+$/;
/** A view-range line number: negative counts from the end. */
const SIGNED_DIGITS = /^[+-]?[0-9]+$/;
const HEX2 = /^[0-9a-fA-F]{2}$/;

/**
 * Parse a line id such as `"12:a3"` (leniency rules in the module comment).
 * Accepts `unknown` because it is fed straight from tool arguments.
 */
export function parseLineId(input: unknown): ParsedLineId {
  if (typeof input === "number") {
    if (!Number.isSafeInteger(input)) return fail(`${String(input)} is not a line id; ${ID_SHAPE}`);
    return fail(input >= 1 ? bareNumber(input) : notFirstLineBare(String(input)));
  }
  if (typeof input !== "string") {
    return fail(`expected a line id string but got ${describe(input)}; ${ID_SHAPE}`);
  }
  const text = input.trim();
  if (text === "") return fail(`got an empty string; ${ID_SHAPE}`);

  const bar = text.indexOf("|");
  const id = bar === -1 ? text : text.slice(0, bar).trimEnd();
  const colon = id.indexOf(":");
  if (colon === -1) {
    if (LINE_NUMBER.test(id)) {
      return fail(Number(id) >= 1 ? bareNumber(id) : notFirstLineBare(id));
    }
    return fail(`${quote(input)} is not a line id; ${ID_SHAPE}`);
  }
  const numberPart = id.slice(0, colon).trim();
  const hashPart = id.slice(colon + 1).trim();
  if (!LINE_NUMBER.test(numberPart)) {
    return fail(
      numberPart === "" ? `${quote(id)} has no line number before the colon; ${ID_SHAPE}` : `${quote(id)} does not start with a line number; ${ID_SHAPE}`,
    );
  }
  const line = Number(numberPart);
  if (line < 1) return fail(notFirstLine(id));
  if (!Number.isSafeInteger(line)) {
    return fail(`${quote(id)} has a line number too large to be a line of any file; ${ID_SHAPE}`);
  }
  if (!HEX2.test(hashPart)) {
    const got = hashPart === "" ? "nothing" : quote(hashPart);
    return fail(
      `the hash part must be 2 hex chars (e.g. "${line}:a3"), but ${quote(id)} has ${got} after the colon. View the file to get the current id of line ${line}`,
    );
  }
  return { ok: true, line, hash: parseInt(hashPart, 16) };
}

/** A view-range endpoint: a line number (negative counts from the end) and, if given as an id, its hash. */
export type ParsedLineRef = { readonly ok: true; readonly line: number; readonly hash?: number } | { readonly ok: false; readonly message: string };

/**
 * Parse one end of a view range: an integer (1 is the first line, -1 the
 * last; as a number or a numeric string) or a line id, of which only the
 * number is used for positioning (its `hash` is passed on so a caller may
 * note that the line changed). 0 is refused: lines are 1-indexed.
 */
export function parseLineRef(input: string | number): ParsedLineRef {
  if (typeof input === "number") {
    if (!Number.isSafeInteger(input)) {
      return fail(`${quote(input)} is not a line number; ${REF_SHAPE}`);
    }
    return input === 0 ? fail(ZERO_REF) : { ok: true, line: input };
  }
  if (typeof input !== "string") {
    return fail(`expected a line number or line id but got ${describe(input)}; ${REF_SHAPE}`);
  }
  const text = input.trim();
  if (SIGNED_DIGITS.test(text)) {
    const line = Number(text);
    if (!Number.isSafeInteger(line)) return fail(`${quote(text)} is too large to be a line number; ${REF_SHAPE}`);
    return line === 0 ? fail(ZERO_REF) : { ok: true, line };
  }
  if (text.includes(":")) {
    const id = parseLineId(text);
    return id.ok ? { ok: true, line: id.line, hash: id.hash } : id;
  }
  return fail(`${quote(input)} is not a line number or line id; ${REF_SHAPE}`);
}

/**
 * The 1-based line a reference points at in a file of `lineCount` lines:
 * negative lines count from the end (-1 is the last). Not clamped: the
 * result may be < 1 or > lineCount, and the caller says what that means.
 */
export function resolveLineRef(line: number, lineCount: number): number {
  return line < 0 ? lineCount + 1 + line : line;
}

const REF_SHAPE = 'use a 1-based line number (negative counts from the end: -1 is the last line) or a line id like "12:a3"';
const ZERO_REF = `lines are 1-indexed: line 0 does not exist, the first line is 1 (and the last is -1)`;

function fail(message: string): { ok: false; message: string } {
  return { ok: false, message };
}

/** `n` as given: a number bare, a string quoted. */
function bareNumber(n: number | string): string {
  const shown = typeof n === "number" ? String(n) : quote(n);
  return `${shown} is a line number without its hash: a line id is "N:hh", e.g. "${n}:a3". View the file to get the current id of line ${n}`;
}

function notFirstLine(id: string): string {
  return `lines are 1-indexed: ${quote(id)} does not exist, the first line is 1`;
}

function notFirstLineBare(n: string): string {
  return `lines are 1-indexed: line ${n} does not exist, the first line is 1; ${ID_SHAPE}`;
}

/** Echo model input in a message, bounded so a pasted blob does not flood the reply. */
function quote(value: unknown): string {
  const text = typeof value === "string" && value.length > 60 ? `${value.slice(0, 60)}…` : value;
  return typeof text === "number" ? String(text) : JSON.stringify(text);
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
