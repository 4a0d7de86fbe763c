/** The per-call log line of `serve`. */
import type { HttpCallInfo } from "../http/mod.ts";

/**
 * One line per finished call: time, transport, tool, code or `ok`, ms, and
 * the principal when several tokens share the server. Never arguments or
 * tokens: the log may be shared.
 */
export function formatCallLine(info: HttpCallInfo, now: Date, showPrincipal = false): string {
  const outcome = info.isError ? (info.code ?? "INTERNAL_ERROR") : "ok";
  const who = showPrincipal ? ` ${info.principal}` : "";
  return `${now.toISOString()} ${info.transport} ${info.tool} ${outcome} ${Math.round(info.ms)}ms${who}`;
}
