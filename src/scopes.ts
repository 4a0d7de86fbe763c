/**
 * What a token may do, defined once: tools declare the scope they need,
 * tokens (static, config, Worker secret, signed) carry a set of them, and every
 * schema that accepts scopes is built from this list. `read`, `write` and
 * `exec` are the tools'; `audit` reads the audit log and file history;
 * `admin` may also revert, and administers hosted workspaces
 * (/v1/workspaces); agents never need it.
 */
export const SCOPES = ["read", "write", "exec", "admin", "audit"] as const;

/** The scopes tools need: what an agent's token carries at most. */
export const TOOL_SCOPES = ["read", "write", "exec"] as const;

/** One of {@link SCOPES}. */
export type Scope = (typeof SCOPES)[number];

/** True when `value` names a scope. */
export function isScope(value: unknown): value is Scope {
  return (SCOPES as readonly unknown[]).includes(value);
}
