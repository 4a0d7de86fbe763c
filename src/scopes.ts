/**
 * What a token may do, defined once: tools declare the scope they need,
 * tokens (static, config, Worker secret, signed) carry a set of them, and
 * every schema that accepts scopes is built from this list. `admin` reaches
 * the workspace routes (/v1/workspaces), never a tool.
 */
export const SCOPES = ["read", "write", "exec", "admin"] as const;

/** One of {@link SCOPES}. */
export type Scope = (typeof SCOPES)[number];

/** The scopes a tool may need (every scope but admin). */
export const TOOL_SCOPES = ["read", "write", "exec"] as const satisfies readonly Scope[];

/** True when `value` names a scope. */
export function isScope(value: unknown): value is Scope {
  return (SCOPES as readonly unknown[]).includes(value);
}
