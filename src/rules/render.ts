import type { Notice, ToolResult } from "../result.ts";
import { hasFailureMarker } from "./markers.ts";
import { joinedTail } from "./scan-text.ts";
import type { RuleMatch, ScanReport } from "./types.ts";

/** Plugin name on notices, so UIs and logs can attribute them. */
export const LOUD_FAILURE_PLUGIN = "loud-failure";

const count = (n: number): string => n.toLocaleString("en-US");

function ruleList(matches: readonly RuleMatch[]): string {
  const ids = matches.map((m) => m.ruleId).join(", ");
  return matches.length === 1 ? `a rule (${ids})` : `rules (${ids})`;
}

/** `singular` for one rule, `plural` for several. */
function agree(matches: readonly RuleMatch[], singular: string, plural: string): string {
  return matches.length === 1 ? singular : plural;
}

function matchLines(match: RuleMatch): string {
  const lines = [`- ${match.ruleId} (${match.action}): ${match.message}`];
  // JSON quoting keeps a multi-line excerpt on one line and shows control characters.
  if (match.excerpt !== "") {
    const label = match.source === "value" ? "excerpt (structured value)" : "excerpt";
    lines.push(`  ${label}: ${JSON.stringify(match.excerpt)}`);
  }
  return lines.join("\n");
}

function scanNote(scan: ScanReport | undefined): string[] {
  const notes: string[] = [];
  if (scan?.skipped !== undefined) {
    const { from, to } = scan.skipped;
    notes.push(
      `Note: the output is ${count(scan.totalChars)} characters long; only the first ${count(from)} and the last ${count(scan.totalChars - to)} were checked (characters ${count(from)} to ${count(to)} were skipped).`,
    );
  }
  if (scan?.valueTruncated) notes.push("Note: the structured value was only checked up to the scan limit.");
  return notes;
}

/**
 * The blocked form of `result`: `isError`, code `RULE_BLOCKED`, a header that
 * names the tool and every matched rule (error rules first) with its message
 * and excerpt, then the line "The original tool output follows unchanged."
 * and the original content blocks unchanged. Notices already on the result
 * are kept. `scan` (from the evaluation) adds a note about skipped text.
 */
export function renderBlock(toolName: string, matches: readonly RuleMatch[], result: ToolResult, scan?: ScanReport): ToolResult {
  const errors = matches.filter((m) => m.action === "error");
  const named = errors.length > 0 ? errors : matches;
  const ordered = [...named, ...matches.filter((m) => !named.includes(m))];
  const reportedSuccess = !result.isError && !hasFailureMarker(joinedTail(result.content, 8192));
  const opening = reportedSuccess
    ? `[loud-failure] Tool "${toolName}" reported success, but its output matched ${ruleList(named)} that ${agree(named, "indicates", "indicate")} a silent failure. This result was marked as an error; do not treat the call as successful.`
    : `[loud-failure] Tool "${toolName}" failed, and its output matched ${ruleList(named)} that ${agree(named, "explains", "explain")} more about the failure. Do not treat the call as successful.`;
  const header = [opening, "", ...ordered.map(matchLines), ...scanNote(scan).flatMap((n) => ["", n]), "", "The original tool output follows unchanged."].join(
    "\n",
  );
  return {
    isError: true,
    code: "RULE_BLOCKED",
    content: [{ type: "text", text: header }, ...result.content],
    ...(result.notices !== undefined ? { notices: result.notices } : {}),
  };
}

/**
 * A notice for context matches, attributed to the loud-failure plugin: the
 * model is told which rules matched, why they matter and where, and to verify
 * before relying on the (unchanged) result.
 */
export function renderNotice(toolName: string, matches: readonly RuleMatch[], scan?: ScanReport): Notice {
  const ids = matches.map((m) => m.ruleId).join(", ");
  const text = [
    `[loud-failure] Notice for tool "${toolName}": its output matched ${ruleList(matches)} that often ${agree(matches, "means", "mean")} a silent failure. Verify before relying on this result.`,
    "",
    ...matches.map(matchLines),
    ...scanNote(scan).flatMap((n) => ["", n]),
  ].join("\n");
  return {
    text,
    source: { kind: "plugin", plugin: LOUD_FAILURE_PLUGIN, summary: `loud-failure: ${toolName} output matched ${ids}` },
  };
}
