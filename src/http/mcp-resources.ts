/**
 * Workspace files as MCP resources: the `file:///{path}` template, a bounded
 * and paged `resources/list` (the files a search would walk: hidden and
 * gitignored entries left out, at most {@link MAX_LISTED} files), and
 * `resources/read` (UTF-8 text as `text`, anything else as a base64 `blob`,
 * each with a MIME type from the extension). With subscriptions (stdio and
 * stateful HTTP, where the server can send unrelated notifications), a subscribed file
 * changed by any write, edit or batch_edit through this host sends
 * `notifications/resources/updated`.
 *
 * Reading a resource records no observation: resources are for the client
 * and its user; the model's edits still need the model's own view.
 */
import type { Server } from "@modelcontextprotocol/sdk/server";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types";
import type { Resource } from "@modelcontextprotocol/sdk/types";
import { isCodedError } from "../errors.ts";
import { normalizeWorkspacePath } from "../storage/path.ts";
import { decodeText } from "../text/document.ts";
import { walkStats, walkTree } from "../tools/view/walk.ts";
import type { Principal } from "./auth.ts";
import type { ToolHost } from "./host.ts";

/** Files per `resources/list` page. */
export const PAGE_SIZE = 100;
/** Entries the listing walks at most; files past it are not listed (read them by URI). */
export const MAX_LISTED = 10_000;
/** Largest file `resources/read` returns. */
export const MAX_RESOURCE_BYTES = 8 * 1024 * 1024;
/** Subscriptions one session may hold at once (each keeps its path and URI in memory). */
export const MAX_SUBSCRIPTIONS = 1000;
/** MCP's "resource not found" error code. */
const RESOURCE_NOT_FOUND = -32002;

const URI_PREFIX = "file:///";

/** The resource URI of a workspace path. */
export function fileUri(path: string): string {
  return URI_PREFIX + path.split("/").map(encodeURIComponent).join("/");
}

/** The workspace path of a resource URI; McpError InvalidParams when it is not one of ours. */
export function pathOfUri(uri: string): string {
  if (!uri.startsWith(URI_PREFIX)) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Unsupported resource URI ${JSON.stringify(uri)}: workspace files are file:///{path}, e.g. file:///src/app.ts.`,
    );
  }
  try {
    return normalizeWorkspacePath(uri.slice(URI_PREFIX.length).split("/").map(decodeURIComponent).join("/"));
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new McpError(ErrorCode.InvalidParams, `Bad resource URI ${JSON.stringify(uri)} (${why}). Use a path inside the workspace, e.g. file:///src/app.ts.`);
  }
}

const MIME: Readonly<Record<string, string>> = {
  md: "text/markdown",
  txt: "text/plain",
  html: "text/html",
  htm: "text/html",
  css: "text/css",
  csv: "text/csv",
  js: "text/javascript",
  mjs: "text/javascript",
  cjs: "text/javascript",
  ts: "text/x-typescript",
  tsx: "text/x-typescript",
  json: "application/json",
  xml: "application/xml",
  yaml: "application/yaml",
  yml: "application/yaml",
  toml: "application/toml",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  ico: "image/x-icon",
  pdf: "application/pdf",
  wasm: "application/wasm",
  zip: "application/zip",
  gz: "application/gzip",
};

/** A MIME type from the extension; text/plain or application/octet-stream when it says nothing. */
export function mimeOf(path: string, text: boolean): string {
  const dot = path.lastIndexOf(".");
  const known = dot > path.lastIndexOf("/") ? MIME[path.slice(dot + 1).toLowerCase()] : undefined;
  return known ?? (text ? "text/plain" : "application/octet-stream");
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const n = /^\d{1,9}$/.test(cursor) ? Number(cursor) : NaN;
  if (!Number.isSafeInteger(n))
    throw new McpError(ErrorCode.InvalidParams, "Invalid cursor: pass the nextCursor of the previous resources/list page unchanged.");
  return n;
}

/** Who a request acts as (the server resolves it from the request's authInfo). */
export type PrincipalOf = (authInfo: AuthInfo | undefined) => Principal;

function needRead(principal: Principal): void {
  if (!principal.scopes.has("read")) {
    throw new McpError(ErrorCode.InvalidRequest, "This token lacks the read scope, so it cannot list or read resources.");
  }
}

