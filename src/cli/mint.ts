/**
 * `toolwarden token mint`: sign a token and print it alone on one line, so a
 * script can capture it (`TOKEN=$(toolwarden token mint ...)`).
 *
 * The key (from `--key-file F` or `--key-env NAME`) is either a JWK
 * (`{"kty":"oct","k":...}` for HS256, a private Ed25519
 * `{"kty":"OKP","crv":"Ed25519","d":...,"x":...}` for EdDSA) or plain text,
 * which is an HS256 secret: its UTF-8 bytes after trimming surrounding
 * whitespace (the server reads `--jwt-secret-env` and `secretEnv` the same way).
 *
 * The server's principal of a signed token is its kid, sub, ws and scopes
 * (src/http/auth.ts). `--label` sets `sub`: the same label, scopes and
 * workspace are one agent across re-minted tokens. Without `--label` each
 * token gets a random `sub` of its own (`anon-` and 32 hex digits, printed on
 * stderr), so two unlabelled tokens are never one principal.
 */
import { readFile } from "node:fs/promises";
import { importJWK, SignJWT, type JWK } from "jose";
import { ALL_WORKSPACES, JWT_SCOPES, MIN_HS256_SECRET_BYTES, secretBytes, WORKSPACE_NAME, type JwtScope } from "../http/jwt.ts";

export { secretBytes };
import { parseArgs, UsageError, type FlagSpec } from "./args.ts";
import { StartupError } from "./errors.ts";
import type { CliIO } from "./io.ts";
import { TOKEN_USAGE } from "./usage.ts";

/** Flags of `token mint`. */
export const MINT_FLAGS: FlagSpec = {
  workspace: "string",
  scopes: "string",
  ttl: "string",
  label: "string",
  kid: "string",
  audience: "string",
  "key-file": "string",
  "key-env": "string",
};

/** A signing key. */
export type SigningKey =
  | { readonly alg: "HS256"; readonly secret: Uint8Array; readonly kid?: string }
  | { readonly alg: "EdDSA"; readonly jwk: JWK; readonly kid?: string };

/** What a token grants. */
export interface MintClaims {
  readonly workspace: string;
  readonly scopes: readonly JwtScope[];
  readonly ttlSeconds: number;
  /** The `sub` claim (who holds it); without one the token gets its own {@link unlabelledSub}. */
  readonly label?: string;
  readonly audience?: string;
  /** Seconds since the epoch, may have a fraction (default: now, to the millisecond). */
  readonly now?: number;
}

/** Longest `sub` the server accepts (src/http/jwt.ts). */
export const MAX_LABEL_CHARS = 128;

/**
 * A fresh `sub` for a token minted without a label: `anon-` and 128 random
 * bits in hex. The server's principal id hashes `sub` (with kid, ws and
 * scopes), so a shared default would make every unlabelled token of a
 * workspace one principal, sharing observation sessions and MCP sessions.
 */
