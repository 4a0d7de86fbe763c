/**
 * The audit/history/revert flow of issue 17, run the same way against any
 * running server (in-process app, a real `serve` process, the Worker under
 * Miniflare): a session's 5 edits across 3 files, the log, a revert of the
 * session byte for byte, a conflict left as the other writer left it, and
 * the reserved state out of every tool's reach.
 */
import { expect } from "bun:test";
import type { AuditEntry } from "../../src/history/types.ts";
import type { HistoryReply } from "./api-replies.ts";

/** A server under test and how to reach its files directly. */
export interface HistoryTarget {
  readonly url: string;
  /** read + write */
  readonly agentToken: string;
  /** admin */
  readonly adminToken: string;
  /** audit (read-only) */
  readonly auditToken: string;
  /** Put a file's bytes directly (not through a tool, not recorded). */
  seed(path: string, bytes: Uint8Array): Promise<void>;
  /** A file's bytes now, or undefined when it does not exist. */
  bytes(path: string): Promise<Uint8Array | undefined>;
}

export interface ToolReply {
  readonly isError: boolean;
  readonly code?: string;
  readonly content: { text: string }[];
}

const enc = new TextEncoder();
export const utf8 = (s: string) => enc.encode(s);

export const ORIGINALS: Record<string, Uint8Array> = {
  "src/app.ts": utf8("export const port = 3000;\nexport const host = 'localhost';\n"),
  "win.txt": utf8("alpha\r\nbeta\r\ngamma\r\n"),
  "docs/bom.md": new Uint8Array([0xef, 0xbb, 0xbf, ...utf8("# Title\n\nBody text.\n")]),
};

