/**
 * The Worker's configuration, read from its secret and vars (never from the
 * bundle) and validated once per isolate, at the first request.
 *
 * - `TOOLWARDEN_TOKENS` (secret; required unless `TOOLWARDEN_JWT_KEYS` is set): JSON array of
 *   `{"token": "...", "workspace": "ws1", "scopes": ["read", "write"], "label"?: "..."}`.
 *   A workspace is the R2 key prefix `<workspace>/`; names cannot contain
 *   "/", so no workspace's keys lie inside another's.
 * - `TOOLWARDEN_JWT_KEYS` (secret, optional): JSON array of signed-token
 *   verification keys, `{"kid"?, "alg": "HS256", "secret": "<32+ bytes>"}` or
 *   `{"kid"?, "alg": "EdDSA", "jwk": <Ed25519 public JWK>}`. Setting it turns
 *   on hosted workspaces: the admin routes under /v1/workspaces, quotas, and
 *   tools only on workspaces created there (docs/hosting.md).
 * - `TOOLWARDEN_JWT_MAX_LIFETIME_SECONDS`, `TOOLWARDEN_JWT_AUDIENCE`,
 *   `TOOLWARDEN_QUOTA_MAX_BYTES`, `TOOLWARDEN_QUOTA_MAX_FILES` (vars, optional).
 * - `TOOLWARDEN_ALLOWED_HOSTS`, `TOOLWARDEN_ALLOWED_ORIGINS` (vars, optional):
 *   comma-separated lists; default `*` (on the edge the Host is the route's,
 *   and auth is a bearer header a foreign page cannot send).
 * - `TOOLWARDEN_MAX_FILE_BYTES` (optional): largest file a tool loads
 *   (default 8 MiB, to stay far inside a Worker's 128 MB memory).
 * - `TOOLWARDEN_RULES` (optional): JSON loud-failure rule configuration.
 * - `TOOLWARDEN_MAX_PATHS_PER_SESSION`, `TOOLWARDEN_SESSION_IDLE_SECONDS`
 *   (optional): observation bounds, see src/policy/durable.ts.
 * - `TOOLWARDEN_STORAGE` (optional): `r2` (default: the FILES binding) or
 *   `s3://BUCKET[/PREFIX]` (any S3 API, R2's included), with the endpoint
 *   and keys in the AWS_* / S3_* vars and secrets that `s3ConfigFromSpec`
 *   reads. A workspace is then the key prefix `[PREFIX/]<workspace>/`.
 *
 * Error messages never quote a token: they name the entry and the field.
 */
import * as v from "valibot";
import type { Scope, TokenGrant } from "../http/auth.ts";
import { DEFAULT_QUOTA, type Quota } from "../http/hosting/mod.ts";
import { checkJwtKeys, secretBytes, type JwtKey, type JwtOptions } from "../http/jwt.ts";
import { SCOPES } from "../scopes.ts";
import { observationLimitsFromEnv, type ObservationEnv, type ObservationLimits } from "../policy/durable.ts";
import { s3ConfigFromSpec, type S3Config } from "../storage/s3/config.ts";
import { parseStorageSpec, type StorageSpec } from "../storage/spec.ts";

/** The Worker's string vars and secrets. */
export interface WorkerVars extends ObservationEnv {
  readonly TOOLWARDEN_TOKENS?: string;
  readonly TOOLWARDEN_ALLOWED_HOSTS?: string;
  readonly TOOLWARDEN_ALLOWED_ORIGINS?: string;
  readonly TOOLWARDEN_MAX_FILE_BYTES?: string;
  readonly TOOLWARDEN_RULES?: string;
  readonly TOOLWARDEN_JWT_KEYS?: string;
  readonly TOOLWARDEN_JWT_MAX_LIFETIME_SECONDS?: string;
  readonly TOOLWARDEN_JWT_AUDIENCE?: string;
  readonly TOOLWARDEN_QUOTA_MAX_BYTES?: string;
  readonly TOOLWARDEN_QUOTA_MAX_FILES?: string;
  readonly TOOLWARDEN_STORAGE?: string;
  /** `off`: record no audit log or history (default on). */
  readonly TOOLWARDEN_HISTORY?: string;
  readonly AWS_ACCESS_KEY_ID?: string;
  readonly AWS_SECRET_ACCESS_KEY?: string;
  readonly AWS_SESSION_TOKEN?: string;
  readonly AWS_REGION?: string;
  readonly AWS_DEFAULT_REGION?: string;
  readonly AWS_ENDPOINT_URL_S3?: string;
  readonly AWS_ENDPOINT_URL?: string;
  readonly S3_ENDPOINT?: string;
  readonly S3_REGION?: string;
  readonly S3_ACCESS_KEY_ID?: string;
  readonly S3_SECRET_ACCESS_KEY?: string;
  readonly S3_SESSION_TOKEN?: string;
  readonly S3_PATH_STYLE?: string;
}

