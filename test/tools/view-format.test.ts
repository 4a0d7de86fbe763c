/** The view outputs' wording helpers (src/tools/view/format.ts). */
import { expect, test } from "bun:test";
import { quoteArg } from "../../src/tools/view/format.ts";

test("quoteArg bounds echoed input without splitting a character, and leaves short input whole", () => {
  expect(quoteArg('a"b')).toBe('"a\\"b"');
  expect(quoteArg("x".repeat(81))).toBe(JSON.stringify(`${"x".repeat(80)}…`));
  // The 80th code unit is the first half of 🚀: the cut comes before the pair, not inside it.
  expect(quoteArg(`${"x".repeat(79)}🚀y`)).toBe(JSON.stringify(`${"x".repeat(79)}…`));
  expect(quoteArg(`${"x".repeat(78)}🚀y`)).toBe(JSON.stringify(`${"x".repeat(78)}🚀…`));
});
