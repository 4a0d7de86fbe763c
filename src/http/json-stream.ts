/**
 * JSON bodies written as a stream of UTF-8 chunks, for REST results that
 * carry a large string (a whole-file view is a 12 MB text). Stringifying
 * such a result builds a second 12 MB string, then the runtime encodes all
 * of it before the first byte leaves; here each slice of a long string is
 * escaped and encoded on its own, as the client reads, and the bytes are
 * exactly `JSON.stringify`'s (same escapes, lone surrogates as `\udXXX`).
 */

/**
 * Long strings are escaped in slices of this many UTF-16 units, and output is
 * handed to the stream once this much is pending: fewer, larger chunks were
 * faster end to end (12 MB over localhost on Bun: 64 Ki 297 ms, 256 Ki 279,
 * 1 Mi 183, median of 8 on a loaded machine).
 */
export const SLICE = 1024 * 1024;
/** Results holding a string longer than this are streamed. */
const STREAM_OVER = 64 * 1024;

const encoder = new TextEncoder();

/** The text of `value` as JSON, in pieces whose concatenation is `JSON.stringify(value)`. */
export function* jsonPieces(value: unknown): Generator<string, void, undefined> {
  if (typeof value === "string") {
    if (value.length <= SLICE) {
      yield JSON.stringify(value);
      return;
    }
    yield '"';
    for (let start = 0; start < value.length; ) {
      let end = Math.min(value.length, start + SLICE);
      // Never split a surrogate pair: each half alone would be escaped as a lone surrogate.
      const last = value.charCodeAt(end - 1);
      if (last >= 0xd800 && last <= 0xdbff && end < value.length) end++;
      const piece = JSON.stringify(value.slice(start, end));
      yield piece.slice(1, -1);
      start = end;
    }
    yield '"';
    return;
  }
  if (Array.isArray(value)) {
    yield "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ",";
      const item: unknown = value[i];
      if (item === undefined || typeof item === "function" || typeof item === "symbol") yield "null";
      else yield* jsonPieces(item);
    }
    yield "]";
    return;
  }
  if (isPlainObject(value)) {
    yield "{";
    let first = true;
    for (const key of Object.keys(value)) {
      const item = value[key];
      if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
      yield first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`;
      first = false;
      yield* jsonPieces(item);
    }
    yield "}";
    return;
  }
  // Numbers, booleans, null, and anything with its own toJSON (e.g. a Date): as JSON.stringify writes them.
  yield JSON.stringify(value) ?? "null";
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** `JSON.stringify(value)` as UTF-8 chunks, produced as the reader pulls. */
export function jsonStream(value: unknown): ReadableStream<Uint8Array> {
  const pieces = jsonPieces(value);
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      let pending = "";
      for (let next = pieces.next(); !next.done; next = pieces.next()) {
        pending += next.value;
        if (pending.length >= SLICE) {
          controller.enqueue(encoder.encode(pending));
          return;
        }
      }
      if (pending.length > 0) controller.enqueue(encoder.encode(pending));
      controller.close();
    },
  });
}

/** Whether `value` holds a string long enough that streaming its JSON pays (a shallow look at tool results). */
export function holdsLongString(value: unknown, depth = 0): boolean {
  if (typeof value === "string") return value.length > STREAM_OVER;
  if (depth > 4 || typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) return value.some((item) => holdsLongString(item, depth + 1));
  return Object.values(value).some((item) => holdsLongString(item, depth + 1));
}
