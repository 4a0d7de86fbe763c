import type { ContentBlock } from "../result.ts";

/** A piece of text handed to the matchers. */
export interface Segment {
  readonly text: string;
  readonly source: "text" | "value";
}

/** The scannable text of a result: whole when small, head and tail when huge. */
export interface TextWindows {
  readonly segments: Segment[];
  readonly totalChars: number;
  readonly scannedChars: number;
  readonly skipped?: { readonly from: number; readonly to: number };
}

// CSI sequences (colours, cursor moves) and OSC strings (titles, hyperlinks).
// Each piece is a single quantifier over a class disjoint from what follows,
// so removal is linear.
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;

/** `text` without ANSI escape sequences, so rules need not allow for colour codes. */
export function stripAnsi(text: string): string {
  return text.includes("\x1b") ? text.replace(ANSI, "") : text;
}

/** Length of the blocks' texts joined with "\n" (as `resultText` joins them). */
export function joinedLength(blocks: readonly ContentBlock[]): number {
  let total = blocks.length > 0 ? blocks.length - 1 : 0;
  for (const b of blocks) total += b.text.length;
  return total;
}

/** `[from, to)` of the blocks joined with "\n", without building the whole join. */
function sliceJoined(blocks: readonly ContentBlock[], from: number, to: number): string {
  const parts: string[] = [];
  let offset = 0;
  for (let i = 0; i < blocks.length && offset < to; i++) {
    const text = blocks[i].text;
    const end = offset + text.length;
    if (end > from) parts.push(text.slice(Math.max(0, from - offset), Math.min(text.length, to - offset)));
    offset = end;
    if (i < blocks.length - 1) {
      if (offset >= from && offset < to) parts.push("\n");
      offset += 1;
    }
  }
  return parts.join("");
}

/**
 * The text blocks to scan. Up to `maxChars` the whole text is one segment;
 * beyond it the first and last halves are scanned separately (trimmed to
 * whole lines when a line break is near) and the middle is reported as
 * skipped, so a 50 MB output costs the same as a 1 MB one.
 */
export function textWindows(blocks: readonly ContentBlock[], maxChars: number): TextWindows {
  const totalChars = joinedLength(blocks);
  if (totalChars <= maxChars) {
    const text = blocks.map((b) => b.text).join("\n");
    return { segments: [{ text: stripAnsi(text), source: "text" }], totalChars, scannedChars: totalChars };
  }
  const half = Math.floor(maxChars / 2);
  let head = sliceJoined(blocks, 0, half);
  let tail = sliceJoined(blocks, totalChars - (maxChars - half), totalChars);
  // Cut at line boundaries when one is in the outer half of the window, so a
  // cut does not invent a line start for `^`-anchored rules.
  const lastBreak = head.lastIndexOf("\n");
  if (lastBreak >= head.length / 2) head = head.slice(0, lastBreak + 1);
  const firstBreak = tail.indexOf("\n");
  if (firstBreak >= 0 && firstBreak < tail.length / 2) tail = tail.slice(firstBreak + 1);
  return {
    segments: [
      { text: stripAnsi(head), source: "text" },
      { text: stripAnsi(tail), source: "text" },
    ],
    totalChars,
    scannedChars: head.length + tail.length,
    skipped: { from: head.length, to: totalChars - tail.length },
  };
}

/** The last `chars` characters of the joined blocks (where shell markers live). */
export function joinedTail(blocks: readonly ContentBlock[], chars: number): string {
  const total = joinedLength(blocks);
  return sliceJoined(blocks, Math.max(0, total - chars), total);
}
