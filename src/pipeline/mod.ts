/** The tool-call pipeline: one path for every call, whatever the transport. */
export {
  createPipeline,
  type CallInfo,
  type CallOptions,
  type Pipeline,
  type PipelineOptions,
} from "./pipeline.ts";
export {
  addNotices,
  allow,
  blockResult,
  deny,
  type ListenerOptions,
  type PostExecuteListener,
  type PreDecision,
  type PreExecuteListener,
  type ToolCall,
} from "./listeners.ts";
export { validateArgs, type Validation, type ValidateOptions } from "./validate.ts";
export { renderResult } from "./render.ts";
export {
  installLoudFailure,
  loudFailureListener,
  LOUD_FAILURE_LISTENER,
  LOUD_FAILURE_ORDER,
} from "./loud-failure.ts";
export {
  installShellGuard,
  shellGuardListener,
  SHELL_GUARD_LISTENER,
  type ShellGuardInstallOptions,
} from "./shell-guard.ts";
