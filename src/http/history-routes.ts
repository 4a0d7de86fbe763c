/**
 * The audit and history API: `GET /v1/audit`, `GET /v1/history`,
 * `GET /v1/history/content` (scope `audit` or `admin`) and `POST /v1/revert`
 * (scope `admin`). A revert runs through the same recording storage as a
 * tool call, so it is itself in the log and can itself be reverted.
 */
import type { Context, Hono } from "hono";
import * as v from "valibot";
import {
  auditEntryOf,
  createRecorder,
  type AuditEntry,
  type AuditQuery,
  type HistoryStore,
  restoreStep,
  revertEntries,
  revertStep,
  type RevertOutcome,
} from "../history/mod.ts";
import { isCodedError } from "../errors.ts";
import { normalizeWorkspacePath } from "../storage/path.ts";
import type { Scope } from "../scopes.ts";
import type { ToolHost } from "./host.ts";
import { ALL_WORKSPACES } from "./jwt.ts";
import type { AppEnv } from "./middleware.ts";
import { queryRefusal } from "./query.ts";
import { errorResponse, statusForCode } from "./responses.ts";

const READERS: readonly Scope[] = ["audit", "admin"];

function allowed(c: Context<AppEnv>, scopes: readonly Scope[]): Response | undefined {
  const have = c.get("principal").scopes;
  if (scopes.some((s) => have.has(s))) return undefined;
  return errorResponse(403, "FORBIDDEN", `This needs a token with scope ${scopes.join(" or ")}; this token has ${[...have].join(", ") || "none"}.`);
}

/**
 * The caller's workspace history, if the caller holds one of `scopes`, the
 * workspace exists, and the server records one. The history is taken before
 * the workspace is checked, in the same turn: a hosted workspace then hands
 * both out behind one fence (./hosting/fences.ts). Taking it creates nothing
 * (its place is made by its first write), so a read of a workspace that does
 * not exist leaves none behind.
 */
async function historyOf(c: Context<AppEnv>, host: ToolHost, scopes: readonly Scope[]): Promise<HistoryStore | Response> {
  const refused = allowed(c, scopes);
  if (refused) return refused;
  const workspace = c.get("principal").workspace;
  if (workspace === ALL_WORKSPACES) {
    return errorResponse(
      403,
      "FORBIDDEN",
      'A global admin token (ws "*") has no audit log: each workspace has its own. Mint a token for the workspace (scope audit or admin).',
    );
  }
  const history = host.historyOf(workspace);
  try {
    // Hosted workspaces: FS_NOT_FOUND (404) for a workspace that does not exist, as a tool call gets.
    await host.storageOf(workspace);
  } catch (error) {
    if (isCodedError(error)) return errorResponse(statusForCode(error.code), error.code, error.message);
    throw error;
  }
  if (history) return history;
  return errorResponse(404, "INVALID_ARGUMENT", "This server does not record history (start it with a state directory, or on storage that keeps one).");
}

function pathParam(c: Context<AppEnv>): string | Response {
  const raw = c.req.query("path");
  if (raw === undefined || raw === "") return errorResponse(400, "INVALID_ARGUMENT", "Give the file as ?path=, e.g. ?path=src/app.ts.");
  try {
    return normalizeWorkspacePath(raw);
  } catch (error) {
    return errorResponse(400, "INVALID_ARGUMENT", `?path= is not a workspace path: ${error instanceof Error ? error.message : String(error)}.`);
  }
}

/** What `GET /v1/audit` takes. */
const AUDIT_PARAMS = ["since", "limit", "session", "principal", "cursor", "changes", "path"];
/** An audit entry id (src/history/store.ts): 15 digits of time, a dash, 8 hex digits. */
const ENTRY_ID = /^\d{15}-[0-9a-f]{8}$/;

