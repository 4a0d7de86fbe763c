/**
 * What an MCP server tells a client while and after it works: progress of a
 * long call (when the request carries a progressToken) and one log line per
 * call as `notifications/message`, at or above the level the client set with
 * `logging/setLevel`. Both are sent as notifications related to the call's
 * request, so over Streamable HTTP they travel on that request's response.
 */
import type { LoggingLevel, ServerNotification } from "@modelcontextprotocol/sdk/types";
import type { ToolResult } from "../result.ts";
import type { ProgressReporter } from "../tools/types.ts";

/** RFC 5424 severities in MCP's order, least severe first. */
const LEVELS: readonly LoggingLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/** Sends one notification related to the current request; a failure to send must never fail the call. */
export type Notify = (notification: ServerNotification) => Promise<void>;

/** The minimum level a session logs at; undefined: none until the client sets one (MCP leaves the default to the server). */
export interface LogLevel {
  current: LoggingLevel | undefined;
}

/** A new session's level: `initial`, or nothing until `logging/setLevel` when undefined. */
export function defaultLogLevel(initial: LoggingLevel | undefined): LogLevel {
  return { current: initial };
}

/** Whether `level` is at or above the session's minimum. */
export function logs(level: LoggingLevel, minimum: LogLevel): boolean {
  return minimum.current !== undefined && LEVELS.indexOf(level) >= LEVELS.indexOf(minimum.current);
}

/** A progress reporter for a request with `progressToken`, else undefined. */
export function progressFor(progressToken: string | number | undefined, notify: Notify): ProgressReporter | undefined {
  if (progressToken === undefined) return undefined;
  return (progress, message) => void notify({ method: "notifications/progress", params: { progressToken, progress, message } }).catch(() => {});
}

/** The per-call log line (what `serve` prints on stderr, without the time): `info` when ok, `warning` for a failure. */
export function logCall(tool: string, result: ToolResult, ms: number, minimum: LogLevel, notify: Notify): void {
  const level: LoggingLevel = result.isError ? "warning" : "info";
  if (!logs(level, minimum)) return;
  const outcome = result.isError ? result.code : "ok";
  void notify({
    method: "notifications/message",
    params: { level, logger: "toolwarden", data: { tool, outcome, ms: Math.round(ms), line: `${tool} ${outcome} ${Math.round(ms)}ms` } },
  }).catch(() => {});
}
