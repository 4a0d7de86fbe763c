import { expect, test } from "bun:test";
import { guardStorage, RESERVED_SEGMENT } from "../../src/storage/guard.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { Cond, type Storage, type WriteCondition } from "../../src/storage/types.ts";
import { HOSTILE_PATHS } from "../helpers/storage-conformance.ts";

/** A provider that only records what reaches it. */
function spy() {
  const calls: Array<[string, unknown[]]> = [];
  const record =
    (method: string) =>
    async (...args: unknown[]): Promise<never> => {
      calls.push([method, args]);
      return (method === "stat" ? null : method === "list" ? { entries: [], truncated: false } : {}) as never;
    };
  const storage: Storage = {
    kind: "spy",
    stat: record("stat"),
    read: record("read"),
    write: record("write"),
    list: record("list"),
    delete: record("delete"),
  };
  return { storage, calls };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => "resolved",
    (error: { code?: string }) => error.code ?? String(error),
  );
}

test("refused paths never reach the provider", async () => {
  const { storage, calls } = spy();
  const guarded = guardStorage(storage);
  for (const path of HOSTILE_PATHS) {
    expect(await codeOf(guarded.stat(path))).toBe("FS_INVALID_PATH");
    expect(await codeOf(guarded.read(path))).toBe("FS_INVALID_PATH");
    expect(await codeOf(guarded.write(path, new Uint8Array(1), Cond.ifAbsent))).toBe("FS_INVALID_PATH");
    expect(await codeOf(guarded.list(path, { recursive: true }))).toBe("FS_INVALID_PATH");
    expect(await codeOf(guarded.delete(path))).toBe("FS_INVALID_PATH");
  }
  expect(calls).toEqual([]);
});

test("the provider sees each path normalised, with its arguments untouched", async () => {
  const { storage, calls } = spy();
  const guarded = guardStorage(storage);
  const bytes = new Uint8Array([1, 2]);
  await guarded.stat("/a/./b/");
  await guarded.read("a//b");
  await guarded.write("/x/../y", bytes, Cond.ifVersion("v1"));
  await guarded.write("z", bytes);
  await guarded.list(".", { recursive: true, depth: 2, limit: 5 });
  await guarded.delete("/d", { ifVersion: "v2" });
  expect(calls).toEqual([
    ["stat", ["a/b"]],
    ["read", ["a/b"]],
    ["write", ["y", bytes, { kind: "ifVersion", version: "v1" }]],
    ["write", ["z", bytes, { kind: "none" }]],
    ["list", ["", { recursive: true, depth: 2, limit: 5 }]],
    ["delete", ["d", { ifVersion: "v2" }]],
  ]);
  expect(guarded.kind).toBe("spy");
});

test("malformed arguments are refused before the provider with INVALID_ARGUMENT", async () => {
  const { storage, calls } = spy();
  const guarded = guardStorage(storage);
  const bad: Array<Promise<unknown>> = [
    guarded.write("f", "text" as unknown as Uint8Array),
    guarded.write("f", new Uint8Array(1), { kind: "ifVersion", version: "" }),
    guarded.write("f", new Uint8Array(1), { kind: "ifNewer" } as unknown as WriteCondition),
    guarded.list("", { limit: 1.5 }),
    guarded.list("", { recursive: true, depth: -1 }),
    guarded.delete("f", { ifVersion: "" }),
  ];
  for (const call of bad) expect(await codeOf(call)).toBe("INVALID_ARGUMENT");
  expect(calls).toEqual([]);
});

test("read's maxBytes must be a whole number of bytes; a valid one reaches the provider", async () => {
  const { storage, calls } = spy();
  const guarded = guardStorage(storage);
  for (const maxBytes of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "10" as unknown as number]) {
    expect(await codeOf(guarded.read("a.txt", { maxBytes }))).toBe("INVALID_ARGUMENT");
  }
  expect(calls).toEqual([]);
  await guarded.read("./a.txt", { maxBytes: 0 });
  expect(calls).toEqual([["read", ["a.txt", { maxBytes: 0 }]]]);
});

test("the reserved segment never reaches the provider, and root listings leave it out", async () => {
  const { storage, calls } = spy();
  const guarded = guardStorage(storage);
  for (const path of [RESERVED_SEGMENT, `${RESERVED_SEGMENT}/history/audit`, `/${RESERVED_SEGMENT}/x`, `a/../${RESERVED_SEGMENT}`]) {
    expect(await codeOf(guarded.stat(path))).toBe("FS_INVALID_PATH");
    expect(await codeOf(guarded.read(path))).toBe("FS_INVALID_PATH");
    expect(await codeOf(guarded.write(path, new Uint8Array(1), Cond.ifAbsent))).toBe("FS_INVALID_PATH");
    expect(await codeOf(guarded.list(path))).toBe("FS_INVALID_PATH");
    expect(await codeOf(guarded.delete(path))).toBe("FS_INVALID_PATH");
  }
  expect(calls).toEqual([]);

  const memory = createMemoryStorage();
  await memory.write(`${RESERVED_SEGMENT}/history/blobs/x`, new Uint8Array([1]));
  await memory.write("a.txt", new Uint8Array([2]));
  await memory.write(`${RESERVED_SEGMENT}-not/b.txt`, new Uint8Array([3]));
  const listed = await guardStorage(memory).list("", { recursive: true });
  expect(listed.entries.map((e) => e.path)).toEqual([`${RESERVED_SEGMENT}-not`, `${RESERVED_SEGMENT}-not/b.txt`, "a.txt"]);
});
