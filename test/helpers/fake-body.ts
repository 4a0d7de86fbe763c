/**
 * Object bodies for the fake object stores (R2, S3) that record how they
 * are read, so tests can prove a provider streams (pulls on demand) and
 * releases (cancels) what it does not read.
 */

/** One body handed out: bytes pulled so far and whether the reader cancelled it. */
export interface FakeBody {
  readonly key: string;
  /** Bytes the reader pulled out of the body so far. */
  pulled: number;
  cancelled: boolean;
}

/** `bytes` as a pull-driven stream in `chunk`-byte pieces, recording into a new entry of `bodies`. */
export function recordedBody(bodies: FakeBody[], key: string, bytes: Uint8Array, chunk: number): ReadableStream<Uint8Array> {
  const record: FakeBody = { key, pulled: 0, cancelled: false };
  bodies.push(record);
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (record.pulled >= bytes.length) return controller.close();
        const piece = bytes.slice(record.pulled, record.pulled + chunk);
        record.pulled += piece.length;
        controller.enqueue(piece);
      },
      cancel() {
        record.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
}
