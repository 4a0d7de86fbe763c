/** Audit log, history and revert through the HTTP app, with the history inside the workspace's own storage (as on R2/S3). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startHistoryApp } from "../helpers/history-app.ts";
import {
  api,
  expectConflict,
  expectLogOfFiveEdits,
  expectReservedUnreachable,
  expectScopes,
  expectSessionRevert,
  fiveEdits,
  type HistoryTarget,
  ok,
  ORIGINALS,
  utf8,
} from "../helpers/history-flow.ts";

let fixture: ReturnType<typeof startHistoryApp>;
let target: HistoryTarget;

beforeAll(() => {
  fixture = startHistoryApp();
  target = fixture.target;
});
afterAll(() => fixture.stop());

describe("audit log, history and revert (memory storage, history under the reserved segment)", () => {
  let sessionAfter: Record<string, Uint8Array>;
  let revertChange: string;

  test("a session's 5 edits across 3 files are logged in order with chained versions", async () => {
    sessionAfter = await fiveEdits(target, "s1");
    await expectLogOfFiveEdits(target, "s1");
  });

  test("the reserved history is out of reach of view, write and search", async () => {
    await expectReservedUnreachable(target);
  });

  test("history lists a file's versions and serves each one's bytes", async () => {
    const { json } = await api(target, "/v1/history?path=win.txt", target.auditToken);
    expect(json.versions.map((v) => v.tool)).toEqual(["batch_edit", "edit"]);
    const first = json.versions[1];
    const original = await fetch(`${target.url}/v1/history/content?path=win.txt&version=${encodeURIComponent(first.before.version)}`, {
      headers: { authorization: `Bearer ${target.auditToken}` },
    });
    expect(original.status).toBe(200);
    expect(new Uint8Array(await original.arrayBuffer())).toEqual(new Uint8Array(ORIGINALS["win.txt"]!));
    const unknown = await api(target, "/v1/history/content?path=win.txt&version=nope", target.auditToken);
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.message).toContain("GET /v1/history?path=win.txt");
  });

  test("reverting the session restores the 3 files byte for byte (CRLF and BOM included)", async () => {
    revertChange = await expectSessionRevert(target, "s1");
  });

  test("the revert is recorded and can itself be reverted", async () => {
    const entry = (await api(target, "/v1/audit?changes=1", target.auditToken)).json.entries.at(-1)!;
    expect(entry.tool).toBe("revert");
    expect(entry.id).toBe(revertChange);
    expect(entry.reverts!.length).toBe(5);
    const again = await api(target, "/v1/revert", target.adminToken, { change: revertChange });
    expect(again.json.ok).toBe(true);
    for (const [path, bytes] of Object.entries(sessionAfter)) expect(await target.bytes(path)).toEqual(bytes);
    // And back to the originals, for the tests that follow.
    await api(target, "/v1/revert", target.adminToken, { change: again.json.change });
    for (const [path, bytes] of Object.entries(ORIGINALS)) expect(await target.bytes(path)).toEqual(bytes);
  });

  test("a file another writer changed afterwards is a conflict, left as that writer left it", async () => {
    await expectConflict(target);
  });

  test("reverting a create deletes the file; reverting that recreates it", async () => {
    await ok(target, "write", { path: "new/file.txt", content: "fresh\n" }, "k1");
    const created = (await api(target, "/v1/audit?session=k1&changes=1", target.auditToken)).json.entries[0];
    expect(created.changes[0].before).toBeNull();
    const undo = await api(target, "/v1/revert", target.adminToken, { change: created.id });
    expect(undo.json.reverted).toEqual([{ path: "new/file.txt", action: "deleted" }]);
    expect(await target.bytes("new/file.txt")).toBeUndefined();
    const redo = await api(target, "/v1/revert", target.adminToken, { change: undo.json.change });
    expect(redo.json.reverted).toEqual([{ path: "new/file.txt", action: "recreated" }]);
    expect(await target.bytes("new/file.txt")).toEqual(utf8("fresh\n"));
  });

  test("scopes: agents cannot read the log, an audit token cannot revert", async () => {
    await expectScopes(target);
  });

  test("bad requests say what to send", async () => {
    const noBody = await api(target, "/v1/revert", target.adminToken, { nope: 1 });
    expect(noBody.status).toBe(400);
    expect(noBody.json.error.message).toContain('{"change": ID}');
    const unknown = await api(target, "/v1/revert", target.adminToken, { change: "000-none" });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.message).toContain("GET /v1/audit?changes=1");
    const since = await api(target, "/v1/audit?since=yesterday", target.auditToken);
    expect(since.status).toBe(400);
    expect(since.json.error.message).toContain("ISO 8601");
  });

  test("the log pages with a cursor, oldest first", async () => {
    const first = await api(target, "/v1/audit?limit=3", target.auditToken);
    expect(first.json.entries.length).toBe(3);
    const second = await api(target, `/v1/audit?limit=3&cursor=${first.json.cursor}`, target.auditToken);
    expect(second.json.entries[0].id > first.json.entries[2].id).toBe(true);
  });
});
