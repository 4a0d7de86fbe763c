import { describe, expect, test } from "bun:test";
import { createMemoryObservationStore } from "../../src/policy/memory.ts";

describe("memory observation store", () => {
  test("keeps observations per session and path", async () => {
    const store = createMemoryObservationStore();
    await store.set("s1", "a.txt", { kind: "present", version: "v1" });
    await store.set("s2", "a.txt", { kind: "absent" });
    expect(await store.get("s1", "a.txt")).toEqual({ kind: "present", version: "v1" });
    expect(await store.get("s2", "a.txt")).toEqual({ kind: "absent" });
    expect(await store.get("s1", "b.txt")).toBeUndefined();
    expect(await store.get("s3", "a.txt")).toBeUndefined();
  });

  test("a later observation replaces an earlier one; forget makes a path unseen", async () => {
    const store = createMemoryObservationStore();
    await store.set("s", "a", { kind: "present", version: "v1" });
    await store.set("s", "a", { kind: "present", version: "v2" });
    expect(await store.get("s", "a")).toEqual({ kind: "present", version: "v2" });
    await store.forget("s", "a");
    expect(await store.get("s", "a")).toBeUndefined();
  });

  test("bounded: the least recently touched path and session are forgotten first", async () => {
    const store = createMemoryObservationStore({ maxPathsPerSession: 2, maxSessions: 2 });
    await store.set("s", "a", { kind: "absent" });
    await store.set("s", "b", { kind: "absent" });
    await store.set("s", "a", { kind: "absent" }); // touch a: b is now the oldest
    await store.set("s", "c", { kind: "absent" });
    expect(await store.get("s", "b")).toBeUndefined();
    expect(await store.get("s", "a")).toEqual({ kind: "absent" });
    await store.set("t", "x", { kind: "absent" });
    await store.get("s", "a"); // touch session s: t is now the oldest
    await store.set("u", "x", { kind: "absent" });
    expect(await store.get("t", "x")).toBeUndefined();
    expect(await store.get("s", "c")).toEqual({ kind: "absent" });
  });
});
