/**
 * A change's "before" is nearly always the "after" of the change before it,
 * so the recorder names blobs by path and version and the store reuses the
 * hash it took under that name. These tests hold the two sides of that: the
 * hashes recorded are always the hashes of the real bytes, and names are
 * only given where a version means one content for good.
 */
import { describe, expect, test } from "bun:test";
import { createRecorder, createStorageHistory, type HistoryStore, sha256Hex } from "../../src/history/mod.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { Cond, type Storage } from "../../src/storage/types.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

/** A history store that notes the name each blob was put under. */
function notingNames(store: HistoryStore): { history: HistoryStore; names: (string | undefined)[] } {
  const names: (string | undefined)[] = [];
  return {
    names,
    history: {
      ...store,
      putBlob(b, known) {
        names.push(known);
        return store.putBlob(b, known);
      },
    },
  };
}

/** Three calls, each rewriting `a.txt` through its own recorder; the recorded changes. */
async function threeCalls(storage: Storage, history: HistoryStore) {
  await storage.write("a.txt", bytes("zero\n"));
  const recorded = [];
  for (const text of ["one\n", "two\n", "three\n"]) {
    const recorder = createRecorder(storage, history);
    const { version } = await recorder.storage.read("a.txt");
    await recorder.storage.write("a.txt", bytes(text), Cond.ifVersion(version));
    recorded.push(...(await recorder.changes()));
  }
  return recorded;
}

describe("blob names", () => {
  test("on memory storage, every recorded before/after is the SHA-256 of its real bytes, and the store gives those bytes back", async () => {
    const store = createStorageHistory(createMemoryStorage());
    const { history, names } = notingNames(store);
    const changes = await threeCalls(createMemoryStorage(), history);
    const texts = ["zero\n", "one\n", "two\n", "three\n"];
    for (const [i, change] of changes.entries()) {
      expect(change.before?.blob).toBe(await sha256Hex(bytes(texts[i]!)));
      expect(change.after?.blob).toBe(await sha256Hex(bytes(texts[i + 1]!)));
      expect(new TextDecoder().decode(await store.getBlob(change.after!.blob))).toBe(texts[i + 1]!);
    }
    // Named by path and version: the second call's "before" is named as the first call's "after" was.
    expect(names.every((n) => n !== undefined)).toBe(true);
    expect(names[2]).toBe(names[1]);
  });

  test("a name the store knows answers with its hash without the bytes being hashed again", async () => {
    const store = createStorageHistory(createMemoryStorage());
    const first = await store.putBlob(bytes("kept\n"), "5:a.txt:v1");
    expect(first).toBe(await sha256Hex(bytes("kept\n")));
    // The contract: the caller vouches that the name means these bytes, so the store does not look at them.
    expect(await store.putBlob(bytes("other\n"), "5:a.txt:v1")).toBe(first);
    expect(await store.putBlob(bytes("other\n"))).toBe(await sha256Hex(bytes("other\n")));
  });

  test("where versions are ETags (an object store), nothing is named: a repeated version with new bytes is still recorded right", async () => {
    // Every write gets the same version, as two contents with colliding ETags would.
    const inner = createMemoryStorage();
    const colliding: Storage = {
      ...inner,
      kind: "s3",
      read: async (path, options) => ({ ...(await inner.read(path, options)), version: "same-etag" }),
      write: async (path, b) => ({ ...(await inner.write(path, b)), version: "same-etag" }),
    };
    const { history, names } = notingNames(createStorageHistory(createMemoryStorage()));
    const changes = await threeCalls(colliding, history);
    expect(names.every((n) => n === undefined)).toBe(true);
    expect(changes.map((c) => c.after?.blob)).toEqual([await sha256Hex(bytes("one\n")), await sha256Hex(bytes("two\n")), await sha256Hex(bytes("three\n"))]);
    expect(changes[2]!.before?.blob).toBe(await sha256Hex(bytes("two\n")));
  });
});
