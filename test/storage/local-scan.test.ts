/**
 * Local storage's reads for a search: `scanFile` (head verdict, lent bytes,
 * version on demand, the refusals `read` gives) and `list` without sizes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalStorage } from "../../src/storage/local/mod.ts";
import { fdsUnder } from "../helpers/fds.ts";
import type { ScanFileOptions, Storage } from "../../src/storage/types.ts";

const MiB = 1024 * 1024;
let base: string;
let storage: Storage;
const text = (n: number) => `${"line of text\n".repeat(n)}`;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), "tw-local-scan-"));
  const ws = join(base, "ws");
  mkdirSync(join(ws, "d/e"), { recursive: true });
  mkdirSync(join(base, "outside"));
  writeFileSync(join(base, "outside/secret.txt"), "secret\n");
  writeFileSync(join(ws, "a.txt"), "alpha\n");
  writeFileSync(join(ws, "b.txt"), "bravo bravo\n");
  writeFileSync(join(ws, "d/big.txt"), text(200_000));
  const bin = new Uint8Array(2 * MiB).fill(0x61);
  bin[10] = 0;
  writeFileSync(join(ws, "d/big.bin"), bin);
  writeFileSync(join(ws, "d/e/f.txt"), "f\n");
  symlinkSync("a.txt", join(ws, "link.txt"));
  symlinkSync("d", join(ws, "link-dir"));
  symlinkSync(join(base, "outside/secret.txt"), join(ws, "out.txt"));
  storage = await createLocalStorage(ws);
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A scan that records what it was handed (copies: the bytes are lent). */
function recorder(maxBytes = 64 * MiB) {
  const seen: { head?: Uint8Array; whole?: Uint8Array; version?: string } = {};
  const options: ScanFileOptions<string> = {
    maxBytes,
    headBytes: 8192,
    head: (bytes) => {
      seen.head = bytes.slice();
      return bytes.includes(0) ? "binary" : undefined;
    },
    whole: (bytes, version) => {
      seen.whole = bytes.slice();
      const v = version();
      if (typeof v === "string") seen.version = v;
      return "whole";
    },
  };
  return { seen, options };
}

const codeOf = async (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e: { code?: string }) => e.code,
  );

describe("local scanFile", () => {
  test("a small file: its whole bytes, and the version read gives", async () => {
    const { seen, options } = recorder();
    expect(await storage.scanFile!("b.txt", options)).toBe("whole");
    expect(new TextDecoder().decode(seen.whole)).toBe("bravo bravo\n");
    expect(seen.version).toBe((await storage.read("b.txt")).version);
  });

  test("scans started together each see their own file (the shared buffer is never shared in time)", async () => {
    const got = await Promise.all(
      ["a.txt", "b.txt", "d/e/f.txt", "link.txt"].map((path) =>
        storage.scanFile!(path, { maxBytes: MiB, headBytes: 8192, head: () => undefined, whole: (bytes) => new TextDecoder().decode(bytes) }),
      ),
    );
    expect(got).toEqual(["alpha\n", "bravo bravo\n", "f\n", "alpha\n"]);
  });

  test("a large file: the head first, then the whole, with its version", async () => {
    const { seen, options } = recorder();
    expect(await storage.scanFile!("d/big.txt", options)).toBe("whole");
    expect(seen.head?.length).toBe(8192);
    expect(seen.whole?.length).toBe(text(200_000).length);
    const { version } = await storage.read("d/big.txt");
    const lazy = await storage.scanFile!("d/big.txt", { ...options, whole: (_bytes, v) => v() });
    expect(await lazy).toBe(version);
  });

  test("large files scanned together: each its own bytes, and each version that of its bytes (the large buffer is lent to one at a time)", async () => {
    writeFileSync(join(base, "ws/d/big2.txt"), text(150_000).replaceAll("line", "LINE"));
    const scan = (path: string) =>
      storage.scanFile!(path, {
        maxBytes: 64 * MiB,
        headBytes: 8192,
        head: () => undefined,
        whole: (bytes, version) => ({ text: new TextDecoder().decode(bytes), version: version() }),
      });
    const [a, b] = await Promise.all([scan("d/big.txt"), scan("d/big2.txt")]);
    // A third scan reuses the buffer while the first versions may still be hashing.
    const c = await scan("d/big.txt");
    expect(a.text).toBe(text(200_000));
    expect(b.text).toBe(text(150_000).replaceAll("line", "LINE"));
    expect(c.text).toBe(a.text);
    expect(await a.version).toBe((await storage.read("d/big.txt")).version);
    expect(await b.version).toBe((await storage.read("d/big2.txt")).version);
    expect(await c.version).toBe(await a.version);
  });

  test("a large binary ends at its head: whole is never called", async () => {
    const { seen, options } = recorder();
    expect(await storage.scanFile!("d/big.bin", options)).toBe("binary");
    expect(seen.head?.length).toBe(8192);
    expect(seen.whole).toBeUndefined();
  });

  test("the refusals read gives, and FS_TOO_LARGE over maxBytes before reading", async () => {
    const { seen, options } = recorder(1000);
    expect(await codeOf(storage.scanFile!("d/big.txt", options))).toBe("FS_TOO_LARGE");
    expect(seen.head).toBeUndefined();
    expect(await codeOf(storage.scanFile!("missing.txt", recorder().options))).toBe("FS_NOT_FOUND");
    expect(await codeOf(storage.scanFile!("d", recorder().options))).toBe("FS_IS_DIRECTORY");
    expect(await codeOf(storage.scanFile!("out.txt", recorder().options))).toBe(await codeOf(storage.read("out.txt")));
    expect(await codeOf(storage.scanFile!("out.txt", recorder().options))).toBe("FS_ACCESS_DENIED");
  });
});

