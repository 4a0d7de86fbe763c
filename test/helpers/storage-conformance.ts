/**
 * The storage conformance suite: every provider (memory, local, R2, S3) must
 * pass it unchanged. Providers are exercised through `guardStorage`, the way
 * the application uses them. Concurrency counts are parameters so that a slow
 * remote backend can run a lighter load.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { FileTooLargeError, isFsError } from "../../src/storage/errors.ts";
import { guardStorage } from "../../src/storage/guard.ts";
import { Cond, type Storage } from "../../src/storage/types.ts";

/** Load knobs for the concurrency tests (defaults in brackets). */
export interface ConformanceOptions {
  /** Concurrent compare-and-swap writers per round [50]. */
  readonly casWriters?: number;
  /** Rounds of the one-winner-per-round test [5]. */
  readonly casRounds?: number;
  /** Workers incrementing the shared counter [50]. */
  readonly counterWorkers?: number;
  /** Increments each counter worker makes [2]. */
  readonly incrementsPerWorker?: number;
  /** Concurrent create-if-absent callers [20]. */
  readonly creators?: number;
  /** Per-test timeout in ms for the concurrency tests [20000]. */
  readonly timeoutMs?: number;
  /** The provider offers the optional `readStream` [true]; its cases run only when it does. */
  readonly readStream?: boolean;
}

/** A provider under test plus how to dispose of it. */
export interface MadeStorage {
  readonly storage: Storage;
  readonly cleanup?: () => Promise<void>;
}

/**
 * Hostile paths that must be refused (FS_INVALID_PATH) before any provider
 * is called, whatever the provider.
 */
export const HOSTILE_PATHS: readonly string[] = [
  "..",
  "../",
  "../etc/passwd",
  "../../../../../../../../etc/passwd",
  "/..",
  "/../etc/passwd",
  "//../x",
  "./../x",
  "a/../..",
  "a/../../b",
  "a/b/../../../c",
  "a/./../../x",
  "a/../../a/b",
  "..\\x",
  "a\\..\\..\\x",
  "\\\\server\\share\\x",
  "C:\\Windows\\win.ini",
  "C:/Windows/win.ini",
  "c:",
  "a\u0000b",
  "\u0000",
  "a/b\u0000/../../../../etc/passwd",
  "a\nb",
  "a\rb",
  "a\tb",
  "\u001b[31mred",
  "a\u007fb",
  "\ud800",
  "a/\udc00b",
  "x".repeat(256),
  "é".repeat(128),
  "a/".repeat(2049),
];

/**
 * Inputs that look hostile but are ordinary names inside the workspace,
 * with the path each must land on.
 */
export const LOOKALIKE_PATHS: ReadonlyArray<readonly [input: string, landsOn: string]> = [
  ["\u2024\u2024/x", "\u2024\u2024/x"], // ONE DOT LEADER twice
  ["\uff0e\uff0e/x", "\uff0e\uff0e/x"], // fullwidth full stops
  ["a\u2215..\u2215..\u2215x", "a\u2215..\u2215..\u2215x"], // DIVISION SLASH is not a separator
  ["%2e%2e/%2e%2e/x", "%2e%2e/%2e%2e/x"], // percent-encoding is not decoded
  ["..%2f..%2fx", "..%2f..%2fx"],
  [".../x", ".../x"],
  ["..a/x", "..a/x"],
  ["a/.../../../x", "x"],
  ["/etc/passwd", "etc/passwd"], // a leading "/" is the workspace root
  ["file:///etc/passwd", "file:/etc/passwd"],
  ["a//b/./c/", "a/b/c"],
];

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const text = (s: string) => encoder.encode(s);

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (!isFsError(error)) throw error;
    return error.code;
  }
  return "resolved";
}

function randomBytes(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  // getRandomValues fills at most 64 KiB per call.
  for (let i = 0; i < length; i += 65536) crypto.getRandomValues(bytes.subarray(i, Math.min(length, i + 65536)));
  return bytes;
}

/** A stream read to its end: the bytes, and how they came. */
async function drainStream(stream: ReadableStream<Uint8Array>): Promise<{ bytes: Uint8Array; chunks: number; emptyChunks: number }> {
  const parts: Uint8Array[] = [];
  let emptyChunks = 0;
  for await (const chunk of stream) {
    if (chunk.byteLength === 0) emptyChunks++;
    // Copied: a chunk may be a view of a buffer the stream reuses.
    parts.push(chunk.slice());
  }
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return { bytes, chunks: parts.length, emptyChunks };
}

