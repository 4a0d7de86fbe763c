/**
 * Lines a streaming view keeps until the scan ends: copies of a few lines
 * (the last N, a window whose end is not known yet, the file's last line),
 * each cut to what rendering can show, and rendered at the end exactly as
 * `renderLines` renders them from a whole document. Pure.
 */

import type { RenderSource } from "../../text/render.ts";
import type { LineBatch } from "./line-scan.ts";

/** One kept line: its id hash, its bytes (perhaps only the beginning) and, if cut, its whole UTF-16 length. */
interface Kept {
  readonly line: number;
  readonly hash: number;
  readonly bytes: Uint8Array;
  /** UTF-16 length of the whole content when `bytes` is only its beginning; 0 otherwise. */
  readonly chars: number;
}

/**
 * Bytes of a line worth keeping to render it with at most `maxLineChars`
 * UTF-16 units: a unit is at most 3 bytes (a surrogate pair is 4 bytes for
 * 2 units), plus room for one cut sequence at the end.
 */
export function keepBytesFor(maxLineChars: number): number {
  return Number.isFinite(maxLineChars) ? 3 * Math.max(0, Math.floor(maxLineChars)) + 4 : Number.POSITIVE_INFINITY;
}

/** UTF-16 length of valid UTF-8 `bytes[start, end)`: one unit per sequence, two for a 4-byte one. */
export function utf16Length(bytes: Uint8Array, start: number, end: number): number {
  let units = 0;
  for (let i = start; i < end; i++) {
    const b = bytes[i];
    if ((b & 0xc0) !== 0x80) units += b >= 0xf0 ? 2 : 1;
  }
  return units;
}

/** Copy line `i` of `batch` as a {@link Kept}. */
function keep(batch: LineBatch, i: number, keepBytes: number): Kept {
  const s = batch.starts[i];
  const e = batch.ends[i];
  const line = batch.firstLine + i;
  if (e - s <= keepBytes) return { line, hash: batch.hashes[i], bytes: batch.body.slice(s, e), chars: 0 };
  return { line, hash: batch.hashes[i], bytes: batch.body.slice(s, s + keepBytes), chars: utf16Length(batch.body, s, e) };
}

/** Consecutive kept lines as a source `renderLines` can render with their real line numbers. */
export function keptSource(lines: readonly Kept[]): RenderSource {
  let size = 0;
  for (const k of lines) size += k.bytes.length;
  const body = new Uint8Array(size);
  const hashes = new Uint8Array(lines.length);
  const starts = new Uint32Array(lines.length);
  const ends = new Uint32Array(lines.length);
  const lineChars = new Float64Array(lines.length);
  let at = 0;
  lines.forEach((k, i) => {
    body.set(k.bytes, at);
    hashes[i] = k.hash;
    starts[i] = at;
    at += k.bytes.length;
    ends[i] = at;
    lineChars[i] = k.chars;
  });
  return { body, hashes, starts, ends, lineChars, firstLine: lines.length > 0 ? lines[0].line : 1 };
}

/** The last `capacity` lines seen. */
export class LastLines {
  private readonly ring: Kept[] = [];
  private next = 0;

  constructor(
    private readonly capacity: number,
    private readonly keepBytes: number,
  ) {}

  add(batch: LineBatch): void {
    const count = batch.hashes.length;
    // Only the batch's last `capacity` lines can survive it: copy no others.
    for (let i = Math.max(0, count - this.capacity); i < count; i++) {
      const kept = keep(batch, i, this.keepBytes);
      if (this.ring.length < this.capacity) this.ring.push(kept);
      else this.ring[this.next] = kept;
      this.next = (this.next + 1) % this.capacity;
    }
  }

  /** The kept lines, oldest first. */
  lines(): Kept[] {
    if (this.ring.length < this.capacity) return [...this.ring];
    return [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
  }
}

/** Lines `from..to` (1-based, inclusive) as they pass. */
export class LineRange {
  private readonly kept: Kept[] = [];

  constructor(
    private readonly from: number,
    private readonly to: number,
    private readonly keepBytes: number,
  ) {}

  add(batch: LineBatch): void {
    const first = batch.firstLine;
    const lo = Math.max(this.from, first);
    const hi = Math.min(this.to, first + batch.hashes.length - 1);
    for (let line = lo; line <= hi; line++) this.kept.push(keep(batch, line - first, this.keepBytes));
  }

  lines(): Kept[] {
    return this.kept;
  }
}
