import { afterAll, expect, test } from "bun:test";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contentEquals, createPacer, localVersion, readAll, SYNC_IO_BYTES, writeAll } from "../../src/storage/local/io.ts";
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

test("contentEquals: the whole file, byte for byte, on both sides of the blocking threshold", async () => {
  for (const size of [0, 1, 100, SYNC_IO_BYTES - 1, SYNC_IO_BYTES, SYNC_IO_BYTES + 1, 2 * SYNC_IO_BYTES + 5]) {
    const bytes = pattern(size);
    const file = join(dir, `eq-${size}`);
    const equals = async (content: Uint8Array) => {
      writeFileSync(file, content);
      const fd = openSync(file, "r");
      try {
        return await contentEquals(fd, bytes);
      } finally {
        closeSync(fd);
      }
    };
    expect(await equals(bytes)).toBe(true);
    expect(await equals(Uint8Array.from([...bytes, 0]))).toBe(false); // longer
    if (size > 0) {
      expect(await equals(bytes.subarray(0, size - 1))).toBe(false); // shorter
      for (const at of [0, size >> 1, size - 1]) {
        const changed = bytes.slice();
        changed[at] ^= 1; // one byte, same size
        expect(await equals(changed)).toBe(false);
      }
    }
  }
});

test("pace lets other work run during a long stretch of blocking calls, and costs nothing in a short one", async () => {
  // A fake clock: each unit of "blocking work" advances it by 0.5 ms, so the stretch is counted, not timed.
  let clock = 1000;
  const pace = createPacer(() => clock);
  // A fresh stretch after a gap: the event loop has just had a turn.
  expect(pace()).toBeUndefined();
  clock += 0.5;
  expect(pace()).toBeUndefined();

  let turns = 0;
  let stop = false;
  const tick = () => {
    turns++;
    if (!stop) setImmediate(tick);
  };
  setImmediate(tick);
  const yieldsAt: number[] = [];
  // 80 units of 0.5 ms back to back (40 ms of fake blocking work), as a walk of many entries does it.
  for (let unit = 0; unit < 80; unit++) {
    clock += 0.5;
    const turn = pace();
    if (turn) {
      const before = turns;
      await turn;
      yieldsAt.push(unit);
      // The pause really let other queued work run.
      expect(turns).toBeGreaterThan(before);
    }
  }
  stop = true;
  // A turn once 4 ms of back-to-back work have run (the stretch began 1 ms before the loop: unit 6),
  // then one every 8 units (4 ms): 10 turns in 40 ms, evenly spaced.
  expect(yieldsAt[0]).toBe(6);
  expect(yieldsAt.length).toBe(10);
  for (let i = 1; i < yieldsAt.length; i++) expect(yieldsAt[i] - yieldsAt[i - 1]).toBe(8);
  // After a gap longer than a turn, a new stretch starts and the next call is free again.
  clock += 2;
  expect(pace()).toBeUndefined();
});
