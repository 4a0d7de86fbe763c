/**
 * Transport-level error responses. A tool failure is never one of these (it
 * is a 200 with `isError: true`); these are for requests the host could not
 * take at all. Each carries a stable code and a message that says how to fix
 * the request, because the reader is often a harness author at a terminal.
 */
import type { ErrorCode } from "../errors.ts";
import { codeInfo } from "../tools/support/codes.ts";

/** The JSON body of every transport error: `{ error: { code, message } }`. */
export interface ErrorBody {
  readonly error: { readonly code: ErrorCode; readonly message: string };
}

/** A JSON error response with the given status, code and fix-it message. */
export function errorResponse(status: number, code: ErrorCode, message: string, headers: Record<string, string> = {}): Response {
  const body: ErrorBody = { error: { code, message } };
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

/**
 * The HTTP status for an error code raised outside a tool call (e.g. by
 * `storageFor`): the code table's (src/tools/support/codes.ts).
 */
export function statusForCode(code: ErrorCode): number {
  return codeInfo(code).status;
}

/** A JSON-RPC error response, for refusals on `/mcp` that MCP clients must parse as protocol errors. */
export function jsonRpcErrorResponse(status: number, rpcCode: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: rpcCode, message }, id: null }), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}
