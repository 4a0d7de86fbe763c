import { expect, test } from "bun:test";
import { checkListOptions, compareCodeUnits, finishListing, listDepth } from "../../src/storage/listing.ts";
import type { ListEntry } from "../../src/storage/types.ts";

const entry = (path: string): ListEntry => ({ path, name: path, kind: "file", size: 0 });

test("code-unit order, not locale order", () => {
  const paths = ["b", "a/x", "B", "a-b", "é", "a", "\uffff", "😀"];
  expect([...paths].sort(compareCodeUnits)).toEqual(["B", "a", "a-b", "a/x", "b", "é", "😀", "\uffff"]);
});

test("finishListing sorts and reports whether limit cut anything", () => {
  expect(finishListing([entry("b"), entry("a")], undefined)).toEqual({ entries: [entry("a"), entry("b")], truncated: false });
  expect(finishListing([entry("b"), entry("a")], 2).truncated).toBe(false);
  expect(finishListing([entry("b"), entry("a")], 1)).toEqual({ entries: [entry("a")], truncated: true });
});

test("listDepth: children only unless recursive", () => {
  expect(listDepth(undefined)).toBe(1);
  expect(listDepth({ depth: 5 })).toBe(1);
  expect(listDepth({ recursive: true })).toBe(Number.POSITIVE_INFINITY);
  expect(listDepth({ recursive: true, depth: 3 })).toBe(3);
});

test("checkListOptions refuses what no provider could honour", () => {
  for (const options of [{ limit: -1 }, { limit: 0.5 }, { limit: Number.NaN }, { depth: 0 }, { depth: 1.5 }]) {
    expect(() => checkListOptions(options)).toThrow(expect.objectContaining({ code: "INVALID_ARGUMENT" }));
  }
  for (const options of [undefined, {}, { limit: 0 }, { depth: 1, recursive: true }]) {
    expect(() => checkListOptions(options)).not.toThrow();
  }
});
