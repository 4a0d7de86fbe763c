/**
 * Hosted workspaces on an object store (key prefixes of one bucket, as on
 * S3 and R2): a call in flight when its workspace is deleted must not land a
 * file in (or read one of) the next workspace created under the same name,
 * whenever its write reaches the bucket. The bucket holds the write the test
 * names until the test lets it land, so every ordering is played, none left
 * to timing.
 */
import { describe, expect, test } from "bun:test";
import type { NewAuditEntry } from "../../src/history/types.ts";
import { createMemoryLedger, createWorkspaceRegistry, prefixBackend, type WorkspaceRegistry } from "../../src/http/hosting/mod.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { prefixedStorage } from "../../src/storage/prefixed.ts";
import { Cond, type Storage } from "../../src/storage/types.ts";

const text = (s: string) => new TextEncoder().encode(s);

function entry(principal: string): NewAuditEntry {
  return { time: new Date().toISOString(), principal, session: "s", tool: "write", paths: ["late.txt"], code: "OK", changes: [], bytes: 0, ms: 1 };
}

/** A bucket whose next write of a key under `prefix` waits at the bucket (mid-PUT) until released. */
function heldBucket() {
  const bucket = createMemoryStorage();
  const holds: { prefix: string; arrived: () => void; go: Promise<void> }[] = [];
  const watches: { key: string; done: () => void }[] = [];
  const storage: Storage = {
    kind: "memory",
    stat: (path) => bucket.stat(path),
    read: (path, options) => bucket.read(path, options),
    list: (path, options) => bucket.list(path, options),
    delete: (path, options) => bucket.delete(path, options),
    async write(path, bytes, condition) {
      const at = holds.findIndex((h) => path.startsWith(h.prefix));
      if (at !== -1) {
        const [hold] = holds.splice(at, 1);
        hold.arrived();
        await hold.go;
      }
      const written = await bucket.write(path, bytes, condition);
      for (const watch of watches.filter((w) => w.key === path)) watch.done();
      return written;
    },
  };
  /** Resolves once `key` has been written. */
  const landed = (key: string) => new Promise<void>((done) => watches.push({ key, done }));
  const hold = (prefix: string) => {
    let arrived!: () => void;
    let release!: () => void;
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    const go = new Promise<void>((resolve) => (release = resolve));
    holds.push({ prefix, arrived, go });
    return { reached, release };
  };
  const registry = createWorkspaceRegistry({
    backend: prefixBackend((prefix) => prefixedStorage(storage, prefix.replace(/\/$/, ""))),
    ledger: createMemoryLedger(),
    defaultQuota: { maxBytes: 1 << 20, maxFiles: 100 },
  });
  return { bucket, hold, landed, registry };
}

/** Every key under `prefix` of the bucket. */
async function keysUnder(bucket: Storage, prefix: string): Promise<string[]> {
  const listing = await bucket.list(prefix, { recursive: true }).catch(() => ({ entries: [] }));
  return listing.entries.filter((e) => e.kind === "file").map((e) => e.path);
}