/** Where the Worker's files are. */
export type WorkerStorage = { readonly kind: "r2" } | { readonly kind: "s3"; readonly spec: string; readonly config: S3Config };

/** The validated configuration. */
export interface WorkerConfig {
  readonly tokens: readonly TokenGrant[];
  readonly allowedHosts: readonly string[] | "*";
  readonly allowedOrigins: readonly string[] | "*";
  readonly maxFileBytes: number;
  /** Parsed `TOOLWARDEN_RULES`, or `{}` (the built-in rules). */
  readonly rules: unknown;
  readonly observations: ObservationLimits;
  /** Signed tokens; set means hosted workspaces are on. */
  readonly jwt?: JwtOptions;
  /** Quota of a workspace created without one. */
  readonly quota: Quota;
  readonly storage: WorkerStorage;
}

/** A configuration the Worker cannot serve with; the message says which setting and how to fix it. */
export class WorkerConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WorkerConfigError";
  }
}

/** Default largest file a tool loads on the edge. */
export const WORKER_MAX_FILE_BYTES = 8 * 1024 * 1024;

/** Shortest accepted token: a guessable token is an open server. */
export const MIN_TOKEN_CHARS = 16;

/** Workspace names: one key-prefix segment, so prefixes never nest. */
const WORKSPACE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

// Every message is fixed text: valibot's defaults quote the received value, and that value may be a token.
const GrantSchema = v.strictObject(
  {
    token: v.pipe(
      v.string("token must be a string"),
      v.minLength(MIN_TOKEN_CHARS, `token must be at least ${MIN_TOKEN_CHARS} characters (use e.g. openssl rand -hex 32)`),
      v.regex(/^\S+$/, "token must not contain whitespace"),
    ),
    workspace: v.pipe(
      v.string("workspace must be a string"),
      v.regex(WORKSPACE, "workspace must be 1-128 of A-Z a-z 0-9 . _ - (starting with a letter or digit; no '/')"),
    ),
    scopes: v.pipe(
      v.array(v.picklist(SCOPES, `scopes may only contain ${SCOPES.join(", ")}`), "scopes must be an array"),
      v.minLength(1, "scopes must name at least one of read, write"),
    ),
    label: v.optional(v.pipe(v.string("label must be a string"), v.maxLength(64, "label must be at most 64 characters"))),
  },
  "missing or unknown field: an entry has token, workspace, scopes and optionally label, nothing else",
);

const TokensSchema = v.pipe(v.array(GrantSchema, "must be a JSON array of token entries"), v.minLength(1, "must list at least one token"));

function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const where = issue.path?.map((item) => (typeof item.key === "number" ? `entry #${item.key + 1}` : String(item.key))).join(" ");
      return where ? `${where}: ${issue.message}` : issue.message;
    })
    .join("; ");
}

function parseTokens(raw: string | undefined, optional: boolean): TokenGrant[] {
  if (optional && (raw === undefined || raw.trim() === "")) return [];
  if (raw === undefined || raw.trim() === "") {
    throw new WorkerConfigError(
      "TOOLWARDEN_TOKENS is not set. Set it with `wrangler secret put TOOLWARDEN_TOKENS` to a JSON array like " +
        '[{"token":"<32+ random chars>","workspace":"ws1","scopes":["read","write"]}].',
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    // The parser's own message quotes the text around the error, which is secret.
    throw new WorkerConfigError("TOOLWARDEN_TOKENS is not valid JSON. It must be a JSON array of token entries.");
  }
  const parsed = v.safeParse(TokensSchema, json);
  if (!parsed.success) throw new WorkerConfigError(`TOOLWARDEN_TOKENS ${describeIssues(parsed.issues)}.`);
  return parsed.output.map((grant) => ({
    token: grant.token,
    workspace: grant.workspace,
    scopes: grant.scopes as Scope[],
    ...(grant.label === undefined ? {} : { label: grant.label }),
  }));
}

const JwtKeysSchema = v.pipe(
  v.array(
    v.variant(
      "alg",
      [
        v.strictObject({ kid: v.optional(v.string("kid must be a string")), alg: v.literal("HS256"), secret: v.string("secret must be a string") }),
        v.strictObject({
          kid: v.optional(v.string("kid must be a string")),
          alg: v.literal("EdDSA"),
          jwk: v.record(v.string(), v.unknown(), "jwk must be an object"),
        }),
      ],
      'alg must be "HS256" (with secret) or "EdDSA" (with jwk)',
    ),
    "must be a JSON array of keys",
  ),
  v.minLength(1, "must list at least one key"),
);

function parseJwt(vars: WorkerVars): JwtOptions | undefined {
  const raw = vars.TOOLWARDEN_JWT_KEYS;
  if (raw === undefined || raw.trim() === "") return undefined;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new WorkerConfigError("TOOLWARDEN_JWT_KEYS is not valid JSON. It must be a JSON array of keys.");
  }
  const parsed = v.safeParse(JwtKeysSchema, json);
  if (!parsed.success) throw new WorkerConfigError(`TOOLWARDEN_JWT_KEYS ${describeIssues(parsed.issues)}.`);
  const keys: JwtKey[] = parsed.output.map((key) => {
    const kid = key.kid === undefined ? {} : { kid: key.kid };
    return key.alg === "HS256" ? { alg: "HS256", ...kid, secret: secretBytes(key.secret) } : { alg: "EdDSA", ...kid, jwk: key.jwk as JsonWebKey };
  });
  try {
    checkJwtKeys(keys);
  } catch (error) {
    throw new WorkerConfigError(`TOOLWARDEN_JWT_KEYS: ${error instanceof Error ? error.message : String(error)}.`);
  }
  const maxLifetime = optionalPositive(vars.TOOLWARDEN_JWT_MAX_LIFETIME_SECONDS, "TOOLWARDEN_JWT_MAX_LIFETIME_SECONDS");
  const audience = vars.TOOLWARDEN_JWT_AUDIENCE?.trim();
  return { keys, ...(maxLifetime === undefined ? {} : { maxLifetimeSeconds: maxLifetime }), ...(audience ? { audience } : {}) };
}

