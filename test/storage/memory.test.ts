import { expect, test } from "bun:test";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { Cond } from "../../src/storage/types.ts";
import { storageConformance } from "../helpers/storage-conformance.ts";

storageConformance("memory", async () => ({ storage: createMemoryStorage() }));

const bytes = (s: string) => new TextEncoder().encode(s);

test("memory: rewriting identical bytes still mints a new version", async () => {
  const storage = createMemoryStorage();
  const first = await storage.write("f", bytes("same"));
  const second = await storage.write("f", bytes("same"));
  expect(second.version).not.toBe(first.version);
  expect(await storage.write("f", bytes("x"), Cond.ifVersion(first.version)).catch((e) => e.code)).toBe("FS_STALE_VERSION");
});

test("memory: a directory disappears with its last file, like an object store", async () => {
  const storage = createMemoryStorage();
  await storage.write("d/e/f", bytes("x"));
  await storage.delete("d/e/f");
  expect(await storage.stat("d")).toBeNull();
  expect(await storage.list("")).toEqual({ entries: [], truncated: false });
});

test("memory: two instances never share versions", async () => {
  const a = await createMemoryStorage().write("f", bytes("x"));
  const b = await createMemoryStorage().write("f", bytes("x"));
  expect(a.version).not.toBe(b.version);
});
