/**
 * Directory searches read files ahead of the one being searched: the
 * output must be what searching one file after another gives, also when a
 * cap stops the search while the walk has already gone further.
 */
import { describe, expect, test } from "bun:test";
import type { ReadResult, Storage } from "../../src/storage/types.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { COUNT_CAP } from "../../src/tools/view/search.ts";
import { makeContext, seed } from "../helpers/tool-context.ts";
import { view } from "../helpers/tool-view.ts";

const LINES_PER_FILE = 60;
/** Files (in walk order) until the matches reach the counting cap. */
const FILES_TO_CAP = Math.ceil(COUNT_CAP / LINES_PER_FILE);

function tree(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < FILES_TO_CAP + 20; i++) files[`d/a${String(i).padStart(3, "0")}.txt`] = "foo\n".repeat(LINES_PER_FILE);
  // Right after the file where the cap stops the search, in walk order: hidden entries the
  // walk reaches while reading ahead, which a one-at-a-time search never reaches.
  const stop = `d/a${String(FILES_TO_CAP).padStart(3, "0")}`;
  files[`${stop}x/.hidden1`] = "foo\n";
  files[`${stop}x/.hidden2`] = "foo\n";
  return files;
}

describe("directory search reading ahead", () => {
  test("a search stopped by the counting cap reports the walk as it was at the stop", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, tree());
    const out = await view(ctx, { path: "d", content: "foo" });
    expect(out.text).toContain(`stopped counting at ${COUNT_CAP} matching lines`);
    expect(out.text).toContain(`${FILES_TO_CAP} files searched`);
    expect(out.text).not.toContain("hidden");
  });

  test("files come out in walk order whatever order their reads finish in", async () => {
    const inner = createMemoryStorage();
    let calls = 0;
    // Every other read is slow: later files finish first.
    const shuffled: Storage = {
      ...inner,
      async read(path): Promise<ReadResult> {
        const slow = calls++ % 2 === 0;
        const result = await inner.read(path);
        await new Promise((resolve) => setTimeout(resolve, slow ? 5 : 0));
        return result;
      },
    };
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`d/f${String(i).padStart(2, "0")}.txt`] = `x\nneedle ${i}\n`;
    await seed(inner, files);
    const a = await view(makeContext({ storage: shuffled }), { path: "d", content: "needle" });
    const b = await view(makeContext({ storage: inner }), { path: "d", content: "needle" });
    expect(a.text).toBe(b.text);
    const order = a.text
      .split("\n")
      .filter((l) => l.startsWith("d/f"))
      .map((l) => l.slice(0, 7));
    expect(order).toEqual([...order].sort());
  });
});