/** The audit query from the request's parameters, or a 400. */
function auditQuery(c: Context<AppEnv>): AuditQuery | Response {
  const refused = queryRefusal(c, AUDIT_PARAMS);
  if (refused) return refused;
  const q = c.req.query();
  const query: { -readonly [K in keyof AuditQuery]: AuditQuery[K] } = {};
  if (q.since !== undefined) {
    if (Number.isNaN(Date.parse(q.since)))
      return errorResponse(400, "INVALID_ARGUMENT", `?since= must be an ISO 8601 time, e.g. 2026-12-01T10:00:00Z (got ${JSON.stringify(q.since)}).`);
    query.since = q.since;
  }
  if (q.limit !== undefined) {
    const limit = Number(q.limit);
    if (!Number.isInteger(limit) || limit < 1)
      return errorResponse(400, "INVALID_ARGUMENT", `?limit= must be a whole number from 1 to 1000 (got ${JSON.stringify(q.limit)}).`);
    query.limit = limit;
  }
  if (q.session !== undefined) query.session = q.session;
  if (q.principal !== undefined) query.principal = q.principal;
  if (q.cursor !== undefined) {
    // An unknown cursor would answer an empty page, which reads as "the end".
    if (!ENTRY_ID.test(q.cursor))
      return errorResponse(
        400,
        "INVALID_ARGUMENT",
        `?cursor= must be the cursor of a previous page (got ${JSON.stringify(q.cursor.slice(0, 60))}); leave it out for the first page.`,
      );
    query.cursor = q.cursor;
  }
  if (q.changes !== undefined) {
    if (!["1", "true", "0", "false"].includes(q.changes))
      return errorResponse(
        400,
        "INVALID_ARGUMENT",
        `?changes= must be 1 (or true) for changes only, 0 (or false) for every entry (got ${JSON.stringify(q.changes.slice(0, 60))}).`,
      );
    if (q.changes === "1" || q.changes === "true") query.changesOnly = true;
  }
  if (q.path !== undefined) {
    const path = pathParam(c);
    if (path instanceof Response) return path;
    query.path = path;
  }
  return query;
}

/** Every entry matching `query`, across pages. */
async function everyEntry(history: HistoryStore, query: AuditQuery): Promise<AuditEntry[]> {
  const out: AuditEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await history.query({ ...query, limit: 1000, ...(cursor ? { cursor } : {}) });
    out.push(...page.entries);
    cursor = page.cursor;
  } while (cursor);
  return out;
}

const RevertBody = v.union([
  v.strictObject({ change: v.pipe(v.string(), v.minLength(1)) }),
  v.strictObject({ session: v.pipe(v.string(), v.minLength(1)), principal: v.optional(v.pipe(v.string(), v.minLength(1))) }),
  v.strictObject({ path: v.pipe(v.string(), v.minLength(1)), version: v.pipe(v.string(), v.minLength(1)), expect: v.nullable(v.string()) }),
]);

