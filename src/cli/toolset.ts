/**
 * The tools and listeners of local mode, shared by `serve` (Bun and Deno)
 * and `call`, so a call made from the shell goes through exactly what a
 * model's call goes through.
 */
import { createPipeline, type Pipeline } from "../pipeline/mod.ts";
import { installLoudFailure } from "../pipeline/loud-failure.ts";
import { installShellGuard } from "../pipeline/shell-guard.ts";
import { RuleConfigError } from "../rules/mod.ts";
import { createBashTool } from "../tools/bash.ts";
import { fileTools } from "../tools/mod.ts";
import type { ToolDef } from "../tools/types.ts";
import { viewTool } from "../tools/view/view.ts";
import { StartupError } from "./errors.ts";
import type { ToolSettings } from "./settings.ts";

/** The file tools, `view` first (added here until `fileTools` carries it). */
function baseTools(): ToolDef[] {
  return fileTools.some((t) => t.name === viewTool.name) ? [...fileTools] : [viewTool as ToolDef, ...fileTools];
}

/**
 * The pipeline of local mode: the file tools, plus `bash` behind the shell
 * guard when the shell is enabled, and the loud-failure rules always (the
 * built-ins unless the config turns them off). `root` must be the real
 * (symlink-free) path of the served directory. Throws StartupError for a
 * rule table that does not load, naming the rule.
 */
export function buildPipeline(settings: ToolSettings, root: string, timeoutMs?: number): Pipeline {
  const tools = baseTools();
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
