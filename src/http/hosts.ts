/**
 * DNS-rebinding protection. A web page on an attacker's domain can make the
 * victim's browser talk to a loopback server by re-pointing its own DNS name
 * at 127.0.0.1; the request then carries the attacker's name in `Host` (and
 * its page in `Origin`). Refusing unknown Host values, and Origin values when
 * present, closes that door for every route.
 */

/** Host names that mean "this machine". */
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/**
 * Which `Host` / `Origin` values are accepted. A host entry with a port
 * (`example.com:8443`) matches exactly; without one it matches any port.
 * Origin entries are full origins (`https://app.example.com`). `"*"` turns a
 * check off (for a deployment whose front end already pins the host).
 */
export interface HostPolicy {
  /** Default: the loopback names on any port. */
  readonly allowedHosts?: readonly string[] | "*";
  /** Default: http(s) origins on a loopback name, any port. A request without Origin always passes. */
  readonly allowedOrigins?: readonly string[] | "*";
}

/** The exact loopback `Host` values for a local server on `port`. */
export function loopbackHosts(port: number): string[] {
  return LOOPBACK_NAMES.map((name) => `${name}:${port}`);
}

interface HostPort {
  readonly name: string;
  /** "" when the value has no port. */
  readonly port: string;
}

/** Split `host[:port]` (IPv6 in brackets); undefined if it is not one. */
export function parseHost(value: string): HostPort | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^\s:/@[\]]+)(?::(\d{1,5}))?$/i.exec(value.trim());
  if (!match) return undefined;
  return { name: match[1].toLowerCase().replace(/\.$/, ""), port: match[2] ?? "" };
}

/** A predicate over `Host` header values. */
export function hostMatcher(allowed: readonly string[] | "*" | undefined): (host: string) => boolean {
  if (allowed === "*") return () => true;
  const entries = (allowed ?? LOOPBACK_NAMES).map((entry) => {
    const parsed = parseHost(entry);
    if (!parsed) throw new Error(`allowedHosts: ${JSON.stringify(entry)} is not a host or host:port`);
    return parsed;
  });
  return (host) => {
    const got = parseHost(host);
    if (!got) return false;
    return entries.some((e) => e.name === got.name && (e.port === "" || e.port === got.port));
  };
}

/** A predicate over `Origin` header values (only called when the header is present). */
export function originMatcher(allowed: readonly string[] | "*" | undefined): (origin: string) => boolean {
  if (allowed === "*") return () => true;
  if (allowed === undefined) {
    return (origin) => {
      const url = safeUrl(origin);
      return !!url && (url.protocol === "http:" || url.protocol === "https:") && LOOPBACK_NAMES.includes(url.hostname);
    };
  }
  const origins = new Set(
    allowed.map((entry) => {
      const url = safeUrl(entry);
      if (!url || url.origin === "null") throw new Error(`allowedOrigins: ${JSON.stringify(entry)} is not an origin like https://app.example.com`);
      return url.origin;
    }),
  );
  return (origin) => {
    const url = safeUrl(origin);
    return !!url && origins.has(url.origin);
  };
}

function safeUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}
