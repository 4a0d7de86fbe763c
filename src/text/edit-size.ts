/**
 * How large a string edit's result can get, before it is built. A
 * `replace_all` multiplies new_string by the number of places: 100 one-byte
 * places and a 3 MiB new_string are a 300 MiB file, built in memory before
 * any write or quota could refuse it. Pure.
 */

import { compileNeedle, indexOfBytes } from "./bytes-find.ts";
import { interpretEscapes } from "./match-escapes.ts";
import { utf8Length } from "./render.ts";

/** What an edit that would be too large would have made. */
export interface EditGrowth {
  /** Places old_string can occur at most (an upper bound: see {@link editGrowth}). */
  readonly places: number;
  /** Bytes the result could reach. */
  readonly bytes: number;
}

const encoder = new TextEncoder();

/**
 * The result size of replacing old_string with new_string in `body`, when it
 * could pass `limit` bytes; undefined when it cannot. Every place old_string
 * matches (as sent, or with its escapes read, as the matching ladder does)
 * contains its longest line, so the non-overlapping occurrences of that line
 * bound the places from above; counting stops once the limit is passed.
 * Without `replaceAll` at most one place is replaced.
 */
export function editGrowth(body: Uint8Array, oldString: string, newString: string, replaceAll: boolean, limit: number): EditGrowth | undefined {
  const grows = utf8Length(newString) - Math.min(utf8Length(oldString), utf8Length(interpretEscapes(oldString)));
  if (grows <= 0) return undefined;
  if (!replaceAll) return body.length + grows > limit ? { places: 1, bytes: body.length + grows } : undefined;
  const places = Math.max(countUpTo(body, longestLine(oldString), grows, limit), countUpTo(body, longestLine(interpretEscapes(oldString)), grows, limit));
  const bytes = body.length + places * grows;
  return bytes > limit ? { places, bytes } : undefined;
}

function longestLine(text: string): string {
  let best = "";
  for (const line of text.split("\n")) if (line.length > best.length) best = line;
  return best.replace(/\r$/, "");
}

/** Non-overlapping occurrences of `line` in `body`, counted until `body + count * grows` passes `limit`. */
function countUpTo(body: Uint8Array, line: string, grows: number, limit: number): number {
  const needle = compileNeedle(encoder.encode(line));
  const step = Math.max(1, needle.bytes.length);
  let count = 0;
  for (let at = indexOfBytes(body, needle, 0); at !== -1; at = indexOfBytes(body, needle, at + step)) {
    count++;
    if (body.length + count * grows > limit) break;
  }
  return count;
}
