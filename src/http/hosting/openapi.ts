/** The provisioning routes in the OpenAPI document (see ./routes.ts). */

const errorRef = { $ref: "#/components/schemas/Error" };
const error = (description: string) => ({ description, content: { "application/json": { schema: errorRef } } });
const wsParam = {
  name: "ws",
  in: "path",
  required: true,
  description: "Workspace name: 1-128 of A-Z a-z 0-9 . _ - starting with a letter or digit.",
  schema: { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$" },
};
const usage = {
  type: "object",
  properties: { bytes: { type: "integer" }, files: { type: "integer" } },
  required: ["bytes", "files"],
};
const info = {
  type: "object",
  properties: {
    workspace: { type: "string" },
    createdAt: { type: "string", format: "date-time" },
    usage,
    quota: { type: "object", properties: { maxBytes: { type: "integer" }, maxFiles: { type: "integer" } }, required: ["maxBytes", "maxFiles"] },
  },
  required: ["workspace", "createdAt", "usage", "quota"],
};
const json = (schema: unknown) => ({ "application/json": { schema } });
const refusals = {
  "401": error("Missing, invalid, expired or not-yet-valid token (code UNAUTHORIZED)."),
  "403": error("The token lacks the admin scope or administers another workspace (code FORBIDDEN)."),
};

/** Paths of the admin routes, with the document's security requirement. */
export function workspacePaths(security: unknown[]): Record<string, unknown> {
  const quotaParams = ["maxBytes", "maxFiles"].map((name) => ({
    name,
    in: "query",
    required: false,
    description: `Quota override at creation (default from the server's configuration).`,
    schema: { type: "integer", minimum: 1 },
  }));
  return {
    "/v1/workspaces": {
      get: {
        operationId: "listWorkspaces",
        summary: "Every workspace (global admin token only)",
        security,
        responses: {
          "200": {
            description: "Workspace names.",
            content: json({ type: "object", properties: { workspaces: { type: "array", items: { type: "string" } } } }),
          },
          ...refusals,
        },
      },
    },
    "/v1/workspaces/{ws}": {
      parameters: [wsParam],
      put: {
        operationId: "createWorkspace",
        summary: "Create a workspace (idempotent), optionally seeded from a tar or tar.gz body",
        security,
        parameters: quotaParams,
        requestBody: {
          required: false,
          content: {
            "application/x-tar": { schema: { type: "string", format: "binary" } },
            "application/gzip": { schema: { type: "string", format: "binary" } },
          },
        },
        responses: {
          "201": { description: "Created.", content: json({ ...info, properties: { ...info.properties, created: { const: true } } }) },
          "200": { description: "It existed already.", content: json({ ...info, properties: { ...info.properties, created: { const: false } } }) },
          "400": error("A refused archive: every offending entry is named (code INVALID_ARGUMENT)."),
          "409": error("An archive for a workspace that exists (code FS_ALREADY_EXISTS)."),
          "413": error("Over an import limit or the quota (code LIMIT_EXCEEDED)."),
          "415": error("A body that is neither tar nor gzip."),
          ...refusals,
        },
      },
      get: {
        operationId: "getWorkspace",
        summary: "Usage and quota",
        security,
        responses: { "200": { description: "The workspace.", content: json(info) }, "404": error("No such workspace (code FS_NOT_FOUND)."), ...refusals },
      },
      delete: {
        operationId: "deleteWorkspace",
        summary: "Remove the workspace's files, usage and sessions",
        security,
        responses: {
          "200": { description: "Deleted.", content: json({ type: "object", properties: { deleted: { const: true }, workspace: { type: "string" } } }) },
          "404": error("No such workspace (code FS_NOT_FOUND)."),
          ...refusals,
        },
      },
    },
    "/v1/workspaces/{ws}/archive": {
      parameters: [wsParam],
      get: {
        operationId: "exportWorkspace",
        summary: "The workspace's files as a tar.gz stream",
        security,
        responses: {
          "200": { description: "tar.gz", content: { "application/gzip": { schema: { type: "string", format: "binary" } } } },
          "404": error("No such workspace (code FS_NOT_FOUND)."),
          ...refusals,
        },
      },
    },
  };
}
