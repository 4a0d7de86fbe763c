/**
 * An object store's response body (an R2 object body, an S3 GET response)
 * as the stream `Storage.readStream` hands out: read on demand only (no
 * chunk is fetched before the reader asks, so a slow reader holds one chunk,
 * not the file), in chunks large enough that a tool's per-chunk costs vanish
 * (into the reader's own buffer when it brings one, as the view does), no
 * empty chunks, every failure an FsError FS_IO_ERROR. A body that ends short
 * of (or runs past) the size the store announced is a failure too, since the
 * version would then name bytes that were not delivered. Cancelling cancels
 * the body, which releases the connection.
 *
 * Web streams only: this runs on Workers, Deno and Bun.
 */
import { FsError } from "./errors.ts";

/** Options of {@link bodyStream}. */
export interface BodyStreamOptions {
  /** Workspace path the body is the content of (for the errors). */
  readonly path: string;
  /** Bytes the store said the body holds (R2 `size`, S3 Content-Length). */
  readonly expectedBytes: number;
  /** The message of an FS_IO_ERROR, in the provider's wording, from the reason. */
  readonly describe: (reason: string) => string;
}

/**
 * A body stream reduced to what is read of it, so that a runtime's own
 * `ReadableStream` type (Workers' differs from the DOM's) fits.
 */
export interface BodySource {
  getReader(): {
    read(): Promise<{ done: boolean; value?: Uint8Array }>;
    cancel(reason?: unknown): Promise<void>;
  };
  cancel(reason?: unknown): Promise<void>;
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Chunk size for a reader that brings no buffer of its own. Stores deliver
 * bodies in small pieces (Miniflare's R2: 4 KiB), and a tool pays per chunk,
 * so pieces are gathered into chunks of this size (or into the reader's
 * own buffer, however large it is).
 */
export const BODY_CHUNK_BYTES = 64 * 1024;

/**
 * Wrap `body` (which this takes over) as a byte stream that pulls only when
 * the reader asks and fills each chunk (a BYOB reader's buffer, else a
 * {@link BODY_CHUNK_BYTES} one) from as many body pieces as it takes.
 */
export function bodyStream(body: BodySource, options: BodyStreamOptions): ReadableStream<Uint8Array> {
  const { path, expectedBytes, describe } = options;
  const reader = body.getReader();
  let received = 0;
  /** Received but not yet handed out. */
  let pending: Uint8Array | undefined;
  let ended = false;
  const failure = (reason: string, cause?: unknown) => new FsError("FS_IO_ERROR", describe(reason), { path, cause });

  /** The next piece of the body with bytes in it; undefined at its end. Rejects with an FsError. */
  async function nextPiece(): Promise<Uint8Array | undefined> {
    for (;;) {
      let next: { done: boolean; value?: Uint8Array };
      try {
        next = await reader.read();
      } catch (error) {
        throw failure(`the body broke off after ${received} of ${expectedBytes} bytes: ${reasonOf(error)}`, error);
      }
      if (next.done || next.value === undefined) {
        if (received !== expectedBytes) throw failure(`the body ended after ${received} of ${expectedBytes} bytes`);
        return undefined;
      }
      const piece = next.value;
      if (piece.byteLength === 0) continue;
      received += piece.byteLength;
      if (received > expectedBytes) {
        await reader.cancel().catch(() => undefined);
        throw failure(`the body ran past the ${expectedBytes} bytes announced`);
      }
      return piece;
    }
  }

  const source: UnderlyingByteSource = {
    type: "bytes",
    autoAllocateChunkSize: BODY_CHUNK_BYTES,
    async pull(controller) {
      const request = controller.byobRequest!;
      const view = request.view as Uint8Array;
      let filled = 0;
      try {
        while (filled < view.byteLength) {
          if (pending === undefined) {
            if (ended) break;
            pending = await nextPiece();
            if (pending === undefined) {
              ended = true;
              break;
            }
          }
          const n = Math.min(pending.byteLength, view.byteLength - filled);
          view.set(pending.subarray(0, n), filled);
          filled += n;
          pending = n < pending.byteLength ? pending.subarray(n) : undefined;
        }
      } catch (error) {
        controller.error(error);
        return;
      }
      if (filled > 0) {
        request.respond(filled);
        return;
      }
      controller.close();
      request.respond(0);
    },
    async cancel(reason) {
      pending = undefined;
      await reader.cancel(reason).catch(() => undefined);
    },
  };
  // A byte source is pulled only when a read is pending: nothing is fetched ahead of the reader.
  return new ReadableStream(source);
}

/** The stream of a body already held whole (a response without a length to check against). */
export function bytesStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.length > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}
