/** Reverting one file to a version of its history, as a compare-and-swap (`POST /v1/revert {path, version, expect}`), and what an entry keeps of a call. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { auditEntry, fileState, newEntry } from "../helpers/audit-entry.ts";
import { startHistoryApp } from "../helpers/history-app.ts";
import { auditEntryOf, type AuditEntry, bounded, createStorageHistory, MAX_ARGS_CHARS, restoreStep } from "../../src/history/mod.ts";
import type { HistoryVersion } from "../helpers/api-replies.ts";
import { api, type HistoryTarget, ok, utf8 } from "../helpers/history-flow.ts";

const s = (blob: string) => fileState(blob, 1);
const entry = (id: string, changes: AuditEntry["changes"]) => auditEntry(id, changes);

describe("restoreStep (pure)", () => {
  const log = [entry("1", [{ path: "a", before: s("a0"), after: s("a1") }]), entry("2", [{ path: "a", before: s("a1"), after: s("a2") }])];
  test("restores any recorded version, expecting the version the person saw (with its blob for a conflict's diff)", () => {
    expect(restoreStep(log, { path: "a", version: "v-a0", expect: "v-a2" })).toEqual({ path: "a", restore: s("a0"), expect: s("a2") });
  });
  test("a current version the log never saw still guards the write (no blob: no diff)", () => {
    expect(restoreStep(log, { path: "a", version: "v-a1", expect: "v-zz" })!.expect).toEqual({ version: "v-zz", blob: "", size: 0 });
  });
  test("null expects the file to be absent; an unknown version is undefined", () => {
    expect(restoreStep(log, { path: "a", version: "v-a0", expect: null })!.expect).toBeNull();
    expect(restoreStep(log, { path: "a", version: "nope", expect: null })).toBeUndefined();
    expect(restoreStep(log, { path: "b", version: "v-a0", expect: null })).toBeUndefined();
  });
});

describe("what an entry keeps of a call", () => {
  const base = { principal: "p", session: "s", tool: "write", changes: [], bytes: 0, ms: 1, time: new Date(0) };
  test("the arguments as JSON and the model's text", () => {
    const e = auditEntryOf({ ...base, args: { path: "a", content: "x" }, result: "wrote a" });
    expect(e.args).toBe('{"path":"a","content":"x"}');
    expect(e.result).toBe("wrote a");
  });
  test("large arguments are cut with a visible marker saying how long they were", () => {
    const e = auditEntryOf({ ...base, args: { path: "a", content: "x".repeat(10_000) } });
    expect(e.args!.length).toBeLessThan(MAX_ARGS_CHARS + 40);
    expect(e.args).toEndWith("… [cut: 10025 chars in all]");
  });
  test("a cut never splits a surrogate pair", () => {
    expect(bounded("ab😀", 3)).toBe("ab… [cut: 4 chars in all]");
  });
});

describe("the newest entries", () => {
  test("the last N that match, oldest first, reading from the end", async () => {
    const store = createStorageHistory(createMemoryStorage());
    for (let i = 0; i < 6; i++) {
      await store.append(newEntry([], new Date(i), { session: i % 2 ? "odd" : "even", tool: `t${i}` }));
    }
    expect((await store.query({ newest: true, limit: 2 })).entries.map((e) => e.tool)).toEqual(["t4", "t5"]);
    expect((await store.query({ newest: true, limit: 2, session: "even" })).entries.map((e) => e.tool)).toEqual(["t2", "t4"]);
    expect((await store.query({ newest: true, limit: 10 })).entries.length).toBe(6);
  });
});

let fixture: ReturnType<typeof startHistoryApp>;
let target: HistoryTarget;

beforeAll(() => {
  fixture = startHistoryApp();
  target = fixture.target;
});
afterAll(() => fixture.stop());

describe("POST /v1/revert {path, version, expect}", () => {
  const v1 = utf8("one\r\ntwo\r\n");
  let versions: HistoryVersion[];

  test("puts a file back to an earlier version byte for byte, and is recorded", async () => {
    await target.seed("f.txt", v1);
    await ok(target, "view", { path: "f.txt" }, "s");
    await ok(target, "edit", { path: "f.txt", old_string: "two", new_string: "TWO" }, "s");
    await ok(target, "edit", { path: "f.txt", old_string: "one", new_string: "ONE" }, "s");
    versions = (await api(target, "/v1/history?path=f.txt", target.adminToken)).json.versions;
    const original = versions.at(-1)!.before.version;
    const current = versions[0].after.version;
    const reply = await api(target, "/v1/revert", target.adminToken, { path: "f.txt", version: original, expect: current });
    expect(reply.json).toMatchObject({ ok: true, reverted: [{ path: "f.txt", action: "restored" }], conflicts: [] });
    expect(await target.bytes("f.txt")).toEqual(v1);
    const logged = (await api(target, "/v1/audit?changes=1", target.adminToken)).json.entries.at(-1)!;
    expect(logged.tool).toBe("revert");
    expect(logged.paths).toEqual(["f.txt"]);
  });

  test("a stale expected version is a conflict with a diff, and the file is left as it is", async () => {
    const middle = versions[1].after.version; // after the first edit
    const stale = versions[0].after.version; // no longer current: the revert above replaced it
    const before = await target.bytes("f.txt");
    const reply = await api(target, "/v1/revert", target.adminToken, { path: "f.txt", version: middle, expect: stale });
    expect(reply.json.ok).toBe(false);
    expect(reply.json.conflicts[0]).toMatchObject({ path: "f.txt", reason: "it was changed since the change" });
    expect(reply.json.conflicts[0].diff).toContain("ONE");
    expect(await target.bytes("f.txt")).toEqual(before!);
  });

  test("an unknown version is 404 naming where the versions are; a bad body says the three shapes", async () => {
    const unknown = await api(target, "/v1/revert", target.adminToken, { path: "f.txt", version: "nope", expect: null });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.message).toContain("GET /v1/history?path=f.txt");
    const bad = await api(target, "/v1/revert", target.adminToken, { path: "f.txt", version: "x" });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toContain('"expect"');
  });
});
