/** The state directory's storage: written once, read back as written, versions computed on demand. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import * as fs from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStateDirStorage, sha256Sync } from "../../src/history/state-dir.ts";
import { sha256Hex } from "../../src/history/store.ts";
import { Cond } from "../../src/storage/types.ts";

let base: string;
beforeEach(async () => {
  base = await fs.mkdtemp(join(tmpdir(), "tw-state-dir-"));
});
afterEach(() => fs.rm(base, { recursive: true, force: true }));

test("a write's version is the SHA-256 of the bytes written, and the bytes are on disk as given", async () => {
  const storage = createStateDirStorage(base);
  const bytes = new TextEncoder().encode("entry one\n");
  const written = await storage.write("blobs/abc", bytes, Cond.ifAbsent);
  expect(written.created).toBe(true);
  expect(written.version).toBe(createHash("sha256").update(bytes).digest("hex"));
  expect(await fs.readFile(join(base, "blobs", "abc"), "utf8")).toBe("entry one\n");
  expect((await storage.read("blobs/abc")).version).toBe(written.version);
  const again = await storage.write("blobs/abc", new TextEncoder().encode("other"), Cond.ifAbsent).catch((e) => e);
  expect(again.code).toBe("FS_ALREADY_EXISTS");
  expect(await fs.readFile(join(base, "blobs", "abc"), "utf8")).toBe("entry one\n");
});

test("its blocking SHA-256 names blobs exactly as the store's Web Crypto default does", async () => {
  for (const text of ["", "a", "é\n", "x".repeat(100_000)]) {
    const bytes = new TextEncoder().encode(text);
    expect(sha256Sync(bytes)).toBe(await sha256Hex(bytes));
  }
});
