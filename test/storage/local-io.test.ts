import { afterAll, expect, test } from "bun:test";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { localVersion, pace, readAll, SYNC_IO_BYTES, writeAll } from "../../src/storage/local-io.ts";
import { contentVersion } from "../../src/storage/version.ts";

const dir = mkdtempSync(join(tmpdir(), "tw-local-io-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function pattern(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 7 + (i >> 8)) & 0xff;
  return bytes;
}

async function readWithHint(bytes: Uint8Array, hint: number): Promise<Uint8Array> {
  const file = join(dir, `f-${bytes.length}-${hint}`);
  writeFileSync(file, bytes);
  const fd = openSync(file, "r");
  try {
    return await readAll(fd, hint);
  } finally {
    closeSync(fd);
  }
}

test("readAll reads exactly the file whatever the size hint said (grown, shrunk, empty), blocking or pooled", async () => {
  for (const size of [0, 1, 4095, 70_000, SYNC_IO_BYTES + 12_345]) {
    const bytes = pattern(size);
    for (const hint of [0, Math.floor(size / 3), size, size + 100_000]) {
      const got = await readWithHint(bytes, hint);
      expect(got.length).toBe(size);
      expect(Buffer.compare(Buffer.from(got), Buffer.from(bytes))).toBe(0);
      // A plain Uint8Array owning its memory: slice() copies, and nothing beyond the bytes is shared.
      expect(Object.getPrototypeOf(got)).toBe(Uint8Array.prototype);
      expect(got.byteOffset).toBe(0);
      expect(got.buffer.byteLength).toBe(size);
    }
  }
});

test("writeAll writes every byte, small and large", async () => {
  for (const size of [0, 10, SYNC_IO_BYTES + 1]) {
    const file = join(dir, `w-${size}`);
    const fd = openSync(file, "w");
    const bytes = pattern(size);
    await writeAll(fd, bytes);
    closeSync(fd);
    expect(Buffer.from(await Bun.file(file).arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
  }
});

test("localVersion equals contentVersion on both sides of the blocking threshold", async () => {
  for (const size of [0, 100, SYNC_IO_BYTES, SYNC_IO_BYTES + 1]) {
    const bytes = pattern(size);
    expect(await localVersion(bytes)).toBe(await contentVersion(bytes));
  }
});

test("pace lets other work run during a long stretch of blocking calls, and costs nothing in a short one", async () => {
  const spin = (ms: number) => {
    const end = performance.now() + ms;
    while (performance.now() < end);
  };
  // A fresh stretch: the event loop has just had a turn.
  await new Promise((resolve) => setTimeout(resolve, 5));
  expect(pace()).toBeUndefined();
  spin(0.5);
  expect(pace()).toBeUndefined();

  let turns = 0;
  let stop = false;
  const tick = () => {
    turns++;
    if (!stop) setImmediate(tick);
  };
  setImmediate(tick);
  let yields = 0;
  const started = performance.now();
  // 40 ms of back-to-back blocking work in 0.5 ms units, as a walk of many entries does it.
  while (performance.now() - started < 40) {
    spin(0.5);
    const turn = pace();
    if (turn) {
      yields++;
      await turn;
    }
  }
  stop = true;
  // A turn at least every ~4 ms of blocking; lenient, since a descheduled process starts a new stretch.
  expect(yields).toBeGreaterThanOrEqual(2);
  expect(turns).toBeGreaterThanOrEqual(yields);
});