/** Define the shared `describe` block for one provider. */
export function storageConformance(name: string, make: () => Promise<MadeStorage>, options: ConformanceOptions = {}): void {
  const casWriters = options.casWriters ?? 50;
  const casRounds = options.casRounds ?? 5;
  const counterWorkers = options.counterWorkers ?? 50;
  const incrementsPerWorker = options.incrementsPerWorker ?? 2;
  const creators = options.creators ?? 20;
  const timeout = options.timeoutMs ?? 20_000;
  const offersStream = options.readStream ?? true;

  describe(`storage conformance: ${name}`, () => {
    let storage: Storage;
    let cleanup: (() => Promise<void>) | undefined;

    beforeEach(async () => {
      const made = await make();
      storage = guardStorage(made.storage);
      cleanup = made.cleanup;
    });
    afterEach(async () => {
      await cleanup?.();
    });

    describe("round trips", () => {
      const cases: Array<[string, () => Uint8Array]> = [
        ["empty", () => new Uint8Array(0)],
        ["text", () => text("héllo 世界 🚀\r\nline two\n")],
        ["every byte value", () => Uint8Array.from({ length: 512 }, (_, i) => i % 256)],
        ["1 MiB of random bytes", () => randomBytes(1 << 20)],
      ];
      for (const [label, bytesOf] of cases) {
        test(label, async () => {
          const bytes = bytesOf();
          const written = await storage.write("dir/file.bin", bytes);
          const read = await storage.read("dir/file.bin");
          expect(read.bytes).toEqual(bytes);
          expect(read.version).toBe(written.version);
          const stat = await storage.stat("dir/file.bin");
          expect(stat).toMatchObject({ path: "dir/file.bin", kind: "file", size: bytes.length, version: written.version });
        });
      }

      test("bytes are copied in and out", async () => {
        const bytes = text("original");
        await storage.write("f", bytes);
        bytes.fill(0);
        const first = await storage.read("f");
        first.bytes.fill(0);
        expect(decoder.decode((await storage.read("f")).bytes)).toBe("original");
      });

      test("created is true only for a new path", async () => {
        expect((await storage.write("f", text("1"))).created).toBe(true);
        expect((await storage.write("f", text("2"))).created).toBe(false);
      });

      test("parent directories are created as needed", async () => {
        await storage.write("a/b/c/d.txt", text("x"));
        expect(await storage.stat("a/b")).toMatchObject({ kind: "directory", size: 0 });
        expect(await storage.stat("")).toMatchObject({ kind: "directory" });
      });

      test("a leading slash means the workspace root", async () => {
        await storage.write("/x/y.txt", text("rooted"));
        expect(decoder.decode((await storage.read("x/y.txt")).bytes)).toBe("rooted");
      });
    });

    describe("versions", () => {
      test("change on every write of different content, even of the same size in quick succession", async () => {
        const versions = new Set<string>();
        for (let i = 0; i < 20; i++) {
          versions.add((await storage.write("f", text(`v${String(i).padStart(2, "0")}`))).version);
        }
        expect(versions.size).toBe(20);
      });

      test("stay equal while nothing changes", async () => {
        const { version } = await storage.write("f", text("same"));
        expect((await storage.stat("f"))?.version).toBe(version);
        expect((await storage.stat("f"))?.version).toBe(version);
        expect((await storage.read("f")).version).toBe(version);
      });

      test("a stale ifVersion is refused and nothing is written", async () => {
        const first = await storage.write("f", text("one"));
        const second = await storage.write("f", text("two"));
        expect(await codeOf(storage.write("f", text("three"), Cond.ifVersion(first.version)))).toBe("FS_STALE_VERSION");
        const now = await storage.read("f");
        expect(decoder.decode(now.bytes)).toBe("two");
        expect(now.version).toBe(second.version);
      });

      test("a current ifVersion succeeds", async () => {
        const first = await storage.write("f", text("one"));
        const second = await storage.write("f", text("two"), Cond.ifVersion(first.version));
        expect(second.created).toBe(false);
        expect((await storage.read("f")).version).toBe(second.version);
      });

      test("ifVersion on a missing file is stale and creates nothing", async () => {
        expect(await codeOf(storage.write("f", text("x"), Cond.ifVersion("some-version")))).toBe("FS_STALE_VERSION");
        expect(await storage.stat("f")).toBeNull();
      });

      test("ifAbsent on an existing path is refused and nothing is written", async () => {
        await storage.write("f", text("first"));
        expect(await codeOf(storage.write("f", text("second"), Cond.ifAbsent))).toBe("FS_ALREADY_EXISTS");
        expect(decoder.decode((await storage.read("f")).bytes)).toBe("first");
      });

      test("ifAbsent on a missing path creates it", async () => {
        const result = await storage.write("new/f", text("x"), Cond.ifAbsent);
        expect(result.created).toBe(true);
        expect((await storage.read("new/f")).version).toBe(result.version);
      });
    });

    describe("readStream", () => {
      test(`is ${offersStream ? "offered" : "not offered"}`, () => {
        expect(typeof storage.readStream).toBe(offersStream ? "function" : "undefined");
      });

      const cases: Array<[string, () => Uint8Array]> = [
        ["empty", () => new Uint8Array(0)],
        ["text", () => text("héllo 世界 🚀\r\nline two\n")],
        ["every byte value", () => Uint8Array.from({ length: 512 }, (_, i) => i % 256)],
        ["1 MiB of random bytes", () => randomBytes(1 << 20)],
      ];
      for (const [label, bytesOf] of cases) {
        test(`delivers the bytes, size and version read gives: ${label}`, async () => {
          if (!storage.readStream) return;
          const bytes = bytesOf();
          const written = await storage.write("dir/file.bin", bytes);
          const opened = await storage.readStream("dir/file.bin");
          expect(opened.size).toBe(bytes.length);
          const drained = await drainStream(opened.stream);
          expect(drained.bytes).toEqual(bytes);
          expect(drained.emptyChunks).toBe(0);
          const version = await opened.version;
          expect(version).toBe(written.version);
          expect(version).toBe((await storage.read("dir/file.bin")).version);
        });
      }

      test(
        "a large object (6 MiB) arrives in more than one chunk",
        async () => {
          if (!storage.readStream) return;
          const bytes = randomBytes(6 << 20);
          const { version } = await storage.write("big.bin", bytes);
          const opened = await storage.readStream("big.bin");
          const drained = await drainStream(opened.stream);
          expect(drained.chunks).toBeGreaterThan(1);
          expect(drained.emptyChunks).toBe(0);
          expect(drained.bytes.length).toBe(bytes.length);
          expect(drained.bytes).toEqual(bytes);
          expect(await opened.version).toBe(version);
        },
        timeout,
      );

      test("refuses what read refuses, before delivering anything", async () => {
        if (!storage.readStream) return;
        const readStream = storage.readStream.bind(storage);
        await storage.write("file.txt", text("f"));
        await storage.write("dir/inner.txt", text("i"));
        const codes = {
          missing: await codeOf(readStream("missing.txt")),
          underMissing: await codeOf(readStream("nope/missing.txt")),
          directory: await codeOf(readStream("dir")),
          root: await codeOf(readStream("")),
          belowFile: await codeOf(readStream("file.txt/x")),
          escaping: await codeOf(readStream("../etc/passwd")),
        };
        expect(codes).toEqual({
          missing: "FS_NOT_FOUND",
          underMissing: "FS_NOT_FOUND",
          directory: "FS_IS_DIRECTORY",
          root: "FS_IS_DIRECTORY",
          belowFile: "FS_NOT_DIRECTORY",
          escaping: "FS_INVALID_PATH",
        });
        const error = await readStream("missing.txt").catch((e: unknown) => e);
        expect((error as { path?: string }).path).toBe("missing.txt");
      });

      test(
        "a stream cancelled mid-way releases the file: it can be rewritten, read and streamed again",
        async () => {
          if (!storage.readStream) return;
          const bytes = randomBytes(4 << 20);
          const { version } = await storage.write("f.bin", bytes);
          // Several abandoned streams: one cancelled unread, the others after a chunk.
          for (let i = 0; i < 4; i++) {
            const opened = await storage.readStream("f.bin");
            const reader = opened.stream.getReader();
            if (i > 0) expect((await reader.read()).done).toBe(false);
            await reader.cancel();
          }
          expect((await storage.read("f.bin")).version).toBe(version);
          const next = await storage.write("f.bin", text("after"), Cond.ifVersion(version));
          const read = await storage.read("f.bin");
          expect(decoder.decode(read.bytes)).toBe("after");
          expect(read.version).toBe(next.version);
          const again = await storage.readStream("f.bin");
          expect(decoder.decode((await drainStream(again.stream)).bytes)).toBe("after");
          expect(await again.version).toBe(next.version);
          await storage.delete("f.bin", { ifVersion: next.version });
          expect(await storage.stat("f.bin")).toBeNull();
        },
        timeout,
      );
    });

    describe("read with maxBytes", () => {
      test(
        "a file over the limit is FS_TOO_LARGE with its size and the limit, and nothing changes",
        async () => {
          const bytes = randomBytes(3 << 20);
          const { version } = await storage.write("d/big.bin", bytes);
          const before = await storage.list("", { recursive: true });
          const error = await storage.read("d/big.bin", { maxBytes: 1 << 20 }).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(FileTooLargeError);
          expect(error).toMatchObject({ code: "FS_TOO_LARGE", path: "d/big.bin", size: bytes.length, limit: 1 << 20 });
          expect(await storage.list("", { recursive: true })).toEqual(before);
          expect(await storage.stat("d/big.bin")).toMatchObject({ kind: "file", size: bytes.length, version });
          const read = await storage.read("d/big.bin");
          expect(read.version).toBe(version);
          expect(read.bytes).toEqual(bytes);
          // Nothing was left holding the file: a compare-and-swap on it goes through.
          await storage.write("d/big.bin", text("small"), Cond.ifVersion(version));
          expect(decoder.decode((await storage.read("d/big.bin", { maxBytes: 5 })).bytes)).toBe("small");
        },
        timeout,
      );

      test("one byte over is refused; at the limit and under it the file is read", async () => {
        const { version } = await storage.write("f", text("abcd"));
        expect(await storage.read("f", { maxBytes: 3 }).catch((e: unknown) => e)).toMatchObject({ code: "FS_TOO_LARGE", size: 4, limit: 3 });
        for (const maxBytes of [4, 5, 1 << 30]) {
          const read = await storage.read("f", { maxBytes });
          expect(decoder.decode(read.bytes)).toBe("abcd");
          expect(read.version).toBe(version);
        }
        await storage.write("empty", new Uint8Array(0));
        expect((await storage.read("empty", { maxBytes: 0 })).bytes.length).toBe(0);
      });

      test("missing paths and directories keep their own refusals", async () => {
        await storage.write("dir/inner.txt", text("i"));
        expect(await codeOf(storage.read("missing.txt", { maxBytes: 0 }))).toBe("FS_NOT_FOUND");
        expect(await codeOf(storage.read("dir", { maxBytes: 0 }))).toBe("FS_IS_DIRECTORY");
        expect(await codeOf(storage.read("dir/inner.txt/x", { maxBytes: 0 }))).toBe("FS_NOT_DIRECTORY");
      });
    });

    describe("concurrency", () => {
      test(
        `${casWriters} concurrent compare-and-swap writers: exactly one winner per round`,
        async () => {
          await storage.write("cas", text("start"));
          for (let round = 0; round < casRounds; round++) {
            const { version } = await storage.read("cas");
            const attempts = Array.from({ length: casWriters }, (_, i) => storage.write("cas", text(`round ${round} writer ${i}`), Cond.ifVersion(version)));
            const settled = await Promise.allSettled(attempts);
            const winners = settled.flatMap((s, i) => (s.status === "fulfilled" ? [{ i, version: s.value.version }] : []));
            expect(winners.length).toBe(1);
            for (const s of settled) {
              if (s.status === "rejected") expect((s.reason as { code?: string }).code).toBe("FS_STALE_VERSION");
            }
            const now = await storage.read("cas");
            expect(decoder.decode(now.bytes)).toBe(`round ${round} writer ${winners[0].i}`);
            expect(now.version).toBe(winners[0].version);
          }
        },
        timeout,
      );

      test(
        `a counter incremented by ${counterWorkers} workers with retries loses no update`,
        async () => {
          await storage.write("counter", text("0"));
          const increment = async () => {
            for (;;) {
              const { bytes, version } = await storage.read("counter");
              const next = Number(decoder.decode(bytes)) + 1;
              try {
                await storage.write("counter", text(String(next)), Cond.ifVersion(version));
                return;
              } catch (error) {
                if ((error as { code?: string }).code !== "FS_STALE_VERSION") throw error;
              }
            }
          };
          const worker = async () => {
            for (let i = 0; i < incrementsPerWorker; i++) await increment();
          };
          await Promise.all(Array.from({ length: counterWorkers }, worker));
          expect(decoder.decode((await storage.read("counter")).bytes)).toBe(String(counterWorkers * incrementsPerWorker));
        },
        timeout,
      );

      test(
        `${creators} concurrent creators: exactly one succeeds`,
        async () => {
          const settled = await Promise.allSettled(Array.from({ length: creators }, (_, i) => storage.write("made/once", text(`creator ${i}`), Cond.ifAbsent)));
          const winners = settled.flatMap((s, i) => (s.status === "fulfilled" ? [i] : []));
          expect(winners.length).toBe(1);
          for (const s of settled) {
            if (s.status === "rejected") expect((s.reason as { code?: string }).code).toBe("FS_ALREADY_EXISTS");
          }
          expect(decoder.decode((await storage.read("made/once")).bytes)).toBe(`creator ${winners[0]}`);
        },
        timeout,
      );
    });

    describe("list", () => {
      // Chosen so that code-unit order differs from depth-first order and from locale order.
      const files = ["b", "B", "a-b", "a.txt", "a/x", "a/y/z", "é", "Z", "a0"];

      beforeEach(async () => {
        for (const path of [...files].reverse()) await storage.write(path, text(path));
      });

      test("is sorted by path in code-unit order and stable", async () => {
        const first = await storage.list("", { recursive: true });
        const paths = first.entries.map((e) => e.path);
        expect(paths).toEqual(["B", "Z", "a", "a-b", "a.txt", "a/x", "a/y", "a/y/z", "a0", "b", "é"]);
        expect(await storage.list("", { recursive: true })).toEqual(first);
      });

      test("without recursive lists direct children, directories included", async () => {
        const { entries, truncated } = await storage.list("a");
        expect(truncated).toBe(false);
        expect(entries).toEqual([
          { path: "a/x", name: "x", kind: "file", size: 3 },
          { path: "a/y", name: "y", kind: "directory", size: 0 },
        ]);
      });

      test("depth bounds a recursive walk", async () => {
        const one = await storage.list("", { recursive: true, depth: 1 });
        expect(one.entries.map((e) => e.path)).toEqual(["B", "Z", "a", "a-b", "a.txt", "a0", "b", "é"]);
        const two = await storage.list("", { recursive: true, depth: 2 });
        expect(two.entries.map((e) => e.path)).toEqual(["B", "Z", "a", "a-b", "a.txt", "a/x", "a/y", "a0", "b", "é"]);
      });

      test("limit cuts the sorted listing and reports truncated", async () => {
        const cut = await storage.list("", { recursive: true, limit: 4 });
        expect(cut.entries.map((e) => e.path)).toEqual(["B", "Z", "a", "a-b"]);
        expect(cut.truncated).toBe(true);
        const exact = await storage.list("", { recursive: true, limit: 11 });
        expect(exact.entries.length).toBe(11);
        expect(exact.truncated).toBe(false);
        const none = await storage.list("a", { limit: 0 });
        expect(none).toEqual({ entries: [], truncated: true });
      });

      test("entries of a subdirectory carry workspace-relative paths", async () => {
        const { entries } = await storage.list("/a/y/");
        expect(entries).toEqual([{ path: "a/y/z", name: "z", kind: "file", size: 5 }]);
      });

      test("bad limit or depth is an invalid argument", async () => {
        await expect(storage.list("", { limit: -1 })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
        await expect(storage.list("", { recursive: true, depth: 0 })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
      });
    });

    test("an empty workspace lists nothing", async () => {
      expect(await storage.list("", { recursive: true })).toEqual({ entries: [], truncated: false });
    });

    describe("error codes", () => {
      beforeEach(async () => {
        await storage.write("file.txt", text("f"));
        await storage.write("dir/inner.txt", text("i"));
      });

      const cases: Array<[string, (s: Storage) => Promise<unknown>, string]> = [
        ["read of a missing file", (s) => s.read("missing.txt"), "FS_NOT_FOUND"],
        ["read under a missing directory", (s) => s.read("nope/missing.txt"), "FS_NOT_FOUND"],
        ["read of a directory", (s) => s.read("dir"), "FS_IS_DIRECTORY"],
        ["read of the root", (s) => s.read(""), "FS_IS_DIRECTORY"],
        ["read below a file", (s) => s.read("file.txt/x"), "FS_NOT_DIRECTORY"],
        ["write over a directory", (s) => s.write("dir", text("x")), "FS_IS_DIRECTORY"],
        ["write to the root", (s) => s.write("/", text("x")), "FS_IS_DIRECTORY"],
        ["write below a file", (s) => s.write("file.txt/x", text("x")), "FS_NOT_DIRECTORY"],
        ["write deep below a file", (s) => s.write("file.txt/x/y", text("x")), "FS_NOT_DIRECTORY"],
        ["list of a file", (s) => s.list("file.txt"), "FS_NOT_DIRECTORY"],
        ["list of a missing path", (s) => s.list("missing"), "FS_NOT_FOUND"],
        ["delete of a missing file", (s) => s.delete("missing.txt"), "FS_NOT_FOUND"],
        ["delete of a directory", (s) => s.delete("dir"), "FS_IS_DIRECTORY"],
        ["delete of a missing file with ifVersion", (s) => s.delete("missing.txt", { ifVersion: "v" }), "FS_STALE_VERSION"],
      ];
      for (const [label, run, code] of cases) {
        test(`${label}: ${code}`, async () => {
          expect(await codeOf(run(storage))).toBe(code);
        });
      }

      test("failures are FsErrors naming the path", async () => {
        const error = await storage.read("missing.txt").catch((e: unknown) => e);
        expect(isFsError(error)).toBe(true);
        expect((error as { path?: string }).path).toBe("missing.txt");
      });

      test("stat of a missing path, or of a path below a file, is null", async () => {
        expect(await storage.stat("missing.txt")).toBeNull();
        expect(await storage.stat("file.txt/x")).toBeNull();
      });

      test("stat of a directory", async () => {
        expect(await storage.stat("dir")).toMatchObject({ path: "dir", kind: "directory", size: 0 });
      });

      test("failed writes leave everything as it was", async () => {
        const before = await storage.list("", { recursive: true });
        await codeOf(storage.write("dir", text("x")));
        await codeOf(storage.write("file.txt/x", text("x")));
        expect(await storage.list("", { recursive: true })).toEqual(before);
      });
    });

    describe("delete", () => {
      test("removes a file", async () => {
        await storage.write("d/f", text("x"));
        await storage.delete("d/f");
        expect(await storage.stat("d/f")).toBeNull();
      });

      test("with a stale version is refused and the file stays", async () => {
        const first = await storage.write("f", text("one"));
        await storage.write("f", text("two"));
        expect(await codeOf(storage.delete("f", { ifVersion: first.version }))).toBe("FS_STALE_VERSION");
        expect(decoder.decode((await storage.read("f")).bytes)).toBe("two");
      });

      test("with the current version succeeds", async () => {
        const { version } = await storage.write("f", text("one"));
        await storage.delete("f", { ifVersion: version });
        expect(await storage.stat("f")).toBeNull();
      });
    });

    describe("containment", () => {
      test(`${HOSTILE_PATHS.length} hostile paths are refused by every operation and nothing is written`, async () => {
        for (const path of HOSTILE_PATHS) {
          const label = JSON.stringify(path.length > 40 ? `${path.slice(0, 40)}...` : path);
          const codes = [
            await codeOf(storage.stat(path)),
            await codeOf(storage.read(path)),
            await codeOf(storage.write(path, text("pwned"))),
            await codeOf(storage.write(path, text("pwned"), Cond.ifAbsent)),
            await codeOf(storage.list(path)),
            await codeOf(storage.delete(path)),
            ...(storage.readStream ? [await codeOf(storage.readStream(path))] : []),
          ];
          expect({ path: label, codes }).toEqual({ path: label, codes: Array(codes.length).fill("FS_INVALID_PATH") });
        }
        expect(await storage.list("", { recursive: true })).toEqual({ entries: [], truncated: false });
      });

      test("look-alike and encoded names are ordinary names that stay inside", async () => {
        for (const [input, landsOn] of LOOKALIKE_PATHS) {
          await storage.write(input, text(input));
          expect(decoder.decode((await storage.read(landsOn)).bytes)).toBe(input);
        }
        const files = (await storage.list("", { recursive: true })).entries.filter((e) => e.kind === "file");
        expect(files.map((e) => e.path).sort()).toEqual(LOOKALIKE_PATHS.map(([, landsOn]) => landsOn).sort());
      });
    });
  });
}
