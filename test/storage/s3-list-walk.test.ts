import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { compareCodeUnits } from "../../src/storage/listing.ts";
import { addObject, addPrefix, canStop, compareCodePoints, finishWalk, isSettled, startWalk } from "../../src/storage/s3/list-walk.ts";
import type { ListEntry } from "../../src/storage/types.ts";

const encoder = new TextEncoder();

/** S3's order: UTF-8 bytes. */
function compareUtf8(a: string, b: string): number {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

// Characters chosen where the orders disagree: "-", "." and " " sort before "/"; U+E000.. and
// astral characters swap places between code-unit and code-point order.
const char = fc.constantFrom("a", "b", "Z", "-", ".", " ", "é", "\uff0e", "\ue000", "🚀", "😀");
// "." and ".." cannot be workspace names (such keys are skipped, as another test shows).
const segment = fc
  .array(char, { minLength: 1, maxLength: 3 })
  .map((cs) => cs.join(""))
  .filter((s) => s !== "." && s !== "..");
const key = fc.array(segment, { minLength: 1, maxLength: 3 }).map((ss) => ss.join("/"));

/** Segment-boundary prefixes of a key, the key itself last. */
function entriesOf(k: string): string[] {
  const parts = k.split("/");
  return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
}

/** Keys as an object store may hold them for a file system: no key is a directory of another. */
const keySet = fc.uniqueArray(key, { maxLength: 25 }).map((keys) => keys.filter((k) => !keys.some((other) => other.startsWith(`${k}/`))));

/** The listing computed directly from all keys. */
function reference(keys: string[], maxDepth: number, limit: number | undefined): { entries: ListEntry[]; truncated: boolean } {
  const all = new Map<string, ListEntry>();
  for (const k of keys) {
    const prefixes = entriesOf(k);
    prefixes.forEach((path, i) => {
      if (i + 1 > maxDepth) return;
      const isFile = i === prefixes.length - 1;
      all.set(path, { path, name: path.split("/").at(-1) as string, kind: isFile ? "file" : "directory", size: isFile ? k.length : 0 });
    });
  }
  const sorted = [...all.values()].sort((a, b) => compareCodeUnits(a.path, b.path));
  if (limit === undefined || sorted.length <= limit) return { entries: sorted, truncated: false };
  return { entries: sorted.slice(0, limit), truncated: true };
}

/** Page through the keys as S3 would (rolling up at "/" for a one-level listing) and stop as the provider does. */
function walkPages(keys: string[], maxDepth: number, limit: number | undefined, pageSize: number) {
  const delimiter = maxDepth === 1;
  const items: Array<{ item: string; rolled: boolean; size: number }> = [];
  for (const k of [...keys].sort(compareUtf8)) {
    const at = delimiter ? k.indexOf("/") : -1;
    const item = at === -1 ? k : k.slice(0, at + 1);
    if (items.at(-1)?.item !== item) items.push({ item, rolled: at !== -1, size: k.length });
  }
  const walk = startWalk("", maxDepth);
  let pages = 0;
  for (let start = 0; ; start += pageSize) {
    const page = items.slice(start, start + pageSize);
    pages++;
    for (const { item, rolled, size } of page) {
      if (rolled) addPrefix(walk, item.slice(0, -1));
      else addObject(walk, item, size);
    }
    const truncated = start + pageSize < items.length;
    const highWater = page
      .map((p) => p.item)
      .sort(compareCodePoints)
      .at(-1);
    if (!truncated || canStop(walk, limit, highWater)) break;
  }
  return { result: finishWalk(walk, limit), pages };
}

describe("listing walk over S3 pages", () => {
  test("equals the listing computed from all keys, for any keys, depth, limit and page size", () => {
    fc.assert(
      fc.property(
        keySet,
        fc.constantFrom(1, 2, 3, Number.POSITIVE_INFINITY),
        fc.option(fc.nat(30), { nil: undefined }),
        fc.integer({ min: 1, max: 6 }),
        (keys, maxDepth, limit, pageSize) => {
          const { result } = walkPages(keys, maxDepth, limit, pageSize);
          expect(result).toEqual(reference(keys, maxDepth, limit));
        },
      ),
      { numRuns: 2000 },
    );
  });

  test("a small limit over plain ASCII names stops within the pages that hold it", () => {
    const keys = Array.from({ length: 100 }, (_, i) => `f${String(i).padStart(3, "0")}`);
    expect(walkPages(keys, 1, 5, 3).pages).toBe(2);
  });

  test("isSettled never admits an entry that a later key could undercut", () => {
    fc.assert(
      fc.property(key, key, key, (entry, highWater, later) => {
        fc.pre(compareUtf8(later, highWater) > 0);
        fc.pre(isSettled(entry, highWater));
        const seen = new Set(entriesOf(highWater));
        for (const e of entriesOf(later)) {
          if (!seen.has(e)) expect(compareCodeUnits(e, entry)).toBeGreaterThanOrEqual(0);
        }
      }),
      { numRuns: 5000 },
    );
  });
});

describe("compareCodePoints", () => {
  test("agrees with UTF-8 byte order", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.string({ unit: "grapheme" }), (a, b) => {
        expect(Math.sign(compareCodePoints(a, b))).toBe(Math.sign(compareUtf8(a, b)));
      }),
    );
  });
});
