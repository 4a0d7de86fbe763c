import { describe, expect, test } from "bun:test";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../../src/http/body.ts";

describe("nestsDeeperThan", () => {
  test("real tool arguments are far below the limit", () => {
    const args = { path: "a.ts", operations: [{ operation: "replace", start: "1:ab", content: "x" }] };
    expect(nestsDeeperThan(JSON.stringify(args))).toBe(false);
  });

  test("exactly the limit passes, one more level is refused", () => {
    const at = "[".repeat(MAX_JSON_DEPTH) + "]".repeat(MAX_JSON_DEPTH);
    const over = `[${at}]`;
    expect(nestsDeeperThan(at)).toBe(false);
    expect(nestsDeeperThan(over)).toBe(true);
    expect(nestsDeeperThan(`{"a":${over}}`)).toBe(true);
  });

  test("brackets inside strings, escaped quotes included, do not count", () => {
    const content = `${"[".repeat(1000)}\\"[[[${"{".repeat(1000)}`;
    expect(nestsDeeperThan(JSON.stringify({ path: "a", content }))).toBe(false);
    expect(nestsDeeperThan(`{"content": "\\\\", "x": ${"[".repeat(70)}${"]".repeat(70)}}`)).toBe(true);
  });

  test("sibling structures do not add up", () => {
    const wide = `[${Array.from({ length: 10_000 }, () => "[[1]]").join(",")}]`;
    expect(nestsDeeperThan(wide)).toBe(false);
  });
});
