/**
 * Bearer-token authentication: a token maps to one workspace and a set of
 * scopes. Static tokens are compared as SHA-256 digests with a loop that
 * always visits every configured token and every byte, so response timing
 * says nothing about which token, or which prefix of one, came close.
 * Signed tokens (JWT, see ./jwt.ts) carry their grant and are checked
 * against the configured keys when no static token matches.
 */
import { isScope, SCOPES, type Scope, TOOL_SCOPES } from "../scopes.ts";
import { createJwtVerifier, type JwtGrant, looksLikeJwt, type JwtOptions, type JwtVerifier } from "./jwt.ts";

export type { Scope };
/** Every tool scope, in a stable order (what local mode without auth holds). */
export const ALL_SCOPES: readonly Scope[] = TOOL_SCOPES;

/** One configured token. */
export interface TokenGrant {
  /** The secret the client sends as `Authorization: Bearer <token>`. */
  readonly token: string;
  /** The workspace the token reaches (`storageFor` receives it). */
  readonly workspace: string;
  readonly scopes: readonly Scope[];
  /** A name for logs (`onCall`); never the token itself. */
  readonly label?: string;
}

/**
 * How requests are authenticated. `none` is for loopback local mode only
 * (the CLI enforces that); every request then acts as one local principal.
 */
export type AuthOptions =
  | { readonly mode: "bearer"; readonly tokens: readonly TokenGrant[]; readonly jwt?: JwtOptions }
  | { readonly mode: "none"; readonly workspace: string; readonly scopes?: readonly Scope[] };

/** The authenticated caller of one request. */
export interface Principal {
  /**
   * Stable, non-secret id: a SHA-256 prefix of the token (or `local` without
   * auth); for a signed token a SHA-256 prefix of its kid, sub, ws and scopes
   * ({@link signedPrincipalId}), so every token minted for one agent with
   * one grant is the same principal, and a token with other scopes is
   * another. Session keys (observations, MCP sessions, their bounded shares)
   * use it, so it must never be the token itself.
   */
  readonly id: string;
  /** For logs: the grant's label (a signed token's `sub`), else `id`. */
  readonly label: string;
  /** The workspace; `"*"` for a global admin token (which reaches no tool). */
  readonly workspace: string;
  readonly scopes: ReadonlySet<Scope>;
  /** Signed tokens only (static tokens: undefined): `iat`, seconds, when the token has one. See ./hosting/tokens.ts. */
  readonly signed?: { readonly iat?: number };
}

/** Why a request was not authenticated. */
export type AuthFailure = "missing" | "malformed" | "invalid" | "expired" | "not-yet-valid";

/** Outcome of {@link Authenticator.authenticate}. `reason` (signed tokens) is fixed text, never the token. */
export type AuthOutcome =
  | { readonly ok: true; readonly principal: Principal }
  | { readonly ok: false; readonly failure: AuthFailure; readonly reason?: string };

/** Turns an `Authorization` header into a principal. */
export interface Authenticator {
  /** True when requests need a token (bearer mode). */
  readonly required: boolean;
  authenticate(authorization: string | null | undefined): Promise<AuthOutcome>;
}

interface Entry {
  readonly digest: Uint8Array;
  readonly principal: Principal;
}

const encoder = new TextEncoder();

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function checkScopes(scopes: readonly unknown[], where: string): Scope[] {
  for (const scope of scopes) {
    if (!isScope(scope)) {
      throw new Error(`${where}: unknown scope ${JSON.stringify(scope)}; use ${SCOPES.join(", ")}`);
    }
  }
  return [...new Set(scopes as Scope[])];
}

/**
 * Build the authenticator. Throws on a malformed table (empty or duplicate
 * token, empty workspace, unknown scope), because a server that starts with a
 * broken token table would fail every request later instead.
 */
