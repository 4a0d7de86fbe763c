/**
 * Object keys and versions: how a workspace path becomes a key and a URL
 * path, and how an ETag becomes a version. Pure.
 */

/**
 * RFC 3986 encoding of one key segment: exactly what SigV4 signs, so the URL
 * we send and the canonical path the signature covers are the same string.
 * Every "." is kept, which is safe only because normalised paths and the
 * prefix never contain a "." or ".." segment (a URL parser would resolve it).
 */
function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The URL path of a key ("a b/c+d" -> "a%20b/c%2Bd"); "/" stays the separator. */
export function encodeKey(key: string): string {
  return key.split("/").map(encodeSegment).join("/");
}

/** A query string with RFC 3986 encoding (a space is "%20", never "+", which S3 servers read differently). */
export function encodeQuery(params: ReadonlyArray<readonly [string, string]>): string {
  return params.map(([name, value]) => `${encodeSegment(name)}=${encodeSegment(value)}`).join("&");
}

/**
 * The version string for an ETag header value: the quotes stripped (and a
 * weak "W/" marker, which S3 never sends, dropped). radosgw compares If-Match
 * to the raw unquoted text, and AWS accepts the unquoted form, so a version
 * goes back into If-Match exactly as it is.
 */
export function versionFromEtag(etag: string): string {
  let value = etag.trim();
  if (value.startsWith("W/")) value = value.slice(2);
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
  return value;
}

/** `bytes` random bytes as lowercase hex (sentinel keys, write ids). */
export function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("");
}
