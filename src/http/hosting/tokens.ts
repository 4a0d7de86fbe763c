/**
 * Signed tokens bound to one creation of their workspace. A token names its
 * workspace by name only and cannot be revoked, so when a workspace is
 * deleted and a new one is created under the same name, every unexpired
 * token of the old one (agent, audit, workspace admin) would reach the new
 * one. The registry remembers when a name was last deleted; a signed token
 * bound to that name and issued no later than that (its `iat`) is refused
 * with 401. Tokens minted after the DELETE work, so "mint, then create" and
 * old tokens of a workspace never deleted keep working. Static tokens are
 * the operator's own configuration and are not bound; global admin tokens
 * (ws "*") reach every workspace anyway.
 */
import type { Authenticator, Principal } from "../auth.ts";
import { ALL_WORKSPACES } from "../jwt.ts";
import type { WorkspaceRegistry } from "./registry.ts";

/** `auth`, refusing signed tokens issued before their workspace's name was last deleted. */
export function incarnationBoundAuth(auth: Authenticator, registry: WorkspaceRegistry): Authenticator {
  return {
    required: auth.required,
    async authenticate(authorization) {
      const outcome = await auth.authenticate(authorization);
      if (!outcome.ok) return outcome;
      const reason = await staleTokenReason(registry, outcome.principal, false);
      return reason === undefined ? outcome : { ok: false, failure: "invalid", reason };
    },
  };
}

/** Why `principal`'s token belongs to an earlier workspace of its name (`orDeleted`: also while the name is deleted), or undefined. */
export function staleTokenReason(registry: WorkspaceRegistry, principal: Principal, orDeleted: boolean): Promise<string | undefined> {
  if (!principal.signed || principal.workspace === ALL_WORKSPACES) return Promise.resolve(undefined);
  return registry.staleToken(principal.workspace, principal.signed.iat, orDeleted);
}
