import type { ToolResult } from "../result.ts";
import { excerptAround } from "./excerpt.ts";
import { hasFailureMarker } from "./markers.ts";
import { joinedLength, joinedTail, stripAnsi, textWindows, type Segment } from "./scan-text.ts";
import { valueText } from "./scan-value.ts";
import type { CompiledRule, Evaluation, RuleMatch, RuleSet, ScanReport } from "./types.ts";

// Markers sit in the last lines; this much tail is enough to read them.
const MARKER_TAIL_CHARS = 8192;

function appliesToTool(rule: CompiledRule, toolName: string, shellTools: readonly string[]): boolean {
  if (rule.tools === "*") return true;
  return (rule.tools.length === 0 ? shellTools : rule.tools).includes(toolName);
}

function appliesWhen(rule: CompiledRule, failed: boolean): boolean {
  return rule.when === "any" || (rule.when === "error") === failed;
}

function valueSegments(value: unknown, budget: number): { segments: Segment[]; truncated: boolean } {
  try {
    const rendered = valueText(value, budget);
    return {
      segments: [
        { text: stripAnsi(rendered.strings), source: "value" },
        { text: rendered.json, source: "value" },
      ],
      truncated: rendered.truncated,
    };
  } catch {
    // A value whose getters or toJSON throw cannot be scanned; its text still was.
    return { segments: [], truncated: true };
  }
}

/** `text` whole when it fits `max`, else its first and last halves (cut at a line break when one is near). */
function rulePieces(text: string, max: number): readonly string[] {
  if (text.length <= max) return [text];
  const half = Math.floor(max / 2);
  let head = text.slice(0, half);
  let tail = text.slice(text.length - (max - half));
  const lastBreak = head.lastIndexOf("\n");
  if (lastBreak >= head.length / 2) head = head.slice(0, lastBreak + 1);
  const firstBreak = tail.indexOf("\n");
  if (firstBreak >= 0 && firstBreak < tail.length / 2) tail = tail.slice(firstBreak + 1);
  return [head, tail];
}

function firstMatch(rule: CompiledRule, segments: readonly Segment[], excerptChars: number): RuleMatch | undefined {
  for (const segment of segments) {
    // A rule reads at most its own `scanChars` of a window: for RE2 rules this bounds the work (see pattern.ts).
    for (const piece of rulePieces(segment.text, rule.scanChars)) {
      const hit = rule.find(piece);
      if (hit === undefined) continue;
      return {
        ruleId: rule.id,
        action: rule.action as "error" | "context",
        message: rule.message,
        excerpt: excerptAround(piece, hit.start, hit.end, excerptChars),
        source: segment.source,
        builtin: rule.builtin,
      };
    }
  }
  return undefined;
}

/**
 * Match `result` from tool `toolName` against the rules that apply to it:
 * the tool filter, the `when` filter (a result is failed when `isError` or
 * its text ends with a shell failure marker) and not `off`. With
 * `scanValue`, the structured `value` is scanned too (bounded). Outputs
 * longer than `maxScanChars` are scanned at head and tail; `scan` reports the
 * skipped middle. A user rule with a large RE2 program reads less of each
 * window (its `scanChars`), so its work stays bounded. Pure: no I/O, no
 * state kept between calls.
 */
export function evaluate(ruleSet: RuleSet, toolName: string, result: ToolResult, value?: unknown): Evaluation {
  const failed = result.isError || hasFailureMarker(joinedTail(result.content, MARKER_TAIL_CHARS));
  const rules = ruleSet.rules.filter((rule) => rule.action !== "off" && appliesToTool(rule, toolName, ruleSet.shellTools) && appliesWhen(rule, failed));
  if (rules.length === 0) {
    return {
      verdict: "pass",
      failed,
      matches: [],
      errors: [],
      contexts: [],
      scan: { totalChars: joinedLength(result.content), scannedChars: 0 },
    };
  }

  const windows = textWindows(result.content, ruleSet.maxScanChars);
  const segments = [...windows.segments];
  let valueTruncated: boolean | undefined;
  if (ruleSet.scanValue && value !== undefined) {
    const rendered = valueSegments(value, Math.floor(ruleSet.maxScanChars / 2));
    segments.push(...rendered.segments);
    valueTruncated = rendered.truncated;
  }

  const errors: RuleMatch[] = [];
  const contexts: RuleMatch[] = [];
  for (const rule of rules) {
    const match = firstMatch(rule, segments, ruleSet.excerptChars);
    if (match !== undefined) (match.action === "error" ? errors : contexts).push(match);
  }
  const scan: ScanReport = {
    totalChars: windows.totalChars,
    scannedChars: windows.scannedChars,
    ...(windows.skipped !== undefined ? { skipped: windows.skipped } : {}),
    ...(valueTruncated !== undefined ? { valueTruncated } : {}),
  };
  return {
    verdict: errors.length > 0 ? "block" : contexts.length > 0 ? "notice" : "pass",
    failed,
    matches: [...errors, ...contexts],
    errors,
    contexts,
    scan,
  };
}
