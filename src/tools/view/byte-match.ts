/**
 * The matching lines of a large file found in its bytes, without decoding
 * it whole: for a literal whose bytes are the same in every file (see
 * `Searcher.bytesNeedle`). UTF-8 is self-synchronising, so in valid UTF-8
 * the needle's bytes occur exactly where its text occurs in the decoded
 * text; it holds no line break, so each occurrence lies inside one line.
 * Lines are those of the normalised text (`normalizeEndings`, then split on
 * "\n"): a "\r" right before a "\n" is not content, the BOM is not either,
 * and a final "\n" opens no extra line. Only the lines a search can show
 * are decoded. Pure.
 */

import { type BytesNeedle, indexOfBytes } from "../../text/bytes-find.ts";
import { lineHolding } from "../../text/line-scan.ts";

/** What {@link matchInBytes} found. */
export interface ByteMatches {
  /** Lines in the file. */
  readonly count: number;
  /** 0-based matching lines, ascending, each once. */
  readonly matches: number[];
  /** Content of every line within `context` of the first `keep` matches (0-based line -> content). */
  readonly kept: Map<number, string>;
}

const decoder = new TextDecoder();

/**
 * Match `needle` in the valid UTF-8 `bytes` whose text starts at
 * `bodyStart` (3 after a BOM), keeping the content of the lines within
 * `context` of the first `keep` matching lines.
 */
export function matchInBytes(bytes: Uint8Array, bodyStart: number, needle: BytesNeedle, context: number, keep: number): ByteMatches {
  const length = bytes.length;
  let starts = new Uint32Array(Math.max(16, ((length - bodyStart) >>> 5) + 1));
  let count = length > bodyStart ? 1 : 0;
  if (count === 1) starts[0] = bodyStart;
  for (let i = bytes.indexOf(0x0a, bodyStart); i !== -1 && i + 1 < length; i = bytes.indexOf(0x0a, i + 1)) {
    if (count === starts.length) {
      const grown = new Uint32Array(starts.length * 2);
      grown.set(starts);
      starts = grown;
    }
    starts[count++] = i + 1;
  }
  const finalNewline = length > bodyStart && bytes[length - 1] === 0x0a;
  /** End (exclusive) of line i's content. */
  const endOf = (i: number): number => {
    const terminated = i + 1 < count || finalNewline;
    let end = i + 1 < count ? starts[i + 1]! - 1 : finalNewline ? length - 1 : length;
    if (terminated && end > starts[i]! && bytes[end - 1] === 0x0d) end--;
    return end;
  };

  const matches: number[] = [];
  let line = 0;
  for (let at = indexOfBytes(bytes, needle, bodyStart); at !== -1; ) {
    line = lineHolding(starts, count, at, line);
    matches.push(line);
    // One hit marks the line; go on from the next line.
    if (line + 1 >= count) break;
    at = indexOfBytes(bytes, needle, starts[line + 1]!);
  }

  const kept = new Map<number, string>();
  for (const m of matches.slice(0, keep)) {
    for (let i = Math.max(0, m - context); i <= Math.min(count - 1, m + context); i++) {
      if (!kept.has(i)) kept.set(i, decoder.decode(bytes.subarray(starts[i]!, endOf(i))));
    }
  }
  return { count, matches, kept };
}