/** Register the routes (auth is applied by the caller). */
export function mountHistory(app: Hono<AppEnv>, host: ToolHost): void {
  app.get("/v1/audit", async (c) => {
    const history = await historyOf(c, host, READERS);
    if (history instanceof Response) return history;
    const query = auditQuery(c);
    if (query instanceof Response) return query;
    return c.json(await history.query(query));
  });

  app.get("/v1/history", async (c) => {
    const history = await historyOf(c, host, READERS);
    if (history instanceof Response) return history;
    const path = pathParam(c);
    if (path instanceof Response) return path;
    const entries = await everyEntry(history, { path, changesOnly: true });
    const versions = entries
      .flatMap((entry) => entry.changes.filter((ch) => ch.path === path).map((ch) => ({ entry, ch })))
      .reverse()
      .map(({ entry, ch }) => ({
        change: entry.id,
        time: entry.time,
        tool: entry.tool,
        principal: entry.principal,
        session: entry.session,
        before: ch.before,
        after: ch.after,
      }));
    return c.json({ path, versions });
  });

  app.get("/v1/history/content", async (c) => {
    const history = await historyOf(c, host, READERS);
    if (history instanceof Response) return history;
    const path = pathParam(c);
    if (path instanceof Response) return path;
    const version = c.req.query("version");
    if (!version) return errorResponse(400, "INVALID_ARGUMENT", "Give the version as ?version= (from GET /v1/history?path=...).");
    const entries = await everyEntry(history, { path, changesOnly: true });
    const state = entries.flatMap((e) => e.changes.filter((ch) => ch.path === path).flatMap((ch) => [ch.before, ch.after])).find((s) => s?.version === version);
    const bytes = state ? await history.getBlob(state.blob) : undefined;
    if (!bytes) {
      const why = state ? "is no longer kept (the history bounds dropped it)" : "is not in this file's history";
      return errorResponse(
        404,
        "FS_NOT_FOUND",
        `Version ${version} of ${path} ${why}; GET /v1/history?path=${encodeURIComponent(path)} lists the versions kept.`,
      );
    }
    return new Response(bytes as Uint8Array<ArrayBuffer>, {
      headers: { "content-type": "application/octet-stream", "x-toolwarden-version": version },
    });
  });

  app.post("/v1/revert", async (c) => {
    const history = await historyOf(c, host, ["admin"]);
    if (history instanceof Response) return history;
    const parsed = v.safeParse(RevertBody, await c.req.json().catch(() => undefined));
    if (!parsed.success) {
      return errorResponse(
        400,
        "INVALID_ARGUMENT",
        'The body must be {"change": ID} (an id from GET /v1/audit), {"session": S} (optionally with "principal": P), or {"path": P, "version": V, "expect": CURRENT} ' +
          "(a version from GET /v1/history?path=P; CURRENT the version the file has now, null when it does not exist).",
      );
    }
    const started = performance.now();
    const target = parsed.output;
    const principal = c.get("principal");
    const recorder = createRecorder(await host.storageOf(principal.workspace), history);
    let entries: AuditEntry[];
    let outcome: RevertOutcome;
    if ("path" in target) {
      let path: string;
      try {
        path = normalizeWorkspacePath(target.path);
      } catch (error) {
        return errorResponse(400, "INVALID_ARGUMENT", `"path" is not a workspace path: ${error instanceof Error ? error.message : String(error)}.`);
      }
      entries = await everyEntry(history, { path, changesOnly: true });
      const step = restoreStep(entries, { path, version: target.version, expect: target.expect });
      if (!step) {
        return errorResponse(
          404,
          "FS_NOT_FOUND",
          `Version ${target.version} is not in the history of ${path}; GET /v1/history?path=${encodeURIComponent(path)} lists its versions.`,
        );
      }
      const done = await revertStep(recorder.storage, history, step, { workspace: principal.workspace });
      outcome = "action" in done ? { reverted: [done], conflicts: [] } : { reverted: [], conflicts: [done] };
      entries = entries.filter((e) =>
        e.changes.some((ch) => ch.path === path && (ch.after?.version === target.version || ch.before?.version === target.version)),
      );
    } else {
      entries =
        "change" in target
          ? [await history.get(target.change)].filter((e) => e !== undefined)
          : await everyEntry(history, { session: target.session, changesOnly: true, ...(target.principal ? { principal: target.principal } : {}) });
      if (entries.length === 0) {
        const what =
          "change" in target ? `no change ${target.change}` : `no change by session ${target.session}${target.principal ? ` of ${target.principal}` : ""}`;
        return errorResponse(404, "INVALID_ARGUMENT", `There is ${what} in this workspace's log; GET /v1/audit?changes=1 lists the changes.`);
      }
      const principals = [...new Set(entries.map((e) => e.principal))];
      if ("session" in target && principals.length > 1) {
        // Session ids are the clients' choice: another token may have used the same one. Never undo both unasked.
        const session = JSON.stringify(target.session);
        return errorResponse(
          409,
          "EDIT_CONFLICT",
          `Session ${session} has changes by ${principals.length} principals (${principals.join(", ")}); nothing was reverted. Name one: {"session": ${session}, "principal": ${JSON.stringify(principals[0])}}.`,
        );
      }
      outcome = await revertEntries(recorder.storage, history, entries, { workspace: principal.workspace });
    }
    const changes = await recorder.changes();
    // A revert refused on every file (a conflict, the quota) is in the log too: it was asked for and said no.
    const entry =
      changes.length === 0 && outcome.conflicts.length === 0
        ? undefined
        : await history.append(
            auditEntryOf({
              principal: principal.label,
              session: "",
              tool: "revert",
              args: target,
              changes,
              bytes: recorder.bytesWritten(),
              ms: performance.now() - started,
              time: new Date(),
              reverts: entries.map((e) => e.id),
              // The most telling code: a refusal (quota, storage) over a plain conflict.
              ...(outcome.conflicts.length ? { code: outcome.conflicts.find((x) => x.code !== "EDIT_CONFLICT")?.code ?? "EDIT_CONFLICT" } : {}),
            }),
          );
    return c.json({ ok: outcome.conflicts.length === 0, ...(entry ? { change: entry.id } : {}), ...outcome });
  });
}
