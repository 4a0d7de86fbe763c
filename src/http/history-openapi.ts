/** The audit and history routes in the OpenAPI document (see ./history-routes.ts). */

const errorRef = { $ref: "#/components/schemas/Error" };
const error = (description: string) => ({ description, content: { "application/json": { schema: errorRef } } });
const json = (schema: unknown) => ({ "application/json": { schema } });

const fileState = {
  type: ["object", "null"],
  description: "One state of a file: null before a create or after a delete.",
  properties: {
    version: { type: "string", description: "The storage's version of the file." },
    blob: { type: "string", description: "Hex SHA-256 of the bytes (GET /v1/history/content serves them by version)." },
    size: { type: "integer" },
  },
  required: ["version", "blob", "size"],
};
const auditEntry = {
  type: "object",
  properties: {
    id: { type: "string", pattern: "^\\d{15}-[0-9a-f]{8}$", description: "Sortable id; a change id for POST /v1/revert." },
    time: { type: "string", format: "date-time" },
    principal: { type: "string", description: "The token's label or JWT sub, never the token." },
    session: { type: "string" },
    tool: { type: "string", description: "The tool, or revert for a revert made through the API." },
    paths: { type: "array", items: { type: "string" } },
    code: { type: "string", description: "OK, or the error code of a failed call." },
    changes: {
      type: "array",
      items: { type: "object", properties: { path: { type: "string" }, before: fileState, after: fileState }, required: ["path", "before", "after"] },
    },
    bytes: { type: "integer" },
    ms: { type: "number" },
    reverts: { type: "array", items: { type: "string" }, description: "For a revert: the ids of the entries it reverted." },
    args: { type: "string", description: "The call's arguments as JSON, cut at 4,096 characters." },
    result: { type: "string", description: "The text the model received, cut at 16,384 characters." },
  },
  required: ["id", "time", "principal", "session", "tool", "paths", "code", "changes", "bytes", "ms"],
};
const pathQuery = { name: "path", in: "query", required: true, description: "A workspace path, e.g. src/app.ts.", schema: { type: "string", minLength: 1 } };
const auditParams = [
  { name: "since", description: "Entries at or after this ISO 8601 time.", schema: { type: "string", format: "date-time" } },
  { name: "limit", description: "Page size (default 100).", schema: { type: "integer", minimum: 1, maximum: 1000 } },
  { name: "session", description: "Entries of this session only.", schema: { type: "string" } },
  { name: "principal", description: "Entries of this principal (label) only.", schema: { type: "string" } },
  { name: "cursor", description: "The cursor of the previous page.", schema: { type: "string", pattern: "^\\d{15}-[0-9a-f]{8}$" } },
  { name: "changes", description: "1 or true: entries that changed a file only.", schema: { type: "string", enum: ["1", "true", "0", "false"] } },
  { name: "path", description: "Entries naming or changing this path only.", schema: { type: "string" } },
].map((p) => ({ ...p, in: "query", required: false }));
const revertBody = {
  oneOf: [
    { type: "object", properties: { change: { type: "string", minLength: 1 } }, required: ["change"], additionalProperties: false },
    {
      type: "object",
      properties: { session: { type: "string", minLength: 1 }, principal: { type: "string", minLength: 1 } },
      required: ["session"],
      additionalProperties: false,
    },
    {
      type: "object",
      properties: { path: { type: "string", minLength: 1 }, version: { type: "string", minLength: 1 }, expect: { type: ["string", "null"] } },
      required: ["path", "version", "expect"],
      additionalProperties: false,
      description: "Put one file back to a version; expect is the version it has now (null: it does not exist).",
    },
  ],
};
const revertOutcome = {
  type: "object",
  properties: {
    ok: { type: "boolean", description: "False when any file was left alone (see conflicts)." },
    change: { type: "string", description: "The revert's own audit entry, when it changed anything." },
    reverted: {
      type: "array",
      items: {
        type: "object",
        properties: { path: { type: "string" }, action: { type: "string", enum: ["restored", "deleted", "recreated", "unchanged"] } },
        required: ["path", "action"],
      },
    },
    conflicts: {
      type: "array",
      items: {
        type: "object",
        properties: {
          path: { type: "string" },
          code: { type: "string" },
          reason: { type: "string", description: "What happened, and the call that goes on when there is one." },
          diff: { type: "string" },
          diffOf: { type: "string", enum: ["between"] },
        },
        required: ["path", "code", "reason", "diff"],
      },
    },
  },
  required: ["ok", "reverted", "conflicts"],
};

