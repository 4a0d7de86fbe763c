/**
 * The provisioning routes (scope `admin`), beside the tool routes and behind
 * the same auth:
 *
 * - `PUT /v1/workspaces/{ws}[?maxBytes=N&maxFiles=N]`: create (idempotent),
 *   optionally seeded from a tar / tar.gz body;
 * - `GET /v1/workspaces/{ws}`: usage and quota;
 * - `GET /v1/workspaces/{ws}/archive`: the files as tar.gz;
 * - `DELETE /v1/workspaces/{ws}`: remove files and sessions;
 * - `GET /v1/workspaces`: every workspace (global admin only).
 *
 * An admin token reaches the workspace its `ws` names, or every workspace
 * with `ws: "*"`.
 */
import type { Context, Hono } from "hono";
import type { Principal } from "../auth.ts";
import { ALL_WORKSPACES } from "../jwt.ts";
import type { AppEnv } from "../middleware.ts";
import { queryRefusal } from "../query.ts";
import { errorResponse } from "../responses.ts";
import type { Quota } from "./ledger.ts";
import type { ArchiveSource, WorkspaceRegistry } from "./registry.ts";
import { staleTokenReason } from "./tokens.ts";

const TAR_TYPES = new Set(["application/x-tar", "application/tar"]);
const GZIP_TYPES = new Set(["application/gzip", "application/x-gzip", "application/tar+gzip", "application/x-gtar"]);

/** Refusal for a caller who may not administer `workspace` (undefined: may). */
function adminRefusal(principal: Principal, workspace: string | undefined): Response | undefined {
  if (!principal.scopes.has("admin")) {
    return errorResponse(
      403,
      "FORBIDDEN",
      "Workspace administration needs a token with the admin scope; agent tokens (read, write, exec) only call tools. " +
        "Mint an admin token (toolwarden token mint --scopes admin ...).",
    );
  }
  if (principal.workspace === ALL_WORKSPACES) return undefined;
  if (workspace === undefined) {
    return errorResponse(403, "FORBIDDEN", 'Listing workspaces needs a global admin token (ws "*"); this token administers one workspace only.');
  }
  if (workspace !== principal.workspace) {
    return errorResponse(
      403,
      "FORBIDDEN",
      `This admin token administers workspace ${JSON.stringify(principal.workspace)} only, not ${JSON.stringify(workspace)}. Use a token for that workspace or a global one (ws "*").`,
    );
  }
  return undefined;
}

/** The quota overrides in the query (`maxBytes`, `maxFiles`), or a 400. */
function quotaFromQuery(c: Context<AppEnv>): Partial<Quota> | Response {
  const refused = queryRefusal(c, ["maxBytes", "maxFiles"]);
  if (refused) return refused;
  const quota: { maxBytes?: number; maxFiles?: number } = {};
  for (const name of ["maxBytes", "maxFiles"] as const) {
    const raw = c.req.query(name);
    if (raw === undefined) continue;
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < 1) {
      return errorResponse(400, "INVALID_ARGUMENT", `${name} must be a positive integer (got ${JSON.stringify(raw.slice(0, 40))}), e.g. ?${name}=1000.`);
    }
    quota[name] = n;
  }
  return quota;
}

/** The archive in the request body, none (no body, or an empty one without a type), or a 415. */
async function archiveOf(c: Context<AppEnv>): Promise<ArchiveSource | undefined | Response> {
  const body = c.req.raw.body;
  const type = c.req.header("content-type")?.split(";", 1)[0].trim().toLowerCase();
  if (!body) return undefined;
  if (type && TAR_TYPES.has(type)) return { body, gzip: false };
  if (type && GZIP_TYPES.has(type)) return { body, gzip: true };
  // Clients differ in whether a bodiless PUT carries an empty stream: read one chunk to tell.
  const reader = body.getReader();
  let next = await reader.read();
  while (!next.done && next.value.byteLength === 0) next = await reader.read();
  await reader.cancel().catch(() => undefined);
  if (next.done) return undefined;
  return errorResponse(
    415,
    "INVALID_ARGUMENT",
    `A workspace is seeded from a tar archive: send it with Content-Type application/x-tar, or application/gzip for tar.gz ` +
      `(got ${type ? JSON.stringify(type) : "none"}). Send no body to create an empty workspace.`,
  );
}

