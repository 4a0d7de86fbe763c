/**
 * Request bodies as text. JSON is UTF-8 (RFC 8259), and a body that is not
 * is refused rather than decoded with U+FFFD replacements: a lenient decode
 * would turn a Latin-1 "é" in a write's content into a replacement
 * character and write that to the file, a silent corruption.
 */

const strict = new TextDecoder("utf-8", { fatal: true });

/**
 * The request body could not be read: the client closed the connection
 * before sending all of it. Not a server fault; logged as an aborted request.
 */
export class BodyAbortedError extends Error {
  constructor(cause: unknown) {
    super("the client closed the connection before sending the whole request body", { cause });
    this.name = "BodyAbortedError";
  }
}

/**
 * The body as text (a leading BOM dropped), or undefined when it is not
 * valid UTF-8. Rejects with {@link BodyAbortedError} when the body cannot be
 * read to its end (Bun says AbortError, Deno BadResource).
 */
export async function utf8Body(request: { arrayBuffer(): Promise<ArrayBuffer> }): Promise<string | undefined> {
  let bytes: ArrayBuffer;
  try {
    bytes = await request.arrayBuffer();
  } catch (error) {
    throw new BodyAbortedError(error);
  }
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Deepest array/object nesting a request body may have; tool arguments need a handful of levels. */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether `text` nests arrays/objects deeper than `max`, found by one linear
 * scan that skips strings. `JSON.parse` of millions of nested brackets
 * (which fit in the body limit) blocks the event loop for seconds, stalling
 * every other call, so such a body is refused before it is parsed.
 */
export function nestsDeeperThan(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}
