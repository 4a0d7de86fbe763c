/**
 * A plan's `prepare` (the diff made while the write flushes, see
 * src/tools/support/mutate.ts) changes nothing about a call's outcome: it
 * is scheduled during the write where the runtime can, `done` never waits
 * for it, and a throw there does not escape the call.
 */
import { expect, test } from "bun:test";
import { ok } from "../../src/result.ts";
import { mutateFile } from "../../src/tools/support/mutate.ts";
import { makeContext, seed } from "../helpers/tool-context.ts";

const text = (s: string) => new TextEncoder().encode(s);

test("prepare is scheduled once for a written plan, and done does not wait for it", async () => {
  const ctx = makeContext();
  await seed(ctx.storage, { "a.txt": "one\n" });
  await ctx.observations.set(ctx.caller.session, "a.txt", { kind: "present", version: (await ctx.storage.stat("a.txt"))!.version! });
  let prepared = 0;
  const result = await mutateFile(ctx, "a.txt", () => ({ kind: "write", bytes: text("two\n"), prepare: () => void prepared++, done: () => ok("written") }), {
    tool: "edit",
  });
  expect(result.isError).toBe(false);
  expect(new TextDecoder().decode((await ctx.storage.read("a.txt")).bytes)).toBe("two\n");
  // Memory storage does not wait on a disk: whether it ran before done is the scheduler's business; it runs once.
  await new Promise((resolve) => setImmediate(resolve));
  expect(prepared).toBe(1);
});

test("a prepare that throws fails nothing outside the call: done decides", async () => {
  const ctx = makeContext();
  await seed(ctx.storage, { "b.txt": "one\n" });
  await ctx.observations.set(ctx.caller.session, "b.txt", { kind: "present", version: (await ctx.storage.stat("b.txt"))!.version! });
  const result = await mutateFile(
    ctx,
    "b.txt",
    () => ({
      kind: "write",
      bytes: text("two\n"),
      prepare: () => {
        throw new Error("a bug in the diff");
      },
      done: () => ok("written"),
    }),
    { tool: "edit" },
  );
  // The scheduled prepare has run (and thrown) by the next turn; the process and the call are unharmed.
  await new Promise((resolve) => setImmediate(resolve));
  expect(result.isError).toBe(false);
  expect(new TextDecoder().decode((await ctx.storage.read("b.txt")).bytes)).toBe("two\n");
});