function optionalPositive(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < 1) {
    throw new WorkerConfigError(`${name} must be a positive integer, got ${JSON.stringify(raw)}.`);
  }
  return n;
}

function parseList(raw: string | undefined): readonly string[] | "*" {
  if (raw === undefined || raw.trim() === "" || raw.trim() === "*") return "*";
  return raw
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
}

function parseMaxFileBytes(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === "") return WORKER_MAX_FILE_BYTES;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < 1) {
    throw new WorkerConfigError(`TOOLWARDEN_MAX_FILE_BYTES must be a positive integer (bytes), got ${JSON.stringify(raw)}.`);
  }
  return n;
}

function parseRules(raw: string | undefined): unknown {
  if (raw === undefined || raw.trim() === "") return {};
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw new WorkerConfigError(`TOOLWARDEN_RULES is not valid JSON: ${error instanceof Error ? error.message : String(error)}.`);
  }
}

function parseStorage(vars: WorkerVars): WorkerStorage {
  const raw = vars.TOOLWARDEN_STORAGE?.trim();
  if (raw === undefined || raw === "" || raw === "r2" || raw === "r2:") return { kind: "r2" };
  let spec: StorageSpec;
  try {
    spec = parseStorageSpec(raw);
  } catch (error) {
    throw new WorkerConfigError(`TOOLWARDEN_STORAGE: ${error instanceof Error ? error.message : String(error)}.`);
  }
  if (spec.kind !== "s3") throw new WorkerConfigError(`TOOLWARDEN_STORAGE must be r2 or s3://BUCKET[/PREFIX] on a Worker, got ${JSON.stringify(raw)}.`);
  try {
    return { kind: "s3", spec: raw, config: s3ConfigFromSpec(spec.bucket, spec.prefix, { ...vars }) };
  } catch (error) {
    throw new WorkerConfigError(`TOOLWARDEN_STORAGE ${raw}: ${error instanceof Error ? error.message : String(error)}.`);
  }
}

/** Validate the vars; throws {@link WorkerConfigError} naming the first broken setting. */
export function parseWorkerConfig(vars: WorkerVars): WorkerConfig {
  let observations: ObservationLimits;
  try {
    observations = observationLimitsFromEnv(vars);
  } catch (error) {
    throw new WorkerConfigError(`${error instanceof Error ? error.message : String(error)}.`);
  }
  const jwt = parseJwt(vars);
  return {
    tokens: parseTokens(vars.TOOLWARDEN_TOKENS, jwt !== undefined),
    ...(jwt ? { jwt } : {}),
    quota: {
      maxBytes: optionalPositive(vars.TOOLWARDEN_QUOTA_MAX_BYTES, "TOOLWARDEN_QUOTA_MAX_BYTES") ?? DEFAULT_QUOTA.maxBytes,
      maxFiles: optionalPositive(vars.TOOLWARDEN_QUOTA_MAX_FILES, "TOOLWARDEN_QUOTA_MAX_FILES") ?? DEFAULT_QUOTA.maxFiles,
    },
    allowedHosts: parseList(vars.TOOLWARDEN_ALLOWED_HOSTS),
    allowedOrigins: parseList(vars.TOOLWARDEN_ALLOWED_ORIGINS),
    maxFileBytes: parseMaxFileBytes(vars.TOOLWARDEN_MAX_FILE_BYTES),
    rules: parseRules(vars.TOOLWARDEN_RULES),
    observations,
    storage: parseStorage(vars),
  };
}
