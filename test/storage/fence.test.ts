/**
 * The fence over storage handles (src/storage/fence.ts): an operation that
 * began before the fence closed runs to its end with its own answer, one
 * that begins after is refused before it reaches the storage, and `drained`
 * waits for the ones in flight. Played with an operation held open by the
 * test, so no timing decides it.
 */
import { describe, expect, test } from "bun:test";
import { createFence, fencedStorage } from "../../src/storage/fence.ts";
import { FsError } from "../../src/storage/errors.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { Cond, type Storage } from "../../src/storage/types.ts";

const text = (s: string) => new TextEncoder().encode(s);

/** `storage` whose writes wait until the test lets each go. */
function heldWrites(storage: Storage) {
  const waiting: (() => void)[] = [];
  const held: Storage = {
    ...storage,
    write: async (path, bytes, condition) => {
      await new Promise<void>((go) => waiting.push(go));
      return storage.write(path, bytes, condition);
    },
  };
  return { held, release: () => waiting.shift()!(), count: () => waiting.length };
}

const refused = (path: string, what: string) => new FsError("FS_NOT_FOUND", `gone: ${path} ${what}`, { path });

describe("a fence over a storage", () => {
  test("the write in flight lands with its answer; later operations are refused before the storage; drained waits for the one in flight", async () => {
    const inner = createMemoryStorage();
    const { held, release, count } = heldWrites(inner);
    const fence = createFence();
    const storage = fencedStorage(held, fence, refused);
    const inFlight = storage.write("a.txt", text("one\n"), Cond.ifAbsent);
    await Promise.resolve();
    expect(count()).toBe(1);
    expect(fence.inflight).toBe(1);

    fence.close();
    let drained = false;
    void fence.drained.then(() => (drained = true));
    await expect(storage.write("b.txt", text("two\n"), Cond.ifAbsent)).rejects.toThrow("gone: b.txt was not written");
    await expect(storage.read("a.txt")).rejects.toThrow("gone: a.txt could not be read");
    await expect(storage.list("")).rejects.toThrow("gone: . could not be listed");
    await expect(storage.delete("a.txt")).rejects.toThrow("gone: a.txt was not deleted");
    expect(count()).toBe(1);
    await Promise.resolve();
    expect(drained).toBe(false);

    release();
    expect((await inFlight).created).toBe(true);
    await fence.drained;
    expect(fence.inflight).toBe(0);
    expect(new TextDecoder().decode((await inner.read("a.txt")).bytes)).toBe("one\n");
    expect(await inner.stat("b.txt")).toBeNull();
  });

  test("a fence closed with nothing in flight is drained at once; one never closed never is", async () => {
    const idle = createFence();
    idle.close();
    await idle.drained;
    const open = createFence();
    await fencedStorage(createMemoryStorage(), open, refused).write("x", text("x"), Cond.ifAbsent);
    let drained = false;
    void open.drained.then(() => (drained = true));
    await Promise.resolve();
    expect(drained).toBe(false);
  });
});
