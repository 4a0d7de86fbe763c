/**
 * The tools and listeners of local mode, shared by `serve` (Bun and Deno)
 * and `call`, so a call made from the shell goes through exactly what a
 * model's call goes through.
 */
import { createPipeline, type Pipeline } from "../pipeline/mod.ts";
import { installLoudFailure } from "../pipeline/loud-failure.ts";
import { installShellGuard } from "../pipeline/shell-guard.ts";
import { RuleConfigError } from "../rules/mod.ts";
import { DEFAULT_CALL_TIMEOUT_MS } from "../http/mod.ts";
import { createBashTool, MAX_BASH_TIMEOUT_MS } from "../tools/bash/run.ts";
import { fileTools } from "../tools/mod.ts";
import { DEFAULT_LIMITS, type ToolDef, type ToolLimits } from "../tools/types.ts";
import { StartupError } from "./errors.ts";
import type { ToolSettings } from "./settings.ts";

/** Room for the bash tool to report its own timeout before the call's limit cuts it off. */
const SHELL_MARGIN_MS = 5_000;

/**
 * The per-call time limit: the configured one, else the HTTP default (one
 * minute), raised with the shell so that the longest command a call may ask
 * for ends with bash's own "[timed out after Nms]" report rather than being
 * cut off by the call's limit.
 */
export function callTimeoutFor(settings: ToolSettings): number {
  if (settings.limits.callTimeoutMs !== undefined) return settings.limits.callTimeoutMs;
  if (!settings.shell.enabled) return DEFAULT_CALL_TIMEOUT_MS;
  return Math.max(MAX_BASH_TIMEOUT_MS, settings.shell.timeoutMs ?? 0) + SHELL_MARGIN_MS;
}

/**
 * The pipeline of local mode: the file tools, plus `bash` behind the shell
 * guard when the shell is enabled, and the loud-failure rules always (the
 * built-ins unless the config turns them off). `root` must be the real
 * (symlink-free) path of the served directory. Throws StartupError for a
 * rule table that does not load, naming the rule.
 */
export function buildPipeline(settings: ToolSettings, root: string, timeoutMs?: number): Pipeline {
  const tools: ToolDef[] = [...fileTools];
  if (settings.shell.enabled) {
    tools.push(createBashTool({ root, ...(settings.shell.timeoutMs !== undefined ? { timeoutMs: settings.shell.timeoutMs } : {}) }) as ToolDef);
  }
  const pipeline = createPipeline(tools, timeoutMs === undefined ? {} : { timeoutMs });
  if (settings.shell.enabled) {
    // The guard's default tool list is ["bash"], the one shell tool served here.
    installShellGuard(pipeline, { projectRoot: root });
  }
  try {
    installLoudFailure(pipeline, settings.rules);
  } catch (error) {
    if (error instanceof RuleConfigError) {
      throw new StartupError(`rules: ${error.ruleId === undefined ? "" : `rule "${error.ruleId}": `}${error.problem}`);
    }
    throw error;
  }
  return pipeline;
}

/** Configured tool limits with the defaults filled in. */
export function toolLimits(limits: Partial<ToolLimits>): ToolLimits {
  return {
    maxFileBytes: limits.maxFileBytes ?? DEFAULT_LIMITS.maxFileBytes,
    maxViewLines: limits.maxViewLines ?? DEFAULT_LIMITS.maxViewLines,
    maxOutputBytes: limits.maxOutputBytes ?? DEFAULT_LIMITS.maxOutputBytes,
    maxLineChars: limits.maxLineChars ?? DEFAULT_LIMITS.maxLineChars,
  };
}
