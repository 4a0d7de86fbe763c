/**
 * Signed bearer tokens (JWT, verified with `jose`, which runs on Bun, Deno
 * and Workers alike). A token carries its own grant, so a platform adds an
 * agent without touching the server:
 *
 * - `ws`: the workspace (`"*"`: every workspace, for a global admin only);
 * - `scope`: space-separated, from src/scopes.ts (read, write, exec, admin, audit);
 * - `exp`: required, at most `maxLifetimeSeconds` after `iat` (or after now);
 * - `nbf`, `iat`, `sub` (the label logs and audit show) and `aud`: optional.
 *
 * Algorithms: HS256 with a secret of 32 bytes or more, and EdDSA (Ed25519)
 * with a public JWK. Keys are chosen by `kid`; `alg: none` and any algorithm
 * no configured key has are refused. Failure reasons are fixed texts: they
 * never quote the token or its claims.
 */
import { errors, importJWK, jwtVerify, type JWK, type JWTPayload, type JWTVerifyGetKey } from "jose";
import { isScope, SCOPES, type Scope } from "../scopes.ts";

/** The scopes a signed token may grant (every scope). */
export const JWT_SCOPES = SCOPES;
/** One of {@link JWT_SCOPES}. */
export type JwtScope = Scope;

/** Shortest HS256 secret accepted (RFC 7518 §3.2: at least the hash size). */
export const MIN_HS256_SECRET_BYTES = 32;
/** Default longest lifetime of a token: one day. */
export const DEFAULT_MAX_LIFETIME_SECONDS = 24 * 60 * 60;

/** The workspace claim of a global admin token. */
export const ALL_WORKSPACES = "*";

/** Workspace names: one key-prefix or directory segment, so workspaces never nest. */
export const WORKSPACE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** A verification key. Without `kid` it verifies tokens that carry no `kid`. */
export type JwtKey =
  | { readonly kid?: string; readonly alg: "HS256"; readonly secret: Uint8Array }
  | { readonly kid?: string; readonly alg: "EdDSA"; readonly jwk: JWK };

/** How signed tokens are checked. */
export interface JwtOptions {
  readonly keys: readonly JwtKey[];
  /** Longest allowed `exp - iat` (and `exp - now`), in seconds. Default one day. */
  readonly maxLifetimeSeconds?: number;
  /** When set, the `aud` claim must name it. */
  readonly audience?: string;
  /** Seconds of clock skew forgiven on `exp` and `nbf` (default 0). */
  readonly clockToleranceSeconds?: number;
  /** The clock, in ms since the epoch (tests inject one). */
  readonly now?: () => number;
}

/** The grant a valid token carries. */
export interface JwtGrant {
  readonly kid?: string;
  readonly workspace: string;
  readonly scopes: readonly JwtScope[];
  readonly sub?: string;
  /** Seconds since the epoch. */
  readonly exp: number;
  /** When it was issued, seconds since the epoch (may have a fraction); hosted workspaces refuse tokens older than a deletion of their workspace. */
  readonly iat?: number;
}

/** Why a token was refused: a fixed reason (never token text). */
export type JwtRefusal = { readonly kind: "expired" | "not-yet-valid" | "invalid"; readonly reason: string };

/** Outcome of {@link JwtVerifier.verify}. */
export type JwtOutcome = { readonly ok: true; readonly grant: JwtGrant } | { readonly ok: false; readonly refusal: JwtRefusal };

/** Checks signed tokens against the configured keys. */
export interface JwtVerifier {
  verify(token: string): Promise<JwtOutcome>;
}

/** HS256 secret bytes of a key text: UTF-8 after trimming surrounding whitespace (mint and verify agree on this). */
export function secretBytes(text: string): Uint8Array {
  return new TextEncoder().encode(text.trim());
}

/** Whether `token` has the shape of a compact JWS (three base64url parts). */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
}

/** Throws (naming the key by index and kid, never its secret) when a key is unusable. */
export function checkJwtKeys(keys: readonly JwtKey[]): void {
  if (keys.length === 0) throw new Error("jwt: at least one key is required");
  const kids = new Set<string>();
  keys.forEach((key, i) => {
    const name = `jwt key #${i + 1}${key.kid === undefined ? "" : ` (kid ${JSON.stringify(key.kid)})`}`;
    const kid = key.kid ?? "";
    if (kids.has(kid)) throw new Error(`${name}: two keys have the same kid; give each key its own kid`);
    kids.add(kid);
    if (key.alg === "HS256") {
      if (!(key.secret instanceof Uint8Array) || key.secret.length < MIN_HS256_SECRET_BYTES) {
        throw new Error(`${name}: an HS256 secret must be at least ${MIN_HS256_SECRET_BYTES} bytes (e.g. openssl rand -hex 32)`);
      }
    } else if (key.alg === "EdDSA") {
      const jwk = key.jwk;
      if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || typeof jwk.x !== "string") {
        throw new Error(`${name}: an EdDSA key must be an Ed25519 public JWK {"kty":"OKP","crv":"Ed25519","x":"..."}`);
      }
      if (jwk.d !== undefined) throw new Error(`${name}: the server needs only the public key; remove "d" (the private part) from its JWK`);
    } else {
      throw new Error(`${name}: alg must be HS256 or EdDSA`);
    }
  });
}