/** What a platform does: PUT, and on "still being deleted" PUT again; `refused(n)` hears each refusal. */
async function putUntilCreated(registry: WorkspaceRegistry, ws: string, refused: (n: number, message: string) => void): Promise<void> {
  for (let n = 1; ; n++) {
    try {
      if ((await registry.create(ws, {})).created) return;
      // The old workspace is still there (the DELETE has not begun): wait as for a refusal.
      refused(n, "");
    } catch (error) {
      const { code, message } = error as { code: string; message: string };
      expect(code).toBe("FS_ALREADY_EXISTS");
      refused(n, message);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** When the old call's write reaches the bucket, relative to the DELETE and the next PUT. */
const ORDERINGS = ["before the DELETE", "after the DELETE's first step", "only after the next PUT was refused three times"] as const;

/** One ordering played on a new bucket: the old call's write lands `when`, and the next workspace holds nothing of it. */
async function play(when: (typeof ORDERINGS)[number]): Promise<void> {
  const { bucket, hold, landed, registry } = heldBucket();
  await registry.create("ws", {});
  const old = await registry.storage("ws");
  await old.write("before.txt", text("old tenant\n"), Cond.ifAbsent);
  const late = hold("ws/late.txt");
  const writing = old.write("late.txt", text("old secret\n"), Cond.ifAbsent).then(
    () => "landed",
    (error: Error) => error.message,
  );
  await late.reached;
  if (when === "before the DELETE") late.release();

  const tombstoned = landed(".toolwarden/workspaces/ws.deleted");
  let deleted = false;
  const deleting = registry.remove("ws").then((removed) => (deleted = removed));
  await tombstoned;
  if (when === "after the DELETE's first step") late.release();
  const refusals: string[] = [];
  await putUntilCreated(registry, "ws", (n, message) => {
    refusals.push(message);
    if (n === 3) {
      // The DELETE has not answered: it waits for the write still on its way to the bucket.
      if (when === "only after the next PUT was refused three times") expect(deleted).toBe(false);
      late.release();
    }
  });
  late.release();
  expect(await deleting).toBe(true);
  // Accepted before the DELETE, the old call's write was answered as written; what it wrote went with the workspace.
  expect(await writing).toBe("landed");

  const fresh = await registry.storage("ws");
  expect(await fresh.stat("late.txt")).toBeNull();
  expect(await fresh.stat("before.txt")).toBeNull();
  expect(await keysUnder(bucket, "ws")).toEqual([]);
  expect((await registry.info("ws"))?.usage).toEqual({ bytes: 0, files: 0 });
  if (when === "only after the next PUT was refused three times") {
    expect(refusals[0]).toContain("workspace ws is being deleted by a DELETE still running");
    expect(refusals[0]).toContain(
      "It is waiting for 1 operation of calls to the old workspace still running, so that none of them lands in a workspace created after it: retry the PUT in a moment",
    );
  }
}

describe("a call in flight across a DELETE and the next PUT of its workspace, on an object store", () => {
  test("a write already on its way to the bucket never appears in the next workspace, whenever it lands", async () => {
    for (const when of ORDERINGS) {
      await play(when).catch((error: Error) => {
        throw new Error(`the write landing ${when}: ${error.message}`);
      });
    }
  });

  test("after the DELETE the old call's storage reaches nothing: no write lands, no read sees the next tenant's files", async () => {
    const { bucket, registry } = heldBucket();
    await registry.create("ws", {});
    const old = await registry.storage("ws");
    await registry.remove("ws");
    await registry.create("ws", {});
    const fresh = await registry.storage("ws");
    await fresh.write("secret.txt", text("new tenant\n"), Cond.ifAbsent);

    await expect(old.write("late.txt", text("old\n"), Cond.ifAbsent)).rejects.toThrow(
      'workspace "ws" was deleted while this call ran: late.txt was not written',
    );
    await expect(old.read("secret.txt")).rejects.toThrow('workspace "ws" was deleted while this call ran: secret.txt could not be read');
    await expect(old.list("")).rejects.toMatchObject({ code: "FS_NOT_FOUND" });
    await expect(old.delete("secret.txt")).rejects.toMatchObject({ code: "FS_NOT_FOUND" });
    expect(await keysUnder(bucket, "ws")).toEqual(["ws/secret.txt"]);
  });

  test("a recording of the old call on its way to the bucket lands before the name is free, and the next workspace's log never shows it", async () => {
    const { bucket, hold, registry } = heldBucket();
    await registry.create("ws", {});
    const oldHistory = registry.history("ws")!;
    const late = hold("ws/.toolwarden/history/");
    const appending = oldHistory.append(entry("oldtenant")).then(
      () => "recorded",
      (error: Error) => error.message,
    );
    await late.reached;
    const deleting = registry.remove("ws");
    await putUntilCreated(registry, "ws", (n) => {
      if (n === 3) late.release();
    });
    late.release();
    await deleting;
    await appending;
    // An old history handle writes nothing more either.
    await expect(oldHistory.append(entry("oldtenant"))).rejects.toMatchObject({ code: "FS_NOT_FOUND" });

    expect((await registry.history("ws")!.query({})).entries).toEqual([]);
    expect(await keysUnder(bucket, "ws")).toEqual([]);
  });
});
