import { describe, expect, test } from "bun:test";
import * as fs from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { handleStream } from "../../src/storage/local/stream.ts";
import { contentVersion } from "../../src/storage/version.ts";

/** A temp file with `bytes`, opened for reading; removed after `use`. */
async function withFile(bytes: Uint8Array<ArrayBuffer>, use: (handle: fs.FileHandle) => Promise<void>): Promise<void> {
  const dir = await fs.mkdtemp(join(tmpdir(), "tw-local-stream-"));
  try {
    await fs.writeFile(join(dir, "f"), bytes);
    await use(await fs.open(join(dir, "f")));
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

function sample(size: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + (i >>> 8)) & 0xff;
  return bytes;
}

/** Read the stream with a BYOB reader whose views cycle through `sizes`, reusing one buffer. */
async function readByob(stream: ReadableStream<Uint8Array>, sizes: number[]): Promise<Uint8Array> {
  const reader = stream.getReader({ mode: "byob" });
  const parts: Uint8Array[] = [];
  let buffer = new ArrayBuffer(Math.max(...sizes));
  for (let k = 0; ; k++) {
    const { done, value } = await reader.read(new Uint8Array(buffer, 0, sizes[k % sizes.length]));
    if (value) buffer = value.buffer as ArrayBuffer;
    if (done) break;
    parts.push(value!.slice());
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe("handleStream (reads one chunk ahead)", () => {
  test("views smaller and larger than a chunk get every byte in order, and the version of those bytes", async () => {
    const bytes = sample(100_003);
    for (const sizes of [[1000], [5000, 300, 70_000], [65_536], [1, 4096]]) {
      await withFile(bytes, async (handle) => {
        const opened = handleStream(handle, "f", bytes.length, 4096);
        expect(await readByob(opened.stream, sizes)).toEqual(bytes);
        expect(await opened.version).toBe(await contentVersion(bytes));
      });
    }
  });

  test("a default reader gets every byte too; an empty file is an empty stream", async () => {
    for (const bytes of [sample(10_000), new Uint8Array(0)]) {
      await withFile(bytes, async (handle) => {
        const opened = handleStream(handle, "f", bytes.length, 999);
        const got = new Uint8Array(await new Response(opened.stream).arrayBuffer());
        expect(got).toEqual(bytes);
        expect(await opened.version).toBe(await contentVersion(bytes));
      });
    }
  });

  test("cancelled with a read in flight: the version rejects, and a later stream reads its own bytes", async () => {
    const first = sample(1_000_000);
    await withFile(first, async (handle) => {
      const opened = handleStream(handle, "f", first.length);
      const reader = opened.stream.getReader({ mode: "byob" });
      await reader.read(new Uint8Array(1 << 18));
      await reader.cancel();
      await expect(opened.version).rejects.toMatchObject({ code: "FS_IO_ERROR" });
    });
    const second = sample(700_000).reverse();
    await withFile(second, async (handle) => {
      const opened = handleStream(handle, "f", second.length);
      expect(await readByob(opened.stream, [1 << 18])).toEqual(second);
      expect(await opened.version).toBe(await contentVersion(second));
    });
  });
});
