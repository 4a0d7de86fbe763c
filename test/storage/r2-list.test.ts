/**
 * R2 listings over a fake bucket with R2's list semantics: the same answers
 * as the memory provider for any tree, page size and limit, and paging that
 * stops as soon as a limited listing is settled instead of walking the whole
 * prefix.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { guardStorage } from "../../src/storage/guard.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { pathFloor } from "../../src/storage/r2/list.ts";
import { createR2Storage } from "../../src/storage/r2/mod.ts";
import { createFakeR2 } from "../helpers/worker-fake-r2.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

describe("pathFloor", () => {
  test("cuts before the first character that sorts below '/', after the first", () => {
    expect(pathFloor("abc")).toBe("abc");
    expect(pathFloor("a-b/c")).toBe("a");
    expect(pathFloor("ab.c")).toBe("ab");
    expect(pathFloor("a/b-c")).toBe("a/b");
    expect(pathFloor("-a")).toBe("-a");
    expect(pathFloor("dir/")).toBe("dir/");
  });
});

// Characters chosen to hit every ordering hazard: below "/" ("-", "."), "/" itself via nesting,
// a letter, a non-ASCII BMP letter, one above U+E000 and one astral (code-unit vs code-point order).
const segment = fc.array(fc.constantFrom("a", "b", "-", ".", "é", "\uff01", "\ud83d\ude80"), { minLength: 1, maxLength: 3 }).map((cs) => cs.join(""));
const filePath = fc.array(segment, { minLength: 1, maxLength: 3 }).map((ss) => ss.join("/"));

/** Drop files that would also be a directory of another file (no store may hold both). */
function consistentTree(paths: string[]): string[] {
  const unique = [...new Set(paths)].filter((p) => !p.split("/").includes(".") && !p.split("/").includes(".."));
  return unique.filter((p) => !unique.some((q) => q.startsWith(`${p}/`)));
}

describe("R2 listings agree with the memory provider", () => {
  test("for any tree, options, page size and limit", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(filePath, { minLength: 0, maxLength: 25 }),
        fc.record({
          recursive: fc.boolean(),
          depth: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
          limit: fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }),
        }),
        fc.integer({ min: 1, max: 4 }),
        async (paths, options, pageSize) => {
          const files = consistentTree(paths);
          const memory = guardStorage(createMemoryStorage());
          const r2 = guardStorage(createR2Storage(createFakeR2(), "ws", { pageSize }));
          for (const path of files) {
            await memory.write(path, bytes(path));
            await r2.write(path, bytes(path));
          }
          const listOptions = {
            recursive: options.recursive,
            ...(options.depth ? { depth: options.depth } : {}),
            ...(options.limit === undefined ? {} : { limit: options.limit }),
          };
          const dirs = [
            "",
            ...new Set(
              files.flatMap((f) =>
                f
                  .split("/")
                  .slice(0, -1)
                  .map((_, i, s) => s.slice(0, i + 1).join("/")),
              ),
            ),
          ];
          for (const dir of dirs) {
            expect(await r2.list(dir, listOptions)).toEqual(await memory.list(dir, listOptions));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("paging", () => {
  test("a limited listing of a large directory stops after the first page that settles it", async () => {
    const bucket = createFakeR2();
    for (let i = 0; i < 1000; i++) bucket.seed(`ws/big/f${String(i).padStart(4, "0")}`);
    const storage = createR2Storage(bucket, "ws", { pageSize: 10 });
    const listed = await storage.list("big", { limit: 5 });
    expect(listed.entries.map((e) => e.name)).toEqual(["f0000", "f0001", "f0002", "f0003", "f0004"]);
    expect(listed.truncated).toBe(true);
    expect(bucket.listCalls.length).toBe(1);
  });

  test("keeps paging while a directory whose key sorts later can still sort first", async () => {
    // Key order: "a-000".."a-099", then "a/x"; path order puts directory "a" before all of them.
    const bucket = createFakeR2();
    for (let i = 0; i < 100; i++) bucket.seed(`ws/a-${String(i).padStart(3, "0")}`);
    bucket.seed("ws/a/x");
    const storage = createR2Storage(bucket, "ws", { pageSize: 10 });
    for (const options of [{ limit: 1 }, { limit: 1, recursive: true }]) {
      bucket.listCalls.length = 0;
      const listed = await storage.list("", options);
      expect(listed).toEqual({ entries: [{ path: "a", name: "a", kind: "directory", size: 0 }], truncated: true });
      expect(bucket.listCalls.length).toBeGreaterThan(10);
    }
  });

  test("an astral name that R2 lists last but code-unit order puts first is not cut off", async () => {
    // R2 (code point order): "\uff01", "\uff01z", "\u{1f680}"; code-unit order puts "\u{1f680}" (a surrogate pair) first.
    const bucket = createFakeR2();
    for (const name of ["\uff01", "\uff01z", "\u{1f680}"]) bucket.seed(`ws/${name}`);
    const listed = await createR2Storage(bucket, "ws", { pageSize: 1 }).list("", { limit: 1 });
    expect(listed.entries.map((e) => e.path)).toEqual(["\u{1f680}"]);
    expect(listed.truncated).toBe(true);
  });

  test("limit 0 reads one page to tell an empty directory from a missing one", async () => {
    const bucket = createFakeR2();
    for (let i = 0; i < 50; i++) bucket.seed(`ws/d/f${i}`);
    const storage = createR2Storage(bucket, "ws", { pageSize: 10 });
    expect(await storage.list("d", { limit: 0 })).toEqual({ entries: [], truncated: true });
    expect(bucket.listCalls.length).toBe(1);
    await expect(storage.list("missing", { limit: 0 })).rejects.toMatchObject({ code: "FS_NOT_FOUND" });
  });

  test("directory markers (keys ending in '/') make a directory without a file entry; unaddressable keys are skipped", async () => {
    const bucket = createFakeR2();
    bucket.seed("ws/empty/");
    bucket.seed("ws/odd//name");
    bucket.seed("ws/real.txt", bytes("x"));
    const storage = createR2Storage(bucket, "ws");
    expect((await storage.list("", { recursive: true })).entries.map((e) => `${e.kind}:${e.path}`)).toEqual([
      "directory:empty",
      "directory:odd",
      "file:real.txt",
    ]);
    expect(await storage.stat("empty")).toMatchObject({ kind: "directory" });
    expect(await storage.list("empty")).toEqual({ entries: [], truncated: false });
  });
});

describe("createR2Storage", () => {
  test("refuses prefixes that are not plain segments and page sizes R2 cannot serve", () => {
    const bucket = createFakeR2();
    for (const prefix of ["/ws", "a//b", "../x", "ws/./x"]) expect(() => createR2Storage(bucket, prefix)).toThrow(/prefix/);
    for (const pageSize of [0, 1001, 1.5]) expect(() => createR2Storage(bucket, "ws", { pageSize })).toThrow(/pageSize/);
  });

  test("a compare-and-swap put skips the directory checks: one R2 call", async () => {
    const bucket = createFakeR2();
    const storage = createR2Storage(bucket, "ws");
    const { version } = await storage.write("a/b/c.txt", bytes("1"));
    let calls = 0;
    const counted = new Proxy(bucket, {
      get: (target, key) => {
        const value = Reflect.get(target, key);
        return typeof value === "function"
          ? (...args: unknown[]) => {
              calls++;
              return value.apply(target, args);
            }
          : value;
      },
    });
    await createR2Storage(counted, "ws").write("a/b/c.txt", bytes("2"), { kind: "ifVersion", version });
    expect(calls).toBe(1);
  });
});
