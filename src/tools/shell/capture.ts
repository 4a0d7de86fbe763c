/** Where captured output was cut: bytes before `at` are the head, after it the tail. */
export interface OutputCut {
  /** Offset in the captured bytes where the omitted part was. */
  readonly at: number;
  /** Bytes dropped between head and tail. */
  readonly omittedBytes: number;
}

/** Captured bytes of one stream: all of it, or its head and tail with a cut between. */
export interface CapturedOutput {
  readonly bytes: Uint8Array;
  readonly cut: OutputCut | null;
}

/**
 * Keeps the first `headLimit` and the last `tailLimit` bytes of a stream of
 * any length, counting what falls between. Memory stays at most
 * `headLimit + tailLimit` bytes however much is pushed: the tail is a ring.
 */
export class HeadTailBuffer {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly headChunks: Uint8Array[] = [];
  private headLength = 0;
  private ring: Uint8Array | null = null;
  private ringStart = 0;
  private ringLength = 0;
  private total = 0;

  constructor(headLimit: number, tailLimit: number) {
    this.headLimit = Math.max(0, Math.floor(headLimit));
    this.tailLimit = Math.max(0, Math.floor(tailLimit));
  }

  /** Every byte pushed so far, kept or not. */
  get totalBytes(): number {
    return this.total;
  }

  /** Appends a chunk; the chunk is copied, so the caller may reuse it. */
  push(chunk: Uint8Array): void {
    this.total += chunk.length;
    let offset = 0;
    if (this.headLength < this.headLimit) {
      offset = Math.min(this.headLimit - this.headLength, chunk.length);
      this.headChunks.push(chunk.slice(0, offset));
      this.headLength += offset;
    }
    const rest = chunk.length - offset;
    if (rest === 0 || this.tailLimit === 0) return;
    const cap = this.tailLimit;
    const ring = (this.ring ??= new Uint8Array(cap));
    if (rest >= cap) {
      ring.set(chunk.subarray(chunk.length - cap));
      this.ringStart = 0;
      this.ringLength = cap;
      return;
    }
    const writeAt = (this.ringStart + this.ringLength) % cap;
    const first = Math.min(rest, cap - writeAt);
    ring.set(chunk.subarray(offset, offset + first), writeAt);
    if (first < rest) ring.set(chunk.subarray(offset + first), 0);
    const length = this.ringLength + rest;
    if (length > cap) {
      this.ringStart = (this.ringStart + length - cap) % cap;
      this.ringLength = cap;
    } else {
      this.ringLength = length;
    }
  }

  /** The kept bytes (head then tail) and where the cut is, if anything was dropped. */
  result(): CapturedOutput {
    const bytes = new Uint8Array(this.headLength + this.ringLength);
    let at = 0;
    for (const chunk of this.headChunks) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
    const ring = this.ring;
    if (ring !== null && this.ringLength > 0) {
      const first = Math.min(this.ringLength, ring.length - this.ringStart);
      bytes.set(ring.subarray(this.ringStart, this.ringStart + first), at);
      bytes.set(ring.subarray(0, this.ringLength - first), at + first);
    }
    const omittedBytes = this.total - this.headLength - this.ringLength;
    return { bytes, cut: omittedBytes > 0 ? { at: this.headLength, omittedBytes } : null };
  }
}
