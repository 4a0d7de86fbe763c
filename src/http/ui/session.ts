/**
 * The inspector's sign-in: the pasted token rides in an HttpOnly,
 * SameSite=Strict cookie scoped to /ui, and is authenticated on every
 * request exactly as a bearer token is (the same authenticator). Mutating
 * forms carry a per-session CSRF token (a second cookie, echoed in the
 * form) and must come from this origin.
 */
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Authenticator, Principal } from "../auth.ts";
import type { AppEnv } from "../middleware.ts";

export const TOKEN_COOKIE = "tw_ui_token";
export const CSRF_COOKIE = "tw_ui_csrf";
/** A browser sign-in lasts a working day; the token itself may be revoked sooner. */
const MAX_AGE_S = 12 * 3600;

/** A signed-in inspector user. */
export interface UiSession {
  readonly principal: Principal;
  /** The bearer token (from the cookie), for calls to the app's own API. */
  readonly token: string;
  /** The CSRF token every mutating form carries. */
  readonly csrf: string;
}

/** The scopes that may use the inspector: `audit` reads, `admin` also reverts. */
export function mayInspect(principal: Principal): boolean {
  return principal.scopes.has("audit") || principal.scopes.has("admin");
}

/** The signed-in session of this request, or undefined (no cookie, a revoked token, or a token without audit/admin). */
export async function currentSession(c: Context<AppEnv>, auth: Authenticator): Promise<UiSession | undefined> {
  const token = getCookie(c, TOKEN_COOKIE);
  const csrf = getCookie(c, CSRF_COOKIE);
  if (!token || !csrf || /\s/.test(token)) return undefined;
  const outcome = await auth.authenticate(`Bearer ${token}`);
  if (!outcome.ok || !mayInspect(outcome.principal)) return undefined;
  return { principal: outcome.principal, token, csrf };
}

function secure(c: Context<AppEnv>): boolean {
  return new URL(c.req.url).protocol === "https:";
}

/** Set both cookies (a fresh CSRF token per sign-in). */
export function startSession(c: Context<AppEnv>, token: string): void {
  const options = { path: "/ui", httpOnly: true, sameSite: "Strict" as const, secure: secure(c), maxAge: MAX_AGE_S };
  setCookie(c, TOKEN_COOKIE, token, options);
  setCookie(c, CSRF_COOKIE, randomHex(16), options);
}

export function endSession(c: Context<AppEnv>): void {
  deleteCookie(c, TOKEN_COOKIE, { path: "/ui", secure: secure(c) });
  deleteCookie(c, CSRF_COOKIE, { path: "/ui", secure: secure(c) });
}

function randomHex(n: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * True when a form post comes from this origin: `Origin` names the host
 * the request was sent to (browsers send it on every POST); without one,
 * `Sec-Fetch-Site: same-origin` is accepted; neither is refused.
 */
export function sameOrigin(c: Context<AppEnv>): boolean {
  const origin = c.req.header("origin");
  const host = c.req.header("host") ?? new URL(c.req.url).host;
  if (origin !== undefined) {
    try {
      return new URL(origin).host === host;
    } catch {
      return false;
    }
  }
  return c.req.header("sec-fetch-site") === "same-origin";
}

/** Compare two strings without an early exit (the CSRF token). */
export function sameSecret(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}