/** Paths of the audit and history routes; `refusals` are the document's 401 (when auth is on). */
export function historyPaths(security: unknown[], refusals: Record<string, unknown>): Record<string, unknown> {
  const denied = {
    ...refusals,
    "403": error("The token lacks the scope, or is a global admin token (each workspace has its own log) (code FORBIDDEN)."),
    "404": error("The workspace does not exist, or this server records no history (start it with a state directory)."),
  };
  const readers = "Scope audit or admin.";
  return {
    "/v1/audit": {
      get: {
        operationId: "listAudit",
        summary: "The workspace's audit log, oldest first, paged",
        description: readers,
        security,
        parameters: auditParams,
        responses: {
          "200": {
            description: "One page; cursor is absent on the last.",
            content: json({ type: "object", properties: { entries: { type: "array", items: auditEntry }, cursor: { type: "string" } }, required: ["entries"] }),
          },
          "400": error("A parameter is unknown or malformed; the message says which and what it takes (code INVALID_ARGUMENT)."),
          ...denied,
        },
      },
    },
    "/v1/history": {
      get: {
        operationId: "fileHistory",
        summary: "A file's versions, newest first, each with the change that made it",
        description: readers,
        security,
        parameters: [pathQuery],
        responses: {
          "200": {
            description: "The versions kept.",
            content: json({
              type: "object",
              properties: {
                path: { type: "string" },
                versions: {
                  type: "array",
                  items: {
                    type: "object",
                    properties: {
                      change: { type: "string" },
                      time: { type: "string", format: "date-time" },
                      tool: { type: "string" },
                      principal: { type: "string" },
                      session: { type: "string" },
                      before: fileState,
                      after: fileState,
                    },
                    required: ["change", "time", "tool", "principal", "session", "before", "after"],
                  },
                },
              },
              required: ["path", "versions"],
            }),
          },
          "400": error("?path= is missing or not a workspace path (code INVALID_ARGUMENT)."),
          ...denied,
        },
      },
    },
    "/v1/history/content": {
      get: {
        operationId: "fileVersionContent",
        summary: "The bytes of one version of a file",
        description: readers,
        security,
        parameters: [pathQuery, { name: "version", in: "query", required: true, description: "A version from GET /v1/history.", schema: { type: "string" } }],
        responses: {
          "200": {
            description: "The bytes; the header x-toolwarden-version repeats the version.",
            content: { "application/octet-stream": { schema: { type: "string", contentMediaType: "application/octet-stream" } } },
          },
          "400": error("?path= or ?version= is missing or malformed (code INVALID_ARGUMENT)."),
          ...denied,
          "404": error(
            "The version is not in the file's history or no longer kept (code FS_NOT_FOUND), the workspace does not exist, or no history is recorded.",
          ),
        },
      },
    },
    "/v1/revert": {
      post: {
        operationId: "revert",
        summary: "Undo a change or a session's changes, or put one file back to a version, by compare-and-swap",
        description:
          "Scope admin. A file someone changed since is left alone and listed in conflicts with the call that goes on. The revert is itself recorded.",
        security,
        requestBody: { required: true, content: json(revertBody) },
        responses: {
          "200": { description: "What was put back and what was left alone.", content: json(revertOutcome) },
          "400": error("The body is not one of the three forms (code INVALID_ARGUMENT)."),
          "409": error("A session's changes are by more than one principal: name one (code EDIT_CONFLICT)."),
          ...denied,
          "404": error("No such change, session or version in this workspace's log; or the workspace does not exist, or no history is recorded."),
        },
      },
    },
  };
}
