/**
 * Sixteen sessions edit their own line of one shared file at the same time.
 * Every edit is content-proven (line ids), so every lost compare-and-swap is
 * retried on the winner's content, where the loser's id still verifies:
 * every edit must land, and no line may be lost or duplicated.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalStorage } from "../../src/storage/local/mod.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import type { Storage } from "../../src/storage/types.ts";
import { batchEditTool } from "../../src/tools/batch-edit/run.ts";
import { editTool } from "../../src/tools/edit/run.ts";
import { asSession, makeContext, readText, seed } from "../helpers/tool-context.ts";
import { call, expectOk, idOf, markViewed } from "../helpers/tool-mutation.ts";

const SESSIONS = 16;
const ORIGINAL = `${Array.from({ length: SESSIONS }, (_, i) => `line ${i + 1} original`).join("\n")}\n`;
const EXPECTED = `${Array.from({ length: SESSIONS }, (_, i) => `line ${i + 1} edited by s${i + 1}`).join("\n")}\n`;

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
});

async function localStorage(): Promise<Storage> {
  const dir = await fs.realpath(await fs.mkdtemp(join(tmpdir(), "tw-batch-")));
  dirs.push(dir);
  return createLocalStorage(dir, { fsync: false });
}

const providers: [string, () => Promise<Storage>][] = [
  ["memory", async () => createMemoryStorage()],
  ["local", localStorage],
];

/** A shared file seeded in fresh storage from `make`, and SESSIONS sessions that have each viewed it. */
async function viewedBySessions(make: () => Promise<Storage>) {
  const base = makeContext({ storage: await make() });
  await seed(base.storage, { "shared.txt": ORIGINAL });
  const sessions = Array.from({ length: SESSIONS }, (_, i) => asSession(base, `s${i + 1}`));
  for (const ctx of sessions) await markViewed(ctx, "shared.txt");
  return { base, sessions };
}

for (const [name, make] of providers)
  describe(`16 concurrent edits of one file (${name} storage)`, () => {
    test("batch_edit: every session's line lands, none lost or duplicated", async () => {
      const { base, sessions } = await viewedBySessions(make);

      const results = await Promise.all(
        sessions.map((ctx, i) =>
          call(
            batchEditTool,
            {
              path: "shared.txt",
              operations: [{ operation: "replace", start: idOf(ORIGINAL, i + 1), content: `line ${i + 1} edited by s${i + 1}` }],
            },
            ctx,
          ),
        ),
      );
      for (const result of results) expectOk(result);
      expect(await readText(base.storage, "shared.txt")).toBe(EXPECTED);
    });

    test("edit: every session's replacement lands", async () => {
      const { base, sessions } = await viewedBySessions(make);

      const results = await Promise.all(
        sessions.map((ctx, i) =>
          call(editTool, { path: "shared.txt", old_string: `line ${i + 1} original`, new_string: `line ${i + 1} edited by s${i + 1}` }, ctx),
        ),
      );
      for (const result of results) expectOk(result);
      expect(await readText(base.storage, "shared.txt")).toBe(EXPECTED);
    });
  });
