/** The HTTP host: REST + MCP over one Hono app, for every runtime. */
export {
  createApp,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  type AbortedRequest,
  type AppOptions,
  type HttpLimits,
} from "./app.ts";
export {
  ALL_SCOPES,
  createAuthenticator,
  type AuthFailure,
  type AuthOptions,
  type AuthOutcome,
  type Authenticator,
  type Principal,
  type Scope,
  type TokenGrant,
} from "./auth.ts";
export { annotationsOf, describeTool, inputSchemaOf, usableTools, type JsonSchema, type ToolDescriptor } from "./catalog.ts";
export type { HttpCallInfo, Transport } from "./host.ts";
export { hostMatcher, loopbackHosts, originMatcher, type HostPolicy } from "./hosts.ts";
export type { AppEnv } from "./middleware.ts";
export { DEFAULT_MCP_SESSIONS_PER_TOKEN, isInitialize, type McpMode, type McpOptions } from "./mcp.ts";
export { META_CODE, META_NOTICES, toMcpResult, toMcpTool } from "./mcp-server.ts";
export { buildOpenApi, type OpenApiOptions } from "./openapi.ts";
export type { ErrorBody } from "./responses.ts";
export { SESSION_HEADER, sessionKey, type SessionSource } from "./sessions.ts";
