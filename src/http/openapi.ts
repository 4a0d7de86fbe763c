/**
 * The OpenAPI 3.1 description of the REST API, built once from the same tool
 * descriptors `GET /v1/tools` serves. Each tool gets its own path so that
 * generated clients get one typed operation per tool.
 */
import { ERROR_CODES } from "../errors.ts";
import { SCOPES } from "../scopes.ts";
import type { JsonSchema, ToolDescriptor } from "./catalog.ts";
import { FACTS_PROPERTIES } from "./facts-schema.ts";
import { historyPaths } from "./history-openapi.ts";
import { workspacePaths } from "./hosting/openapi.ts";
import { MAX_SESSION_ID_CHARS, SESSION_HEADER } from "./sessions.ts";

/** What the document needs to know about the host. */
export interface OpenApiOptions {
  readonly version: string;
  readonly tools: readonly ToolDescriptor[];
  /** False in no-auth mode: no security requirement is declared. */
  readonly bearer: boolean;
  readonly maxBodyBytes: number;
  /** True with hosted workspaces: the admin routes are described too. */
  readonly workspaces?: boolean;
}

const errorRef = { $ref: "#/components/schemas/Error" };

function errorResponse(description: string) {
  return { description, content: { "application/json": { schema: errorRef } } };
}

/**
 * An embedded tool schema: `$schema` is dropped (the document's dialect is
 * 2020-12 already) and, when it has `$defs`, an `$id` scopes its local
 * `#/$defs/...` references to itself instead of to the whole document.
 */
function embed(schema: JsonSchema, name: string): JsonSchema {
  const { $schema: _dialect, ...rest } = schema;
  return "$defs" in rest ? { $id: `urn:toolwarden:tool:${encodeURIComponent(name)}:input`, ...rest } : rest;
}

/** What every operation shares: the security requirement, the 401 when auth is on, the body limit. */
interface OperationContext {
  readonly security: unknown[];
  readonly authErrors: Record<string, unknown>;
  readonly maxBodyBytes: number;
  /** The X-Session-Id header parameter of every call. */
  readonly sessionParam: Record<string, unknown>;
}

/** Build the document. */
export function buildOpenApi(options: OpenApiOptions): Record<string, unknown> {
  const security = options.bearer ? [{ bearerAuth: [] }] : [];
  const sessionParam = {
    name: SESSION_HEADER,
    in: "header",
    required: false,
    description: `Observation session (what this caller has read). Without it the token is the session. 1-${MAX_SESSION_ID_CHARS} visible ASCII characters.`,
    schema: { type: "string", minLength: 1, maxLength: MAX_SESSION_ID_CHARS, pattern: "^[\\x21-\\x7e]+$" },
  };
  const authErrors = options.bearer ? { "401": errorResponse("Missing or invalid bearer token (code UNAUTHORIZED).") } : {};
  const context: OperationContext = { security, authErrors, maxBodyBytes: options.maxBodyBytes, sessionParam };

  const paths: Record<string, unknown> = { ...listingPaths(context), ...toolPaths(options.tools, context) };
  Object.assign(paths, historyPaths(security, authErrors));
  if (options.workspaces) Object.assign(paths, workspacePaths(security));
  paths["/v1/tools/{name}"] = callByNamePath(context);

  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "toolwarden",
      version: options.version,
      description:
        "Guarded file tools for AI agents. The same tools are served over MCP Streamable HTTP at /mcp. " +
        "Tool failures are 200 results with isError and a stable code; HTTP errors are for the transport.",
    },
    paths,
    components: {
      ...(options.bearer ? { securitySchemes: { bearerAuth: { type: "http", scheme: "bearer" } } } : {}),
      schemas: sharedSchemas(),
    },
  };
}

/** `/healthz` and `GET /v1/tools`: what is up, and which tools a token can use. */
function listingPaths(context: OperationContext): Record<string, unknown> {
  return {
    "/healthz": {
      get: {
        operationId: "healthz",
        summary: "Liveness and version",
        security: [],
        responses: {
          "200": {
            description: "The server is up.",
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  properties: { ok: { const: true }, version: { type: "string" } },
                  required: ["ok", "version"],
                },
              },
            },
          },
        },
      },
    },
    "/v1/tools": {
      get: {
        operationId: "listTools",
        summary: "The tools this token can use, with their input schemas",
        security: context.security,
        responses: {
          "200": {
            description: "Tools usable with the caller's scopes.",
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  properties: { tools: { type: "array", items: { $ref: "#/components/schemas/ToolDescriptor" } } },
                  required: ["tools"],
                },
              },
            },
          },
          ...context.authErrors,
          "403": errorResponse("Host or Origin not allowed (code FORBIDDEN)."),
        },
      },
    },
  };
}