/**
 * Register the resource handlers on `server`. `subscriptions` adds
 * subscribe/unsubscribe (only where unrelated notifications reach the
 * client). Returns the clean-up that drops the server's change listener.
 */
export function installResources(server: Server, host: ToolHost, principalOf: PrincipalOf, subscriptions: boolean): () => void {
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: "file:///{path}",
        name: "workspace-file",
        title: "Workspace file",
        description: "A file of the workspace by its path relative to the workspace root, e.g. file:///src/app.ts.",
      },
    ],
  }));

  server.setRequestHandler(ListResourcesRequestSchema, async (request, extra) => {
    const principal = principalOf(extra.authInfo);
    needRead(principal);
    const offset = offsetOf(request.params?.cursor);
    const storage = await host.storageOf(principal.workspace);
    const stats = walkStats();
    const resources: Resource[] = [];
    let seen = 0;
    for await (const entry of walkTree(storage, "", { depth: 64, hidden: false, gitignore: true, maxVisited: MAX_LISTED, signal: extra.signal }, stats)) {
      if (entry.kind !== "file") continue;
      if (seen++ < offset) continue;
      if (resources.length === PAGE_SIZE) return { resources, nextCursor: String(offset + PAGE_SIZE) };
      resources.push({ uri: fileUri(entry.path), name: entry.path, mimeType: mimeOf(entry.path, true), size: entry.size });
    }
    return { resources };
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const principal = principalOf(extra.authInfo);
    needRead(principal);
    const { uri } = request.params;
    const path = pathOfUri(uri);
    const storage = await host.storageOf(principal.workspace);
    let bytes: Uint8Array;
    try {
      bytes = (await storage.read(path, { maxBytes: MAX_RESOURCE_BYTES })).bytes;
    } catch (error) {
      throw readError(error, uri);
    }
    const decoded = decodeText(bytes);
    if (decoded.ok) return { contents: [{ uri, mimeType: mimeOf(path, true), text: decoded.text }] };
    return { contents: [{ uri, mimeType: mimeOf(path, false), blob: base64(bytes) }] };
  });

  if (!subscriptions) return () => {};
  const subscribed = new Map<string, string>(); // path -> the URI the client subscribed with
  let workspace: string | undefined;
  server.setRequestHandler(SubscribeRequestSchema, (request, extra) => {
    const principal = principalOf(extra.authInfo);
    needRead(principal);
    const path = pathOfUri(request.params.uri);
    if (!subscribed.has(path) && subscribed.size >= MAX_SUBSCRIPTIONS) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `This session already holds ${MAX_SUBSCRIPTIONS} resource subscriptions, the most it may; resources/unsubscribe some before subscribing to ${request.params.uri}.`,
      );
    }
    workspace = principal.workspace;
    subscribed.set(path, request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscribed.delete(pathOfUri(request.params.uri));
    return {};
  });
  return host.onFileChange((change) => {
    const uri = change.workspace === workspace ? subscribed.get(change.path) : undefined;
    if (uri !== undefined) void server.sendResourceUpdated({ uri }).catch(() => {});
  });
}

function readError(error: unknown, uri: string): McpError {
  const code = isCodedError(error) ? error.code : undefined;
  switch (code) {
    case "FS_NOT_FOUND":
      return new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}. resources/list shows the workspace's files.`, { uri });
    case "FS_IS_DIRECTORY":
      return new McpError(ErrorCode.InvalidParams, `${uri} is a directory; resources are files. resources/list shows the files under it.`);
    case "FS_INVALID_PATH":
    case "FS_ACCESS_DENIED":
      // The client named a path it may not read (the reserved .toolwarden/, a symlink out of the workspace): its error, not ours.
      return new McpError(
        ErrorCode.InvalidParams,
        `${uri} cannot be read as a resource: ${error instanceof Error ? error.message : String(error)}. resources/list shows the workspace's files.`,
        { uri },
      );
    case "FS_TOO_LARGE":
      return new McpError(
        ErrorCode.InvalidParams,
        `${uri} is over ${MAX_RESOURCE_BYTES} bytes, too large to read as a resource; read parts of it with the view tool (start/end).`,
      );
    default:
      return new McpError(ErrorCode.InternalError, `${uri} could not be read (${error instanceof Error ? error.message : String(error)}).`);
  }
}
