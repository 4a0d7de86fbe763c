import { expect, test } from "bun:test";
import fc from "fast-check";
import { isTempName, tempNameFor } from "../../src/storage/local/temp-name.ts";

const bytes = (s: string) => new TextEncoder().encode(s).length;

test("every temp name is recognised as one and fits in NAME_MAX", () => {
  fc.assert(
    fc.property(fc.string({ unit: "grapheme", minLength: 1, maxLength: 60 }), (name) => {
      const temp = tempNameFor(name);
      expect(isTempName(temp)).toBe(true);
      expect(bytes(temp)).toBeLessThanOrEqual(255);
      expect(temp.includes("/")).toBe(name.includes("/"));
    }),
  );
  expect(bytes(tempNameFor("\u4e16".repeat(85)))).toBeLessThanOrEqual(255);
  expect(bytes(tempNameFor("x".repeat(255)))).toBeLessThanOrEqual(255);
});

test("temp names are fresh each time", () => {
  const names = new Set(Array.from({ length: 1000 }, () => tempNameFor("a.txt")));
  expect(names.size).toBe(1000);
});

test("ordinary names are not temp names", () => {
  for (const name of ["a.tmp", ".a.tmp", ".a.tw-short.tmp", "a.tw-abcdefghijkl.tmp", ".a.tw-ABCDEFGHIJKL.tmp", ".env"]) {
    expect(isTempName(name)).toBe(false);
  }
});
