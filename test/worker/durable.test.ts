/**
 * The Durable Object observation store inside workerd: what one session
 * recorded is what it reads back from any request, sessions never share,
 * each session's paths are bounded, state survives a restart, and an idle
 * session deletes itself.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startStorageWorker, type StorageWorker } from "../helpers/worker-storage.ts";

const workers: StorageWorker[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(workers.map((w) => w.dispose().catch(() => {})));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function start(vars: Record<string, string> = {}, persistDir?: string): Promise<StorageWorker> {
  const worker = await startStorageWorker({ vars, ...(persistDir ? { persistDir } : {}) });
  workers.push(worker);
  return worker;
}

let shared: Promise<StorageWorker> | undefined;
const bounded = () => (shared ??= start({ TOOLWARDEN_MAX_PATHS_PER_SESSION: "5" }));

describe("ObservationsDO", () => {
  test("records present and absent, forgets, and tells unseen apart", async () => {
    const { observations } = await bounded();
    expect(await observations.get("ws1/rest/a", "f.txt")).toBeUndefined();
    await observations.set("ws1/rest/a", "f.txt", { kind: "present", version: "v1" });
    await observations.set("ws1/rest/a", "gone.txt", { kind: "absent" });
    expect(await observations.get("ws1/rest/a", "f.txt")).toEqual({ kind: "present", version: "v1" });
    expect(await observations.get("ws1/rest/a", "gone.txt")).toEqual({ kind: "absent" });
    await observations.set("ws1/rest/a", "f.txt", { kind: "present", version: "v2" });
    expect(await observations.get("ws1/rest/a", "f.txt")).toEqual({ kind: "present", version: "v2" });
    await observations.forget("ws1/rest/a", "f.txt");
    expect(await observations.get("ws1/rest/a", "f.txt")).toBeUndefined();
  });

  test("keeps the lines seen of a partly seen version (a whole-file write needs them all)", async () => {
    const { observations } = await bounded();
    await observations.set("ws1/rest/seen", "f.txt", {
      kind: "present",
      version: "v1",
      seen: [
        [1, 3],
        [40, 41],
      ],
    });
    expect(await observations.get("ws1/rest/seen", "f.txt")).toEqual({
      kind: "present",
      version: "v1",
      seen: [
        [1, 3],
        [40, 41],
      ],
    });
    await observations.set("ws1/rest/seen", "f.txt", { kind: "present", version: "v1" });
    expect(await observations.get("ws1/rest/seen", "f.txt")).toEqual({ kind: "present", version: "v1" });
  });

  test("keeps the line ids the session holds (an id is checked against them on another isolate)", async () => {
    const { observations } = await bounded();
    const held = [
      [2, "0a0b0c"],
      [40, "ff"],
    ] as const;
    await observations.set("ws1/rest/held", "f.txt", { kind: "present", version: "v1", seen: [[2, 4]], held });
    expect(await observations.get("ws1/rest/held", "f.txt")).toEqual({ kind: "present", version: "v1", seen: [[2, 4]], held });
    await observations.set("ws1/rest/held", "f.txt", { kind: "present", version: "v2" });
    expect(await observations.get("ws1/rest/held", "f.txt")).toEqual({ kind: "present", version: "v2" });
  });

  test("sessions are separate objects", async () => {
    const { observations } = await bounded();
    await observations.set("ws1/rest/one", "f.txt", { kind: "present", version: "v1" });
    expect(await observations.get("ws1/rest/two", "f.txt")).toBeUndefined();
    expect(await observations.get("ws2/rest/one", "f.txt")).toBeUndefined();
  });

  test("a session keeps at most the configured number of paths, forgetting the least recently recorded", async () => {
    const { observations } = await bounded();
    const session = "ws1/rest/bounded";
    for (let i = 0; i < 5; i++) await observations.set(session, `p${i}`, { kind: "present", version: `v${i}` });
    await observations.set(session, "p0", { kind: "present", version: "v0b" }); // recorded again: now the most recent
    await observations.set(session, "p5", { kind: "absent" });
    await observations.set(session, "p6", { kind: "absent" });
    const seen = await Promise.all(["p0", "p1", "p2", "p3", "p4", "p5", "p6"].map((p) => observations.get(session, p)));
    expect(seen.map((o) => o?.kind ?? "unseen")).toEqual(["present", "unseen", "unseen", "present", "present", "absent", "absent"]);
    // Forgetting frees a slot: the next path evicts nothing.
    await observations.forget(session, "p3");
    await observations.set(session, "p7", { kind: "absent" });
    expect(await observations.get(session, "p4")).toEqual({ kind: "present", version: "v4" });
  });

  test("state survives a restart of the runtime", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tw-do-persist-"));
    dirs.push(dir);
    const first = await start({}, dir);
    await first.observations.set("ws1/mcp/s", "kept.txt", { kind: "present", version: "etag-1" });
    await first.dispose();
    const second = await start({}, dir);
    expect(await second.observations.get("ws1/mcp/s", "kept.txt")).toEqual({ kind: "present", version: "etag-1" });
  });

  test("an idle session deletes its state", async () => {
    const { observations } = await start({ TOOLWARDEN_SESSION_IDLE_SECONDS: "1" });
    await observations.set("ws1/rest/idle", "f.txt", { kind: "present", version: "v1" });
    expect(await observations.get("ws1/rest/idle", "f.txt")).toEqual({ kind: "present", version: "v1" });
    // Wait for the alarm (due one second after the write) rather than assert on timing.
    let after = await observations.get("ws1/rest/idle", "f.txt");
    for (let tries = 0; after !== undefined && tries < 50; tries++) {
      await Bun.sleep(200);
      after = await observations.get("ws1/rest/idle", "f.txt");
    }
    expect(after).toBeUndefined();
    // The object starts afresh afterwards.
    await observations.set("ws1/rest/idle", "g.txt", { kind: "absent" });
    expect(await observations.get("ws1/rest/idle", "g.txt")).toEqual({ kind: "absent" });
  }, 20_000);
});