test("endScan lets go of every directory descriptor the scans and listings without sizes kept", async () => {
  const ws = join(base, "ws");
  storage.endScan!();
  const before = fdsUnder(ws);
  await storage.list("d", { sizes: false });
  await storage.scanFile!("d/e/f.txt", recorder().options);
  expect(fdsUnder(ws)).toBeGreaterThan(before);
  storage.endScan!();
  expect(fdsUnder(ws)).toBe(before);
});

describe("local list without sizes", () => {
  test("the same entries, kinds and flags as with sizes; a file's size is its own or -1", async () => {
    for (const options of [{}, { recursive: true }]) {
      const sized = (await storage.list("", options)).entries;
      const unsized = (await storage.list("", { ...options, sizes: false })).entries;
      expect(unsized.map((e) => ({ ...e, size: 0 }))).toEqual(sized.map((e) => ({ ...e, size: 0 })));
      for (let i = 0; i < sized.length; i++) {
        expect([sized[i]!.size, -1]).toContain(unsized[i]!.size);
        if (sized[i]!.kind === "directory") expect(unsized[i]!.size).toBe(0);
      }
      // The symlink to outside is left out either way; the inside ones are listed as symlinks.
      expect(unsized.some((e) => e.path === "out.txt")).toBe(false);
      expect(unsized.find((e) => e.path === "link-dir")).toMatchObject({ kind: "directory", symlink: true });
    }
  });
});

test("a directory renamed out of the root after a search reached it: what is shown from it is read again where it is, never from outside", async () => {
  const root = mkdtempSync(join(tmpdir(), "tw-local-moved-"));
  try {
    mkdirSync(join(root, "ws/p/d"), { recursive: true });
    mkdirSync(join(root, "out"));
    writeFileSync(join(root, "ws/p/d/f.txt"), "inside\n");
    writeFileSync(join(root, "out/secret.txt"), "SECRET-OUTSIDE\n");
    const local = await createLocalStorage(join(root, "ws"));
    const decoder = new TextDecoder();
    // A search asks for the version of what it shows (a match); this one shows everything.
    const shown: ScanFileOptions<string> = {
      maxBytes: MiB,
      headBytes: 64,
      head: () => undefined,
      whole: (bytes, version) => {
        version();
        return decoder.decode(bytes);
      },
    };
    expect(await local.scanFile!("p/d/f.txt", shown)).toBe("inside\n");
    // Another process moves the directory out (its descriptor is kept for the search) and an outside file into it.
    renameSync(join(root, "ws/p/d"), join(root, "out/moved"));
    renameSync(join(root, "out/secret.txt"), join(root, "out/moved/f.txt"));
    expect(await codeOf(local.scanFile!("p/d/f.txt", shown))).toBe("FS_NOT_FOUND");
    // Moved back inside under another name: the path asked for is gone, so it is not found either.
    renameSync(join(root, "out/moved"), join(root, "ws/p/e"));
    expect(await codeOf(local.scanFile!("p/d/f.txt", shown))).toBe("FS_NOT_FOUND");
    expect(await local.scanFile!("p/e/f.txt", shown)).toBe("SECRET-OUTSIDE\n");
    local.endScan!();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
