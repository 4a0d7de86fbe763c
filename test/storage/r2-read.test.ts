/**
 * How the R2 provider reads an object body, against the in-memory fake
 * bucket (which records what is pulled from each body and whether it was
 * cancelled): `readStream` pulls as the reader reads and cancels the body
 * when the reader cancels; `read` with `maxBytes` refuses by the object's
 * size without reading the body; a body that fails or ends short is
 * FS_IO_ERROR. The same behaviour inside workerd: test/storage/r2-workerd.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { BODY_CHUNK_BYTES } from "../../src/storage/body-stream.ts";
import type { R2ObjectBodyLike } from "../../src/storage/r2/mod.ts";
import { createR2Storage } from "../../src/storage/r2/mod.ts";
import { createFakeR2, FAKE_R2_CHUNK, type FakeR2 } from "../helpers/worker-fake-r2.ts";

const text = (s: string) => new TextEncoder().encode(s);

function setup(): { bucket: FakeR2; storage: ReturnType<typeof createR2Storage> } {
  const bucket = createFakeR2();
  return { bucket, storage: createR2Storage(bucket, "ws") };
}

async function failureOf(promise: Promise<unknown>): Promise<{ code?: string; message: string; cause?: unknown }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: string; message: string; cause?: unknown };
  }
  throw new Error("expected a failure");
}

/** A bucket whose `get` answers `object` with `body` in place of the stored one. */
function withBody(bucket: FakeR2, size: number, body: ReadableStream<Uint8Array>): void {
  bucket.get = async (key): Promise<R2ObjectBodyLike> => ({
    key,
    size,
    etag: "e1",
    uploaded: new Date(0),
    body,
    arrayBuffer: () => new Response(body).arrayBuffer(),
  });
}

function parts(chunks: string[], breaks?: Error): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < chunks.length) controller.enqueue(text(chunks[next++]));
      else if (breaks) controller.error(breaks);
      else controller.close();
    },
  });
}

describe("r2 read bodies", () => {
  test("readStream pulls the body as the reader reads, and a cancel cancels the body", async () => {
    const { bucket, storage } = setup();
    const size = 10 * FAKE_R2_CHUNK;
    const { version } = await storage.write("big", new Uint8Array(size).fill(1));
    const opened = await storage.readStream!("big");
    expect(opened.size).toBe(size);
    expect(await opened.version).toBe(version);
    const reader = opened.stream.getReader();
    expect((await reader.read()).value?.length).toBe(BODY_CHUNK_BYTES);
    const body = bucket.bodies.at(-1)!;
    expect(body.pulled).toBeLessThan(size / 2);
    await reader.cancel();
    expect(body.cancelled).toBe(true);
  });

  test("read with maxBytes refuses by the object's size and cancels the body unread", async () => {
    const { bucket, storage } = setup();
    const size = 10 * FAKE_R2_CHUNK;
    await storage.write("big", new Uint8Array(size));
    const failure = await failureOf(storage.read("big", { maxBytes: size - 1 }));
    expect(failure).toMatchObject({ code: "FS_TOO_LARGE", size, limit: size - 1, path: "big" });
    expect(bucket.bodies.at(-1)).toMatchObject({ key: "ws/big", pulled: 0, cancelled: true });
    expect((await storage.read("big", { maxBytes: size })).bytes.length).toBe(size);
  });

  test("a body that breaks off is FS_IO_ERROR through the stream, with the cause chained", async () => {
    const { bucket, storage } = setup();
    withBody(bucket, 100, parts(["partial"], new TypeError("network lost")));
    const opened = await storage.readStream!("f");
    const failure = await failureOf(new Response(opened.stream).arrayBuffer());
    expect(failure.code).toBe("FS_IO_ERROR");
    expect(failure.message).toContain("R2 read failed: the body broke off after 7 of 100 bytes: network lost");
    expect(failure.cause).toBeInstanceOf(TypeError);
  });

  test("a body shorter than the object's size is FS_IO_ERROR: its ETag would not name what arrived", async () => {
    const { bucket, storage } = setup();
    withBody(bucket, 10, parts(["abc", "", "de"]));
    const opened = await storage.readStream!("f");
    const failure = await failureOf(new Response(opened.stream).arrayBuffer());
    expect(failure).toMatchObject({ code: "FS_IO_ERROR", message: expect.stringContaining("ended after 5 of 10 bytes") });
  });

  test("small pieces of the body are gathered into chunks, and empty ones vanish", async () => {
    const { bucket, storage } = setup();
    withBody(bucket, 5, parts(["", "abc", "", "", "de", ""]));
    const opened = await storage.readStream!("f");
    const chunks: string[] = [];
    for await (const chunk of opened.stream) chunks.push(new TextDecoder().decode(chunk));
    expect(chunks).toEqual(["abcde"]);
  });

  test("4 KiB pieces (Miniflare's R2) arrive as 64 KiB chunks, or fill a reader's own 256 KiB buffer", async () => {
    const { bucket, storage } = setup();
    const piece = "x".repeat(4096);
    const size = 100 * 4096;
    withBody(bucket, size, parts(Array(100).fill(piece)));
    const plain = (await storage.readStream!("f")).stream.getReader();
    expect((await plain.read()).value?.length).toBe(BODY_CHUNK_BYTES);
    await plain.cancel();

    withBody(bucket, size, parts(Array(100).fill(piece)));
    const byob = (await storage.readStream!("f")).stream.getReader({ mode: "byob" });
    const sizes: number[] = [];
    let buffer = new Uint8Array(256 * 1024);
    for (;;) {
      const { done, value } = await byob.read(buffer);
      if (done || !value) break;
      sizes.push(value.length);
      buffer = new Uint8Array(value.buffer);
    }
    expect(sizes).toEqual([256 * 1024, size - 256 * 1024]);
  });

  test("a get that fails is FS_IO_ERROR before any stream is handed out", async () => {
    const { bucket, storage } = setup();
    bucket.get = async () => {
      throw new Error("R2 unavailable");
    };
    expect(await failureOf(storage.readStream!("f"))).toMatchObject({ code: "FS_IO_ERROR", message: "R2 read failed: R2 unavailable" });
    expect(await failureOf(storage.read("f", { maxBytes: 1 }))).toMatchObject({ code: "FS_IO_ERROR" });
  });
});