export function createAuthenticator(options: AuthOptions): Authenticator {
  if (options.mode === "none") {
    if (!options.workspace) throw new Error("auth none: a workspace is required");
    const principal: Principal = {
      id: "local",
      label: "local",
      workspace: options.workspace,
      scopes: new Set(checkScopes(options.scopes ?? TOOL_SCOPES, "auth none")),
    };
    const outcome: AuthOutcome = { ok: true, principal };
    return { required: false, authenticate: () => Promise.resolve(outcome) };
  }

  const jwt = options.jwt ? createJwtVerifier(options.jwt) : undefined;
  const seen = new Set<string>();
  options.tokens.forEach((grant, i) => {
    if (typeof grant.token !== "string" || grant.token.length === 0) throw new Error(`token #${i + 1}: the token is empty`);
    if (/\s/.test(grant.token)) throw new Error(`token #${i + 1}: a token cannot contain whitespace`);
    if (seen.has(grant.token)) throw new Error(`token #${i + 1}: the same token is configured twice`);
    seen.add(grant.token);
    if (!grant.workspace) throw new Error(`token #${i + 1}: a workspace is required`);
    checkScopes(grant.scopes, `token #${i + 1}`);
  });

  // Digests are computed once, lazily, because crypto.subtle is async and the factory is not.
  let entries: Promise<Entry[]> | undefined;
  const table = () =>
    (entries ??= Promise.all(
      options.tokens.map(async (grant): Promise<Entry> => {
        const digest = await sha256(grant.token);
        const id = `t_${hex(digest.subarray(0, 8))}`;
        return {
          digest,
          principal: {
            id,
            label: grant.label ?? id,
            workspace: grant.workspace,
            scopes: new Set(checkScopes(grant.scopes, "token")),
          },
        };
      }),
    ));

  return {
    required: true,
    async authenticate(authorization) {
      if (!authorization) return { ok: false, failure: "missing" };
      const match = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
      if (!match) return { ok: false, failure: "malformed" };
      const presented = await sha256(match[1]);
      let found: Principal | undefined;
      for (const entry of await table()) {
        if (digestsEqual(entry.digest, presented)) found = entry.principal;
      }
      if (found) return { ok: true, principal: found };
      if (jwt && looksLikeJwt(match[1])) return signedPrincipal(jwt, match[1]);
      return { ok: false, failure: "invalid" };
    },
  };
}

/** Compare two equal-length digests without an early exit. */
function digestsEqual(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ (b[i] ?? 0);
  return diff === 0;
}

/** The principal of a signed token, or why it was refused. */
async function signedPrincipal(jwt: JwtVerifier, token: string): Promise<AuthOutcome> {
  const outcome = await jwt.verify(token);
  if (!outcome.ok) {
    const failure: AuthFailure = outcome.refusal.kind === "invalid" ? "invalid" : outcome.refusal.kind;
    return { ok: false, failure, reason: outcome.refusal.reason };
  }
  const { sub, workspace } = outcome.grant;
  const scopes = canonicalScopes(outcome.grant.scopes);
  const id = await signedPrincipalId(outcome.grant);
  const signed = outcome.grant.iat === undefined ? {} : { iat: outcome.grant.iat };
  return { ok: true, principal: { id, label: sub ?? id, workspace, scopes: new Set(scopes), signed } };
}

/** `scopes` without repeats, in the order of {@link SCOPES}: how a token orders its scope claim changes nothing. */
export function canonicalScopes(scopes: Iterable<Scope>): Scope[] {
  const have = new Set(scopes);
  return SCOPES.filter((scope) => have.has(scope));
}

/**
 * The principal id of a signed token's grant: a SHA-256 prefix of its kid,
 * sub, ws and scopes (in canonical order). Scopes are part of it, so a
 * read-only token is never the principal of a writer minted for the same
 * agent: it has its own observation sessions (it cannot refresh the
 * writer's), its own MCP sessions (the writer's answer it 404) and its own
 * bounded shares. The same label, scopes and ws (and key) give the same
 * principal whatever the token's lifetime: an agent's identity across
 * re-minted tokens.
 */
export async function signedPrincipalId(grant: Pick<JwtGrant, "kid" | "sub" | "workspace" | "scopes">): Promise<string> {
  // Injective over (kid, sub, ws, scopes): JSON keeps the parts apart whatever they contain.
  const parts = [grant.kid ?? null, grant.sub ?? null, grant.workspace, canonicalScopes(grant.scopes)];
  return `j_${hex((await sha256(JSON.stringify(parts))).subarray(0, 8))}`;
}
