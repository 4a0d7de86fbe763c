/**
 * Request gates that run before any route: Host/Origin (DNS rebinding),
 * bearer authentication, and the body size limit.
 */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Authenticator, Principal } from "./auth.ts";
import { hostMatcher, originMatcher, type HostPolicy } from "./hosts.ts";
import { errorResponse } from "./responses.ts";

/** Hono environment of the app: the authenticated principal rides on the context. */
export interface AppEnv {
  Variables: { principal: Principal };
}

/** Refuse (403 FORBIDDEN) a request whose Host is not allowed, or whose Origin is present and not allowed. */
export function hostGuard(policy: HostPolicy): MiddlewareHandler<AppEnv> {
  const hostOk = hostMatcher(policy.allowedHosts);
  const originOk = originMatcher(policy.allowedOrigins);
  const hostsPinned = policy.allowedHosts !== "*";
  return async (c, next) => {
    // Without a Host header the URL's authority is what the runtime derived it from (a Request built
    // in-process); an HTTP/1.0 request without Host leaves none, and is refused before anything else.
    const host = c.req.header("host") ?? urlHost(c.req.url);
    if (!host) {
      return errorResponse(
        400,
        "INVALID_ARGUMENT",
        "The request has no Host header, and this server needs one to refuse DNS-rebinding attacks. Send " +
          "`Host: 127.0.0.1:<port>` (the address you connect to), or use an HTTP/1.1 client, which sends it by itself.",
      );
    }
    if (!hostOk(host)) {
      return errorResponse(
        403,
        "FORBIDDEN",
        `Host ${JSON.stringify(host)} is not allowed (DNS-rebinding protection). Reach the server by an allowed name ` +
          "(e.g. 127.0.0.1 or localhost for a local server), or have the operator add this host to allowedHosts.",
      );
    }
    const origin = c.req.header("origin");
    // A page of this very host (the inspector's forms) is same-origin, whatever the origin list says:
    // DNS rebinding puts the attacker's name in Host, which the check above refuses -- when hosts are
    // pinned. With any Host allowed ("*"), the origin list is the only guard, so it stays strict.
    if (origin !== undefined && !originOk(origin) && !(hostsPinned && sameHost(origin, host))) {
      return errorResponse(
        403,
        "FORBIDDEN",
        `Origin ${JSON.stringify(origin)} is not allowed (DNS-rebinding protection). Call from an allowed origin, ` +
          "call without an Origin header (non-browser clients), or have the operator add this origin to allowedOrigins.",
      );
    }
    await next();
  };
}

/** True when `origin`'s authority is `host` (an Origin of the page this host served). */
function sameHost(origin: string, host: string): boolean {
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

/** The authority of a request URL, or undefined when there is none (a bare path such as `/healthz`). */
function urlHost(url: string): string | undefined {
  try {
    return new URL(url).host || undefined;
  } catch {
    return undefined;
  }
}

const CHALLENGE = 'Bearer realm="toolwarden"';

/** Authenticate with `Authorization: Bearer`; 401 with a `WWW-Authenticate` challenge on failure. */
export function requireAuth(auth: Authenticator): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const outcome = await auth.authenticate(c.req.header("authorization"));
    if (!outcome.ok) {
      if (outcome.failure === "missing") {
        return errorResponse(
          401,
          "UNAUTHORIZED",
          "No credentials. Send the header `Authorization: Bearer <token>` with a token issued by the server's operator.",
          { "www-authenticate": CHALLENGE },
        );
      }
      if (outcome.failure === "malformed") {
        return errorResponse(
          401,
          "UNAUTHORIZED",
          "The Authorization header is not a bearer token. Send exactly `Authorization: Bearer <token>` (one space, no quotes).",
          { "www-authenticate": `${CHALLENGE}, error="invalid_request"` },
        );
      }
      return errorResponse(401, "UNAUTHORIZED", refusalText(outcome.failure, outcome.reason), {
        "www-authenticate": `${CHALLENGE}, error="invalid_token"`,
      });
    }
    c.set("principal", outcome.principal);
    await next();
  };
}

/** The 401 text for a token that was read but refused; never quotes the token. */
function refusalText(failure: string, reason: string | undefined): string {
  if (failure === "expired") return "The bearer token has expired (its exp is in the past). Mint or ask for a fresh token; the request was not run.";
  if (failure === "not-yet-valid") {
    return "The bearer token is not valid yet (its nbf is in the future). Wait until then, check the clocks, or mint a token without nbf.";
  }
  if (reason) return `The signed bearer token is refused: ${reason}. Ask the operator for a valid token.`;
  return "The bearer token is not valid for this server. Check for a typo or a revoked token, and ask the operator for a valid one.";
}

/** 413 LIMIT_EXCEEDED for a body over `maxBytes` (declared or streamed), before anything parses it. */
export function limitBody(maxBytes: number): MiddlewareHandler<AppEnv> {
  const tooLarge = () =>
    errorResponse(
      413,
      "LIMIT_EXCEEDED",
      `Request body is over the ${maxBytes}-byte limit. Send less per request: split large content across several ` +
        "calls (e.g. write a file in parts with edit), or have the operator raise the body limit.",
    );
  const streamed = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return (c, next) => {
    // A declared length is checked from the header alone: touching `body` makes the runtime build a
    // stream for it, and the route's arrayBuffer() then reads through that stream instead of at once.
    const headers = c.req.raw.headers;
    const declared = Number(headers.get("content-length") ?? Number.NaN);
    if (Number.isSafeInteger(declared) && declared >= 0 && !headers.has("transfer-encoding")) return declared > maxBytes ? Promise.resolve(tooLarge()) : next();
    return streamed(c, next);
  };
}
