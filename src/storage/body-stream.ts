/**
 * An object store's response body (an R2 object body, an S3 GET response)
 * as the stream `Storage.readStream` hands out: read on demand only (no
 * chunk is fetched before the reader asks, so a slow reader holds one chunk,
 * not the file), no empty chunks, every failure an FsError FS_IO_ERROR, and
 * a body that ends short of (or runs past) the size the store announced is a
 * failure too, since the version would then name bytes that were not
 * delivered. Cancelling cancels the body, which releases the connection.
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

/** Wrap `body` (which this takes over) as a pull-driven stream with FsError failures. */
export function bodyStream(body: BodySource, options: BodyStreamOptions): ReadableStream<Uint8Array> {
  const { path, expectedBytes, describe } = options;
  const reader = body.getReader();
  let delivered = 0;
  const failure = (reason: string, cause?: unknown) => new FsError("FS_IO_ERROR", describe(reason), { path, cause });

  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          let next: { done: boolean; value?: Uint8Array };
          try {
            next = await reader.read();
          } catch (error) {
            controller.error(failure(`the body broke off after ${delivered} of ${expectedBytes} bytes: ${reasonOf(error)}`, error));
            return;
          }
          if (next.done || next.value === undefined) {
            if (delivered === expectedBytes) controller.close();
            else controller.error(failure(`the body ended after ${delivered} of ${expectedBytes} bytes`));
            return;
          }
          const chunk = next.value;
          if (chunk.byteLength === 0) continue;
          delivered += chunk.byteLength;
          if (delivered > expectedBytes) {
            await reader.cancel().catch(() => undefined);
            controller.error(failure(`the body ran past the ${expectedBytes} bytes announced`));
            return;
          }
          controller.enqueue(chunk);
          return;
        }
      },
      async cancel(reason) {
        await reader.cancel(reason).catch(() => undefined);
      },
    },
    // Pull only when the reader asks: buffering ahead would hold chunks the reader may never want.
    { highWaterMark: 0 },
  );
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