export async function call(target: HistoryTarget, tool: string, args: unknown, session: string, token = target.agentToken): Promise<ToolReply> {
  const response = await fetch(`${target.url}/v1/tools/${tool}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, "x-session-id": session },
    body: JSON.stringify(args),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as ToolReply;
}

export async function ok(target: HistoryTarget, tool: string, args: unknown, session: string): Promise<string> {
  const reply = await call(target, tool, args, session);
  if (reply.isError) throw new Error(`${tool} failed (${reply.code}): ${reply.content[0]?.text}`);
  return reply.content.map((c) => c.text).join("\n");
}

export async function api(target: HistoryTarget, path: string, token: string, body?: unknown): Promise<{ status: number; json: HistoryReply }> {
  const response = await fetch(`${target.url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, json: json as HistoryReply };
}

function idOf(view: string, text: string): string {
  const line = view.split("\n").find((l) => l.endsWith(`|${text}`));
  if (!line) throw new Error(`no line ${JSON.stringify(text)} in:\n${view}`);
  return line.slice(0, line.indexOf("|"));
}

/** Seed the three files and run session `s1`'s five edits; returns the file bytes after them. */
export async function fiveEdits(target: HistoryTarget, session: string): Promise<Record<string, Uint8Array>> {
  for (const [path, bytes] of Object.entries(ORIGINALS)) await target.seed(path, bytes);
  for (const path of Object.keys(ORIGINALS)) await ok(target, "view", { path }, session);
  await ok(target, "edit", { path: "src/app.ts", old_string: "3000", new_string: "8080" }, session);
  await ok(target, "edit", { path: "win.txt", old_string: "beta", new_string: "BETA" }, session);
  const seen = await ok(target, "view", { path: "win.txt" }, session);
  await ok(target, "batch_edit", { path: "win.txt", operations: [{ operation: "insert", after: idOf(seen, "gamma"), content: "delta" }] }, session);
  await ok(target, "edit", { path: "src/app.ts", old_string: "'localhost'", new_string: "'0.0.0.0'" }, session);
  await ok(target, "write", { path: "docs/bom.md", content: "# Title\n\nNew body.\n" }, session);
  const after: Record<string, Uint8Array> = {};
  for (const path of Object.keys(ORIGINALS)) after[path] = (await target.bytes(path))!;
  return after;
}

/** The five edits appear in order with versions that chain from the seeded files. */
export async function expectLogOfFiveEdits(target: HistoryTarget, session: string): Promise<AuditEntry[]> {
  const { status, json } = await api(target, `/v1/audit?session=${session}&changes=1`, target.auditToken);
  expect(status).toBe(200);
  const entries = json.entries;
  expect(entries.map((e) => `${e.tool} ${e.changes.map((c) => c.path).join(",")}`)).toEqual([
    "edit src/app.ts",
    "edit win.txt",
    "batch_edit win.txt",
    "edit src/app.ts",
    "write docs/bom.md",
  ]);
  for (const e of entries) {
    expect(e.session).toBe(session);
    expect(e.code).toBe("OK");
    expect(e.principal).toBe("agent");
  }
  // Each file's versions chain: the after of one change is the before of the next change to it.
  const last = new Map<string, string>();
  for (const e of entries) {
    const change = e.changes[0];
    // Every one of the five edits changed a file that existed before and after it.
    if (last.has(change.path)) expect(change.before!.version).toBe(last.get(change.path)!);
    else expect(change.before!.size).toBe(ORIGINALS[change.path]!.byteLength);
    last.set(change.path, change.after!.version);
  }
  // Views are in the full log, not in the changes-only one.
  const all = await api(target, `/v1/audit?session=${session}`, target.auditToken);
  expect(all.json.entries.filter((e) => e.tool === "view").length).toBe(4);
  return entries;
}

/** Reverting the session restores every file byte for byte. */
export async function expectSessionRevert(target: HistoryTarget, session: string): Promise<string> {
  const { status, json } = await api(target, "/v1/revert", target.adminToken, { session });
  expect(status).toBe(200);
  expect(json.ok).toBe(true);
  expect(json.conflicts).toEqual([]);
  expect(json.reverted.map((r) => r.path).sort()).toEqual(Object.keys(ORIGINALS).sort());
  for (const [path, bytes] of Object.entries(ORIGINALS)) expect(await target.bytes(path)).toEqual(bytes);
  return json.change;
}

/** A file someone changed after the session is reported and left as they left it. */
export async function expectConflict(target: HistoryTarget): Promise<void> {
  await ok(target, "view", { path: "src/app.ts" }, "c1");
  await ok(target, "edit", { path: "src/app.ts", old_string: "export const port", new_string: "export const PORT" }, "c1");
  await ok(target, "view", { path: "src/app.ts" }, "c2");
  await ok(target, "edit", { path: "src/app.ts", old_string: "'localhost'", new_string: "'::1'" }, "c2");
  const theirs = await target.bytes("src/app.ts");
  const { status, json } = await api(target, "/v1/revert", target.adminToken, { session: "c1" });
  expect(status).toBe(200);
  expect(json.ok).toBe(false);
  expect(json.reverted).toEqual([]);
  expect(json.conflicts.length).toBe(1);
  expect(json.conflicts[0].path).toBe("src/app.ts");
  expect(json.conflicts[0].reason).toContain("changed since");
  expect(json.conflicts[0].diff).toMatch(/^- 2:[0-9a-f]{2}\|export const host = 'localhost';$/m);
  expect(json.conflicts[0].diff).toMatch(/^\+ 2:[0-9a-f]{2}\|export const host = '::1';$/m);
  expect(await target.bytes("src/app.ts")).toEqual(theirs);
  // Refused on every file, the revert is still in the log: asked for, and what it said.
  const log = await api(target, "/v1/audit?limit=1000", target.auditToken);
  expect(log.json.entries.find((e) => e.id === json.change)).toMatchObject({ tool: "revert", code: "EDIT_CONFLICT", changes: [] });
}

/** Nothing under the reserved segment is reachable by view, write or search, and listings leave it out. */
export async function expectReservedUnreachable(target: HistoryTarget): Promise<void> {
  for (const path of [".toolwarden", ".toolwarden/history", ".toolwarden/history/audit", "./.toolwarden/x"]) {
    const view = await call(target, "view", { path }, "r1");
    expect(view.code).toBe("FS_INVALID_PATH");
    expect(view.content[0]!.text).toContain("reserved");
    const write = await call(target, "write", { path: `${path}/new.txt`, content: "x\n" }, "r1");
    expect(write.code).toBe("FS_INVALID_PATH");
  }
  const listing = await ok(target, "view", { path: ".", depth: 5 }, "r1");
  expect(listing).not.toContain(".toolwarden");
  // The old body lives only in a history blob now: a search must not find it.
  const search = await ok(target, "view", { path: ".", content: "Body text." }, "r1");
  expect(search).not.toContain(".toolwarden");
  expect(search).toContain("no match in 3 files searched");
}

/** Scopes: agents cannot read the log; an audit token reads but cannot revert. */
export async function expectScopes(target: HistoryTarget): Promise<void> {
  expect((await api(target, "/v1/audit", target.agentToken)).status).toBe(403);
  expect((await api(target, "/v1/audit", target.auditToken)).status).toBe(200);
  const refused = await api(target, "/v1/revert", target.auditToken, { session: "s1" });
  expect(refused.status).toBe(403);
  expect(refused.json.error.code).toBe("FORBIDDEN");
}
