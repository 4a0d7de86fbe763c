/** The bound on a string edit's result size, checked before the result is built. */
import { describe, expect, test } from "bun:test";
import { editGrowth } from "../../src/text/edit-size.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

describe("editGrowth", () => {
  const body = bytes("@\n".repeat(100));

  test("replace_all of 100 places with a long new_string is over the limit, with the places and bytes it would make", () => {
    const r = editGrowth(body, "@", "Z".repeat(1_000_000), true, 32 * 1024 * 1024);
    expect(r!.bytes).toBeGreaterThan(32 * 1024 * 1024);
    expect(r!.places).toBeGreaterThan(33);
  });

  test("the same edit of one place, a shrinking edit, and a small total pass", () => {
    expect(editGrowth(body, "@", "Z".repeat(1_000_000), false, 32 * 1024 * 1024)).toBeUndefined();
    expect(editGrowth(body, "@\n@", "x", true, 10)).toBeUndefined();
    expect(editGrowth(body, "@", "ZZ", true, 1024)).toBeUndefined();
  });

  test("a multi-line old_string is bounded by its longest line; escapes read as the ladder reads them", () => {
    const code = bytes("fn(a);\nfn(b);\n".repeat(50));
    expect(editGrowth(code, "fn(a);\\nfn(b);", "y".repeat(100), true, 2000)).toMatchObject({ places: expect.any(Number) });
    expect(editGrowth(code, "fn(a);\nfn(b);", "y".repeat(100), true, 1_000_000)).toBeUndefined();
  });

  test("one place over the limit is over even without replace_all", () => {
    expect(editGrowth(bytes("abc"), "b", "x".repeat(50), false, 20)).toEqual({ places: 1, bytes: 52 });
  });
});
