/**
 * The optional `readStream` of the storage contract: local and memory
 * providers deliver exactly the bytes `read` gives, with the version of those
 * bytes, refuse what `read` refuses before delivering anything, and pass
 * through `guardStorage` with path normalisation.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import * as fs from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { guardStorage } from "../../src/storage/guard.ts";
import { createLocalStorage } from "../../src/storage/local.ts";
import { handleStream } from "../../src/storage/local-stream.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import type { ReadStreamResult, Storage } from "../../src/storage/types.ts";

const encoder = new TextEncoder();

async function drain(opened: ReadStreamResult): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const chunk of opened.stream) parts.push(chunk);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
  return "resolved";
}

const PROVIDERS: [string, () => Promise<{ storage: Storage; cleanup: () => Promise<void> }>][] = [
  ["memory", async () => ({ storage: createMemoryStorage({ streamChunkBytes: 4099 }), cleanup: async () => {} })],
  [
    "local",
    async () => {
      const base = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "tw-stream-")));
      return { storage: await createLocalStorage(base), cleanup: () => fs.rm(base, { recursive: true, force: true }) };
    },
  ],
];

for (const [name, make] of PROVIDERS) {
  describe(`readStream (${name})`, () => {
    let storage: Storage;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ storage, cleanup } = await make());
      storage = guardStorage(storage);
    });
    afterEach(() => cleanup());

    test("delivers the bytes read() gives, with the same version and the size", async () => {
      const bytes = encoder.encode("héllo\r\nworld\n".repeat(50_000));
      await storage.write("dir/a.txt", bytes);
      const opened = await storage.readStream!("dir/a.txt");
      expect(opened.size).toBe(bytes.length);
      expect(await drain(opened)).toEqual(bytes);
      expect(await opened.version).toBe((await storage.read("dir/a.txt")).version);
    });

    test("an empty file is an empty stream", async () => {
      await storage.write("e.txt", new Uint8Array());
      const opened = await storage.readStream!("e.txt");
      expect((await drain(opened)).length).toBe(0);
      expect(await opened.version).toBe((await storage.read("e.txt")).version);
    });

    test("refuses like read(): missing, a directory, a path that escapes", async () => {
      await storage.write("dir/a.txt", encoder.encode("x"));
      expect(await codeOf(storage.readStream!("nope.txt"))).toBe("FS_NOT_FOUND");
      expect(await codeOf(storage.readStream!("dir"))).toBe("FS_IS_DIRECTORY");
      expect(await codeOf(storage.readStream!("../etc/passwd"))).toBe("FS_INVALID_PATH");
    });

    test("paths are normalised by the guard", async () => {
      await storage.write("dir/a.txt", encoder.encode("abc"));
      const opened = await storage.readStream!("./dir//a.txt");
      expect(new TextDecoder().decode(await drain(opened))).toBe("abc");
    });

    // Local storage hashes a large file as it streams, so a cancelled stream never learns its version;
    // a small file (up to 1 MiB) is read whole at open, and memory knows every version at once.
    test("a cancelled stream's version rejects with FS_IO_ERROR when it was being hashed as it streamed", async () => {
      await storage.write("a.txt", encoder.encode("y".repeat(3_000_000)));
      const opened = await storage.readStream!("a.txt");
      const reader = opened.stream.getReader();
      await reader.read();
      await reader.cancel();
      const code = await codeOf(opened.version);
      expect(code).toBe(name === "local" ? "FS_IO_ERROR" : "resolved");
    });

    test("a small file's stream knows its version at once, equal to read's, even when cancelled", async () => {
      await storage.write("s.txt", encoder.encode("z\n".repeat(1000)));
      const { version } = await storage.read("s.txt");
      const opened = await storage.readStream!("s.txt");
      await opened.stream.cancel();
      expect(await opened.version).toBe(version);
    });

    test("a writer's change after opening does not change what the stream delivers", async () => {
      await storage.write("a.txt", encoder.encode("old\n".repeat(100_000)));
      const before = await storage.read("a.txt");
      const opened = await storage.readStream!("a.txt");
      await storage.write("a.txt", encoder.encode("new\n"));
      expect(await drain(opened)).toEqual(before.bytes);
      expect(await opened.version).toBe(before.version);
    });
  });
}

describe("guardStorage and providers without readStream", () => {
  test("the guard adds no readStream the provider does not have", () => {
    const { readStream: _hidden, ...rest } = createMemoryStorage();
    expect(guardStorage(rest as Storage).readStream).toBeUndefined();
    expect(typeof guardStorage(createMemoryStorage()).readStream).toBe("function");
  });
});

describe("local stream chunks", () => {
  test("a file read in small chunks hashes to the content version", async () => {
    const base = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "tw-stream-")));
    try {
      const storage = await createLocalStorage(base);
      await storage.write("a.txt", encoder.encode("0123456789".repeat(1000)));
      const handle = await fs.open(join(base, "a.txt"));
      const opened = handleStream(handle, "a.txt", 10_000, 7);
      const bytes = await drain(opened);
      expect(bytes.length).toBe(10_000);
      expect(await opened.version).toBe((await storage.read("a.txt")).version);
    } finally {
      await fs.rm(base, { recursive: true, force: true });
    }
  });
});
