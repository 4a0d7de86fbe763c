import { describe, expect, test } from "bun:test";
import { createMemoryObservationStore } from "../../src/policy/memory.ts";
import { OBSERVATION_OVERHEAD_BYTES, observationBytes } from "../../src/policy/share.ts";

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

  test("bounded in bytes per owner: the owner's least recently used observations are forgotten first", async () => {
    const entry = observationBytes("o/s", "a", { kind: "absent" });
    const store = createMemoryObservationStore({ maxBytesPerOwner: 2 * entry });
    await store.set("o/s", "a", { kind: "absent" });
    await store.set("o/s", "b", { kind: "absent" });
    await store.get("o/s", "a"); // touch a: b is now the oldest
    await store.set("o/s", "c", { kind: "absent" });
    expect(await store.get("o/s", "b")).toBeUndefined();
    expect(await store.get("o/s", "a")).toEqual({ kind: "absent" });
    expect(await store.get("o/s", "c")).toEqual({ kind: "absent" });
    // Another session of the same owner shares the budget.
    await store.set("o/t", "x", { kind: "absent" });
    expect(await store.get("o/s", "a")).toBeUndefined();
  });

  test("one owner's flood of sessions and long paths never forgets another owner's observations", async () => {
    const store = createMemoryObservationStore({ maxBytesPerOwner: 64 * 1024 });
    await store.set("victim/s", "notes.txt", { kind: "present", version: "v1" });
    const longPath = "d/".repeat(1850);
    for (let i = 0; i < 10_050; i++) await store.set(`flooder/${i}`, `${longPath}${i}`, { kind: "absent" });
    expect(await store.get("victim/s", "notes.txt")).toEqual({ kind: "present", version: "v1" });
    // The flooder keeps its newest, within its share.
    expect(await store.get("flooder/10049", `${longPath}10049`)).toEqual({ kind: "absent" });
    expect(await store.get("flooder/0", `${longPath}0`)).toBeUndefined();
  });

  test("an entry larger than the whole share is still kept until the next one", async () => {
    const store = createMemoryObservationStore({ maxBytesPerOwner: 10 });
    await store.set("o/s", "a", { kind: "absent" });
    expect(await store.get("o/s", "a")).toEqual({ kind: "absent" });
    await store.set("o/s", "b", { kind: "absent" });
    expect(await store.get("o/s", "a")).toBeUndefined();
    expect(await store.get("o/s", "b")).toEqual({ kind: "absent" });
  });

  test("the bytes counted grow with the path, the session key and the record", () => {
    const base = observationBytes("o/s", "a", { kind: "absent" });
    expect(observationBytes("o/s", "a".repeat(3700), { kind: "absent" })).toBe(base + 2 * 3699);
    expect(observationBytes("o/s", "a", { kind: "present", version: "v".repeat(40) })).toBeGreaterThan(base + 80);
    expect(base).toBeGreaterThanOrEqual(OBSERVATION_OVERHEAD_BYTES);
  });

  test("forget releases the bytes", async () => {
    const entry = observationBytes("o/s", "a", { kind: "absent" });
    const store = createMemoryObservationStore({ maxBytesPerOwner: 2 * entry });
    await store.set("o/s", "a", { kind: "absent" });
    await store.forget("o/s", "a");
    await store.set("o/s", "b", { kind: "absent" });
    await store.set("o/s", "c", { kind: "absent" });
    expect(await store.get("o/s", "b")).toEqual({ kind: "absent" });
    expect(await store.get("o/s", "c")).toEqual({ kind: "absent" });
  });
});