/** One typed `POST /v1/tools/<name>` per tool, with the tool's input schema. */
function toolPaths(tools: readonly ToolDescriptor[], context: OperationContext): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const tool of tools) {
    paths[`/v1/tools/${encodeURIComponent(tool.name)}`] = {
      post: {
        operationId: `call_${tool.name}`,
        summary: firstLine(tool.description),
        description: tool.description,
        "x-toolwarden-scope": tool.scope,
        "x-toolwarden-annotations": tool.annotations,
        security: context.security,
        parameters: [context.sessionParam],
        requestBody: {
          required: true,
          content: { "application/json": { schema: embed(tool.inputSchema, tool.name) } },
        },
        responses: {
          "200": {
            description: "The tool's result. A tool failure is a result too: `isError` true with a stable `code`, written for the model.",
            content: { "application/json": { schema: { $ref: "#/components/schemas/ToolResult" } } },
          },
          "400": errorResponse("Body is not JSON, wrong Content-Type, or bad X-Session-Id (code INVALID_ARGUMENT)."),
          ...context.authErrors,
          "403": errorResponse("Host or Origin not allowed (code FORBIDDEN)."),
          "413": errorResponse(`Body over ${context.maxBodyBytes} bytes (code LIMIT_EXCEEDED).`),
        },
      },
    };
  }
  return paths;
}

/** `POST /v1/tools/{name}`: the untyped call by name. */
function callByNamePath(context: OperationContext): Record<string, unknown> {
  return {
    post: {
      operationId: "callToolByName",
      summary: "Call a tool by name (the per-tool paths above carry the input schemas)",
      security: context.security,
      parameters: [{ name: "name", in: "path", required: true, schema: { type: "string" } }, context.sessionParam],
      requestBody: { required: true, content: { "application/json": { schema: { type: "object" } } } },
      responses: {
        "200": {
          description: "The tool's result (see the per-tool operations).",
          content: { "application/json": { schema: { $ref: "#/components/schemas/ToolResult" } } },
        },
        "400": errorResponse("Body is not JSON, or wrong Content-Type (code INVALID_ARGUMENT)."),
        ...context.authErrors,
        "404": errorResponse("No tool of that name (code INVALID_ARGUMENT)."),
        "413": errorResponse(`Body over ${context.maxBodyBytes} bytes (code LIMIT_EXCEEDED).`),
      },
    },
  };
}

/** The schemas the operations refer to: errors, tool results and tool descriptors. */
function sharedSchemas(): Record<string, unknown> {
  return {
    ErrorCode: { type: "string", enum: [...ERROR_CODES] },
    Error: {
      type: "object",
      properties: {
        error: {
          type: "object",
          properties: { code: { $ref: "#/components/schemas/ErrorCode" }, message: { type: "string" } },
          required: ["code", "message"],
        },
      },
      required: ["error"],
    },
    TextBlock: {
      type: "object",
      properties: { type: { const: "text" }, text: { type: "string" } },
      required: ["type", "text"],
    },
    Notice: {
      type: "object",
      properties: {
        text: { type: "string" },
        source: {
          type: "object",
          properties: {
            kind: { enum: ["plugin", "tool", "server"] },
            plugin: { type: "string" },
            summary: { type: "string" },
          },
          required: ["kind"],
        },
      },
      required: ["text", "source"],
    },
    ToolResult: {
      type: "object",
      properties: {
        isError: { type: "boolean" },
        code: { $ref: "#/components/schemas/ErrorCode", description: "Present iff isError." },
        content: { type: "array", items: { $ref: "#/components/schemas/TextBlock" } },
        notices: { type: "array", items: { $ref: "#/components/schemas/Notice" } },
        facts: {
          type: "object",
          description: "What the result says, for programs: path, version, lines shown, changed ranges with fresh ids (absent when none apply).",
          properties: FACTS_PROPERTIES,
        },
      },
      required: ["isError", "content"],
    },
    ToolDescriptor: {
      type: "object",
      properties: {
        name: { type: "string" },
        description: { type: "string" },
        scope: { enum: [...SCOPES] },
        inputSchema: { type: "object", description: "JSON Schema (2020-12) of the arguments." },
        annotations: {
          type: "object",
          properties: {
            readOnlyHint: { type: "boolean" },
            destructiveHint: { type: "boolean" },
            idempotentHint: { type: "boolean" },
            openWorldHint: { type: "boolean" },
          },
        },
      },
      required: ["name", "description", "scope", "inputSchema", "annotations"],
    },
  };
}

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0].trim();
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}