export function unlabelledSub(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `anon-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** Sign a token. Without `label` it gets its own random `sub` ({@link unlabelledSub}). */
export async function mintToken(key: SigningKey, claims: MintClaims): Promise<string> {
  // iat to the millisecond: a hosted workspace refuses tokens issued before its name was last deleted,
  // and a token minted just after a DELETE must not look as old as one minted just before it.
  const now = claims.now ?? Date.now() / 1000;
  const material = key.alg === "HS256" ? key.secret : await importJWK({ ...key.jwk, alg: "EdDSA" }, "EdDSA");
  let jwt = new SignJWT({ ws: claims.workspace, scope: claims.scopes.join(" ") })
    .setProtectedHeader({ alg: key.alg, typ: "JWT", ...(key.kid === undefined ? {} : { kid: key.kid }) })
    .setSubject(claims.label ?? unlabelledSub())
    .setIssuedAt(now)
    .setExpirationTime(Math.floor(now) + claims.ttlSeconds);
  if (claims.audience !== undefined) jwt = jwt.setAudience(claims.audience);
  return jwt.sign(material);
}

/** `30s`, `15m`, `1h`, `7d` or plain seconds. */
export function parseTtl(text: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(text.trim());
  const n = match ? Number(match[1]) * { "": 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2] as "" | "s" | "m" | "h" | "d"] : NaN;
  if (!(n >= 1) || !Number.isSafeInteger(n)) throw new UsageError(`--ttl must be a duration like 30m, 1h or 7d (got ${JSON.stringify(text)})`);
  return n;
}

/** The scopes of `--scopes read,write` (commas or spaces). */
export function parseScopes(text: string): JwtScope[] {
  const scopes = [...new Set(text.split(/[,\s]+/).filter(Boolean))];
  for (const scope of scopes) {
    if (!(JWT_SCOPES as readonly string[]).includes(scope))
      throw new UsageError(`--scopes: unknown scope ${JSON.stringify(scope)}; use ${JWT_SCOPES.join(", ")}`);
  }
  if (scopes.length === 0) throw new UsageError(`--scopes must name at least one of ${JWT_SCOPES.join(", ")}`);
  return scopes as JwtScope[];
}

/** A signing key from its text (JWK JSON or a plain HS256 secret); `kid` overrides the JWK's. */
export function signingKeyFrom(text: string, where: string, kid?: string): SigningKey {
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) {
    let jwk: JWK;
    try {
      jwk = JSON.parse(trimmed) as JWK;
    } catch {
      throw new StartupError(`${where}: looks like a JWK but is not valid JSON`);
    }
    const id = kid ?? jwk.kid;
    if (jwk.kty === "oct" && typeof jwk.k === "string") {
      const secret = Uint8Array.from(atob(jwk.k.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
      return checkedSecret(secret, where, id);
    }
    if (jwk.kty === "OKP" && jwk.crv === "Ed25519" && typeof jwk.d === "string") {
      return { alg: "EdDSA", jwk, ...(id === undefined ? {} : { kid: id }) };
    }
    throw new StartupError(`${where}: a signing JWK must be {"kty":"oct","k":...} (HS256) or a private Ed25519 {"kty":"OKP","crv":"Ed25519","d":...,"x":...}`);
  }
  return checkedSecret(secretBytes(trimmed), where, kid);
}

function checkedSecret(secret: Uint8Array, where: string, kid: string | undefined): SigningKey {
  if (secret.length < MIN_HS256_SECRET_BYTES)
    throw new StartupError(`${where}: an HS256 secret must be at least ${MIN_HS256_SECRET_BYTES} bytes (e.g. openssl rand -hex 32)`);
  return { alg: "HS256", secret, ...(kid === undefined ? {} : { kid }) };
}

/** Run `token ...` with the words after `token`. */
export async function runToken(argv: readonly string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === "-h" || sub === "--help" || sub === "help") {
    io.out(TOKEN_USAGE);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== "mint") throw new UsageError(`unknown token command ${JSON.stringify(sub)} (use: token mint)`);
  const { flags, positionals } = parseArgs(rest, MINT_FLAGS);
  if (flags.help) {
    io.out(TOKEN_USAGE);
    return 0;
  }
  if (positionals.length) throw new UsageError(`token mint takes no arguments (got ${positionals.join(" ")})`);
  const workspace = flags.workspace as string | undefined;
  if (!workspace) throw new UsageError('--workspace is required (a workspace name, or "*" for a global admin token)');
  if (workspace !== ALL_WORKSPACES && !WORKSPACE_NAME.test(workspace)) {
    throw new UsageError(`--workspace ${JSON.stringify(workspace)} is not a workspace name (1-128 of A-Z a-z 0-9 . _ -)`);
  }
  if (flags.scopes === undefined) throw new UsageError("--scopes is required, e.g. --scopes read,write");
  const scopes = parseScopes(flags.scopes as string);
  if (workspace === ALL_WORKSPACES && !scopes.includes("admin")) throw new UsageError('--workspace "*" is only for admin tokens (--scopes admin)');
  if (flags.label !== undefined && ((flags.label as string).length === 0 || (flags.label as string).length > MAX_LABEL_CHARS)) {
    throw new UsageError(`--label must be 1-${MAX_LABEL_CHARS} characters (the server refuses any other sub)`);
  }
  if (flags.ttl === undefined) throw new UsageError("--ttl is required, e.g. --ttl 1h");
  const ttlSeconds = parseTtl(flags.ttl as string);
  const file = flags["key-file"] as string | undefined;
  const envName = flags["key-env"] as string | undefined;
  if ((file === undefined) === (envName === undefined)) throw new UsageError("give exactly one of --key-file F and --key-env NAME");
  let text: string;
  let where: string;
  if (file !== undefined) {
    where = file;
    try {
      text = await readFile(file, "utf8");
    } catch {
      throw new StartupError(`${file}: cannot read the key file`);
    }
  } else {
    where = `$${envName}`;
    const value = io.env[envName!];
    if (!value) throw new StartupError(`--key-env: environment variable ${envName} is not set`);
    text = value;
  }
  const key = signingKeyFrom(text, where, flags.kid as string | undefined);
  const label = (flags.label as string | undefined) ?? unlabelledSub();
  const token = await mintToken(key, {
    workspace,
    scopes,
    ttlSeconds,
    label,
    ...(flags.audience !== undefined ? { audience: flags.audience as string } : {}),
  });
  io.out(`${token}\n`);
  // Stdout stays the token alone (TOKEN=$(...)); the generated sub is what logs and the audit log will name.
  if (flags.label === undefined) io.err(`toolwarden: no --label: this token's sub is ${label} (a principal of its own; --label gives an agent a stable one)\n`);
  return 0;
}
