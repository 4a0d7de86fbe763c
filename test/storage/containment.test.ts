import { expect, test } from "bun:test";
import { isInside } from "../../src/storage/containment.ts";

test("isInside is a proper prefix check", () => {
  const table: Array<[string, string, boolean, string?]> = [
    ["/ws", "/ws", true],
    ["/ws", "/ws/a", true],
    ["/ws", "/ws/a/b", true],
    ["/ws", "/ws-evil", false],
    ["/ws", "/ws-evil/a", false],
    ["/ws", "/wsx", false],
    ["/ws", "/w", false],
    ["/ws", "/", false],
    ["/ws", "/other/ws", false],
    ["/", "/anything", true],
    ["C:\\ws", "C:\\ws\\a", true, "\\"],
    ["C:\\ws", "C:\\ws-evil\\a", false, "\\"],
    ["C:\\", "C:\\a", true, "\\"],
  ];
  for (const [root, candidate, expected, sep] of table) {
    expect({ root, candidate, inside: isInside(root, candidate, sep) }).toEqual({ root, candidate, inside: expected });
  }
});