/** Build a verifier. Throws on an unusable key set (see {@link checkJwtKeys}). */
export function createJwtVerifier(options: JwtOptions): JwtVerifier {
  checkJwtKeys(options.keys);
  const maxLifetime = options.maxLifetimeSeconds ?? DEFAULT_MAX_LIFETIME_SECONDS;
  if (!(maxLifetime > 0)) throw new Error("jwt: maxLifetimeSeconds must be positive");
  const tolerance = options.clockToleranceSeconds ?? 0;
  const now = options.now ?? (() => Date.now());
  const imported = new Map<JwtKey, Promise<CryptoKey | Uint8Array | JWK>>();
  const material = (key: JwtKey) => {
    let found = imported.get(key);
    if (!found) {
      found = key.alg === "HS256" ? Promise.resolve(key.secret) : importJWK({ ...key.jwk, alg: "EdDSA" }, "EdDSA");
      imported.set(key, found);
    }
    return found;
  };
  const getKey: JWTVerifyGetKey = (header) => {
    const key = options.keys.find((k) => (k.kid ?? undefined) === (header.kid ?? undefined) && k.alg === header.alg);
    if (!key) throw new NoMatchingKey();
    return material(key);
  };
  const algorithms = [...new Set(options.keys.map((k) => k.alg))];

  return {
    async verify(token) {
      let payload: JWTPayload;
      let kid: string | undefined;
      try {
        const verified = await jwtVerify(token, getKey, {
          algorithms,
          requiredClaims: ["exp"],
          currentDate: new Date(now()),
          clockTolerance: tolerance,
          ...(options.audience === undefined ? {} : { audience: options.audience }),
        });
        payload = verified.payload;
        kid = verified.protectedHeader.kid;
      } catch (error) {
        return { ok: false, refusal: refusalOf(error) };
      }
      return checkClaims(payload, kid, now() / 1000, maxLifetime, tolerance);
    },
  };
}

/** No configured key has the token's kid and alg. */
class NoMatchingKey extends Error {}

function refuse(reason: string): JwtOutcome {
  return { ok: false, refusal: { kind: "invalid", reason } };
}

/** The claims jose leaves to us: ws, scope, sub, and the lifetime bound. */
function checkClaims(payload: JWTPayload, kid: string | undefined, nowSeconds: number, maxLifetime: number, tolerance: number): JwtOutcome {
  const { ws, scope, sub, exp, iat } = payload as JWTPayload & { ws?: unknown; scope?: unknown };
  if (typeof ws !== "string" || !(ws === ALL_WORKSPACES || WORKSPACE_NAME.test(ws))) {
    return refuse('its ws claim must be a workspace name (1-128 of A-Z a-z 0-9 . _ -) or "*"');
  }
  if (typeof scope !== "string" || scope.trim() === "") return refuse(`its scope claim must be a space-separated list of ${SCOPES.join(", ")}`);
  const scopes = [...new Set(scope.trim().split(/\s+/))];
  if (!scopes.every(isScope)) {
    return refuse(`its scope claim may only contain ${SCOPES.join(", ")}`);
  }
  if (ws === ALL_WORKSPACES && !scopes.includes("admin")) return refuse('ws "*" is only for admin tokens (scope admin)');
  if (sub !== undefined && (typeof sub !== "string" || sub.length === 0 || sub.length > 128)) return refuse("its sub claim must be 1-128 characters");
  const expires = exp as number;
  const issued = typeof iat === "number" ? iat : undefined;
  // Whole seconds: `token mint` writes milliseconds, and a minting host a few ms ahead must not be refused.
  if (issued !== undefined && Math.floor(issued) > nowSeconds + tolerance) return refuse("its iat claim lies in the future");
  if (expires - (issued ?? nowSeconds) > maxLifetime + tolerance || expires - nowSeconds > maxLifetime + tolerance) {
    return refuse(`it lives longer than this server's maximum token lifetime of ${maxLifetime} s; mint one with a shorter ttl`);
  }
  return {
    ok: true,
    grant: {
      ...(kid === undefined ? {} : { kid }),
      workspace: ws,
      scopes: scopes as JwtScope[],
      ...(typeof sub === "string" ? { sub } : {}),
      exp: expires,
      ...(issued === undefined ? {} : { iat: issued }),
    },
  };
}

/** A fixed description of why jose refused a token. */
function refusalOf(error: unknown): JwtRefusal {
  if (error instanceof errors.JWTExpired) return { kind: "expired", reason: "it has expired (its exp is in the past)" };
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "nbf") return { kind: "not-yet-valid", reason: "it is not valid yet (its nbf is in the future)" };
    if (error.claim === "aud") return { kind: "invalid", reason: "its aud claim does not name this server" };
    if (error.claim === "exp") return { kind: "invalid", reason: "it has no valid exp claim (exp is required)" };
    return { kind: "invalid", reason: `its ${error.claim} claim is invalid` };
  }
  if (error instanceof errors.JOSEAlgNotAllowed)
    return { kind: "invalid", reason: "its alg is not accepted (this server takes HS256 and EdDSA with its configured keys)" };
  if (error instanceof NoMatchingKey) return { kind: "invalid", reason: "no key of this server matches its kid and alg" };
  if (error instanceof errors.JWSSignatureVerificationFailed) return { kind: "invalid", reason: "its signature does not verify" };
  return { kind: "invalid", reason: "it is not a well-formed signed token" };
}
