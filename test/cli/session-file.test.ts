/** The session file that carries observations from one `toolwarden call` to the next. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { StartupError } from "../../src/cli/errors.ts";
import { openSessionFile } from "../../src/cli/session-file.ts";
import { tempDir } from "../helpers/cli.ts";

let dir: ReturnType<typeof tempDir>;
let file: string;
beforeEach(() => {
  dir = tempDir();
  file = join(dir.path, "session.json");
});
afterEach(() => dir.remove());

describe("session file", () => {
  test("what one process records, the next one reads (per root)", async () => {
    const first = await openSessionFile(file, "/root/a");
    await first.store.set("any", "x.ts", { kind: "present", version: "v1" });
    await first.store.set("any", "gone.ts", { kind: "absent" });
    await first.save();

    const second = await openSessionFile(file, "/root/a");
    expect(await second.store.get("other", "x.ts")).toEqual({ kind: "present", version: "v1" });
    expect(await second.store.get("other", "gone.ts")).toEqual({ kind: "absent" });
    // Another root does not see them.
    const elsewhere = await openSessionFile(file, "/root/b");
    expect(await elsewhere.store.get("s", "x.ts")).toBeUndefined();
  });

  test("overlapping processes keep each other's changes to different paths", async () => {
    const a = await openSessionFile(file, "/r");
    const b = await openSessionFile(file, "/r");
    await a.store.set("s", "a.ts", { kind: "present", version: "va" });
    await b.store.set("s", "b.ts", { kind: "present", version: "vb" });
    await a.save();
    await b.save();
    const after = await openSessionFile(file, "/r");
    expect(await after.store.get("s", "a.ts")).toEqual({ kind: "present", version: "va" });
    expect(await after.store.get("s", "b.ts")).toEqual({ kind: "present", version: "vb" });
  });

  test("forget removes the path from the file", async () => {
    const a = await openSessionFile(file, "/r");
    await a.store.set("s", "a.ts", { kind: "present", version: "va" });
    await a.save();
    const b = await openSessionFile(file, "/r");
    await b.store.forget("s", "a.ts");
    await b.save();
    expect(JSON.parse(readFileSync(file, "utf8")).roots["/r"]).toEqual({});
  });

  test("a process that changed nothing does not write the file", async () => {
    const a = await openSessionFile(file, "/r");
    await a.save();
    expect(() => readFileSync(file)).toThrow();
  });

  test("a file that is not a session file is refused, not overwritten", async () => {
    writeFileSync(file, JSON.stringify({ some: "other tool's data" }));
    await expect(openSessionFile(file, "/r")).rejects.toThrow(StartupError);
    expect(readFileSync(file, "utf8")).toBe(JSON.stringify({ some: "other tool's data" }));
  });

  test("entries of an unknown shape are dropped (they only cost one more view)", async () => {
    writeFileSync(file, JSON.stringify({ toolwarden: "session", version: 1, roots: { "/r": { "a.ts": { kind: "present" }, "b.ts": { kind: "absent" } } } }));
    const s = await openSessionFile(file, "/r");
    expect(await s.store.get("s", "a.ts")).toBeUndefined();
    expect(await s.store.get("s", "b.ts")).toEqual({ kind: "absent" });
  });
});