/** Register the routes. */
export function mountWorkspaces(app: Hono<AppEnv>, registry: WorkspaceRegistry): void {
  app.get("/v1/workspaces", async (c) => {
    const refused = adminRefusal(c.get("principal"), undefined) ?? queryRefusal(c, []);
    if (refused) return refused;
    return c.json({ workspaces: await registry.list() });
  });

  app.put("/v1/workspaces/:ws", async (c) => {
    const workspace = c.req.param("ws");
    const principal = c.get("principal");
    const refused = adminRefusal(principal, workspace);
    if (refused) return refused;
    const quota = quotaFromQuery(c);
    if (quota instanceof Response) return quota;
    // A workspace admin token of a deleted workspace may not create the name again (it would then own the new one).
    const stale = await staleTokenReason(registry, principal, true);
    if (stale) return errorResponse(401, "UNAUTHORIZED", `The signed bearer token is refused: ${stale}.`);
    const archive = await archiveOf(c);
    if (archive instanceof Response) return archive;
    const outcome = await registry.create(workspace, {
      ...(Object.keys(quota).length ? { quota } : {}),
      ...(archive ? { archive } : {}),
      // The quota is the platform's cap on the tenant: only a global admin raises it.
      mayRaiseQuota: principal.workspace === ALL_WORKSPACES,
    });
    return c.json({ created: outcome.created, ...outcome.info, ...(outcome.imported ? { imported: outcome.imported } : {}) }, outcome.created ? 201 : 200);
  });

  app.get("/v1/workspaces/:ws", async (c) => {
    const workspace = c.req.param("ws");
    const refused = adminRefusal(c.get("principal"), workspace);
    if (refused) return refused;
    const noQuery = queryRefusal(c, []);
    if (noQuery) return noQuery;
    const info = await registry.info(workspace);
    if (!info) return notReady(registry, workspace);
    return c.json(info);
  });

  app.get("/v1/workspaces/:ws/archive", async (c) => {
    const workspace = c.req.param("ws");
    const refused = adminRefusal(c.get("principal"), workspace);
    if (refused) return refused;
    const noQuery = queryRefusal(c, []);
    if (noQuery) return noQuery;
    if (!(await registry.info(workspace))) return notReady(registry, workspace);
    const stream = await registry.archive(workspace);
    return new Response(stream, {
      headers: { "content-type": "application/gzip", "content-disposition": `attachment; filename="${workspace}.tar.gz"` },
    });
  });

  app.delete("/v1/workspaces/:ws", async (c) => {
    const workspace = c.req.param("ws");
    const refused = adminRefusal(c.get("principal"), workspace);
    if (refused) return refused;
    const noQuery = queryRefusal(c, []);
    if (noQuery) return noQuery;
    if (!(await registry.remove(workspace))) return missing(workspace);
    return c.json({ deleted: true, workspace });
  });
}

function missing(workspace: string): Response {
  return errorResponse(404, "FS_NOT_FOUND", `Workspace ${JSON.stringify(workspace)} does not exist. Create it with PUT /v1/workspaces/${workspace}.`);
}

/** GET of a workspace that has no info: being imported (since when, what to do), or absent. */
async function notReady(registry: WorkspaceRegistry, workspace: string): Promise<Response> {
  const state = await registry.state(workspace);
  if (state.state !== "importing") return missing(workspace);
  return errorResponse(
    409,
    "FS_ALREADY_EXISTS",
    `Workspace ${JSON.stringify(workspace)} is being imported (state "importing", since ${state.since}) and is not ready yet. ` +
      `Wait for the PUT that imports it to answer; if that PUT died (its client went away or the server restarted), ` +
      `DELETE /v1/workspaces/${workspace} stops it, then PUT it again.`,
  );
}
