/**
 * S3 provider configuration: what a caller passes, how it is checked, and how
 * it is read from environment variables. Pure: no I/O.
 */
import { CodedError } from "../../errors.ts";
import { normalizeWorkspacePath } from "../path.ts";

/** How to reach one S3-compatible bucket (and which part of it is the workspace). */
export interface S3Config {
  /** Base URL of the S3 API, e.g. "https://s3.eu-west-1.amazonaws.com" or "http://127.0.0.1:7480". */
  readonly endpoint: string;
  readonly region: string;
  readonly bucket: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  /**
   * Address the bucket in the URL path (`endpoint/bucket/key`) rather than in
   * the host name (`bucket.host/key`). Default: true, except for endpoints
   * under amazonaws.com.
   */
  readonly pathStyle?: boolean;
  /** Key prefix that is the workspace root, e.g. "ws1/" (a trailing "/" is added when missing). Default "". */
  readonly prefix?: string;
  /** The fetch to send requests with (tests, custom agents). Default: the global fetch. */
  readonly fetch?: typeof fetch;
  /** Skip the start-up check that the server enforces conditional writes. Only for tests of the check itself. */
  readonly skipProbe?: boolean;
  /** Keys per ListObjectsV2 page, 1..1000. Default 1000. */
  readonly listPageSize?: number;
}

/** A checked {@link S3Config} with defaults applied. */
export interface ResolvedS3Config {
  readonly endpoint: URL;
  readonly region: string;
  readonly bucket: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  readonly pathStyle: boolean;
  /** "" or a normalised path ending in "/". */
  readonly prefix: string;
  readonly fetch: typeof fetch;
  readonly skipProbe: boolean;
  readonly listPageSize: number;
}

const MAX_PAGE = 1000;

function invalid(message: string): CodedError {
  return new CodedError("INVALID_ARGUMENT", `S3 config: ${message}`);
}

function requireText(value: unknown, name: string): string {
  if (typeof value !== "string" || value === "") throw invalid(`${name} is required`);
  return value;
}

/** True for endpoints of AWS itself, which expect virtual-hosted bucket addressing. */
function isAwsHost(hostname: string): boolean {
  return /(^|\.)amazonaws\.com(\.cn)?$/i.test(hostname);
}

/** Turn a prefix into "" or "segment/.../" (refusing "..", "\\" and the rest, as workspace paths do). */
export function resolvePrefix(prefix: string | undefined): string {
  if (prefix === undefined || prefix === "") return "";
  let normalized: string;
  try {
    normalized = normalizeWorkspacePath(prefix);
  } catch (error) {
    throw new CodedError("INVALID_ARGUMENT", `S3 config: prefix ${JSON.stringify(prefix)} is not a plain key prefix`, {
      cause: error,
    });
  }
  return normalized === "" ? "" : `${normalized}/`;
}

/**
 * Check a config and apply defaults, or throw INVALID_ARGUMENT naming the
 * offending field. Bucket names are checked only for what would break a URL
 * ("/", ".", ".."), since S3-compatible servers differ in their own rules.
 */
export function resolveS3Config(config: S3Config): ResolvedS3Config {
  let endpoint: URL;
  try {
    endpoint = new URL(requireText(config.endpoint, "endpoint"));
  } catch (error) {
    if (error instanceof CodedError) throw error;
    throw invalid(`endpoint ${JSON.stringify(config.endpoint)} is not a URL`);
  }
  if (endpoint.protocol !== "http:" && endpoint.protocol !== "https:") {
    throw invalid(`endpoint must be http: or https:, got ${endpoint.protocol}`);
  }
  if (endpoint.search !== "" || endpoint.hash !== "") throw invalid("endpoint must not have a query or fragment");
  const bucket = requireText(config.bucket, "bucket");
  // Letters, digits, ".", "-", "_" (every S3 server's names, old AWS ones included). Anything else could
  // change the URL: with host-style addressing "evil.example?" would send signed requests to evil.example.
  if (!/^[A-Za-z0-9._-]+$/.test(bucket) || bucket === "." || bucket === "..") {
    throw invalid(`bucket ${JSON.stringify(bucket)} is not a bucket name (letters, digits, ".", "-" and "_" only)`);
  }
  const pageSize = config.listPageSize ?? MAX_PAGE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE) {
    throw invalid(`listPageSize must be an integer in 1..${MAX_PAGE}, got ${pageSize}`);
  }
  const fetchFn = config.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => globalThis.fetch(input, init));
  return {
    endpoint,
    region: requireText(config.region, "region"),
    bucket,
    accessKeyId: requireText(config.accessKeyId, "accessKeyId"),
    secretAccessKey: requireText(config.secretAccessKey, "secretAccessKey"),
    sessionToken: config.sessionToken || undefined,
    pathStyle: config.pathStyle ?? !isAwsHost(endpoint.hostname),
    prefix: resolvePrefix(config.prefix),
    fetch: fetchFn as typeof fetch,
    skipProbe: config.skipProbe ?? false,
    listPageSize: pageSize,
  };
}

function parseBoolean(value: string, name: string): boolean {
  const lower = value.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(lower)) return true;
  if (["0", "false", "no", "off"].includes(lower)) return false;
  throw invalid(`${name} must be true or false, got ${JSON.stringify(value)}`);
}

/**
 * Read an {@link S3Config} from environment variables: S3_ENDPOINT,
 * S3_REGION, S3_BUCKET, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY (required),
 * S3_SESSION_TOKEN, S3_PREFIX, S3_PATH_STYLE (optional). Throws
 * INVALID_ARGUMENT naming every missing variable at once.
 */
export function s3ConfigFromEnv(env: Record<string, string | undefined>): S3Config {
  const required = ["S3_ENDPOINT", "S3_REGION", "S3_BUCKET", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY"] as const;
  const missing = required.filter((name) => !env[name]);
  if (missing.length > 0) throw invalid(`missing environment variable${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`);
  const pathStyle = env.S3_PATH_STYLE ? parseBoolean(env.S3_PATH_STYLE, "S3_PATH_STYLE") : undefined;
  return {
    endpoint: env.S3_ENDPOINT as string,
    region: env.S3_REGION as string,
    bucket: env.S3_BUCKET as string,
    accessKeyId: env.S3_ACCESS_KEY_ID as string,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY as string,
    ...(env.S3_SESSION_TOKEN ? { sessionToken: env.S3_SESSION_TOKEN } : {}),
    ...(env.S3_PREFIX ? { prefix: env.S3_PREFIX } : {}),
    ...(pathStyle !== undefined ? { pathStyle } : {}),
  };
}

/**
 * An {@link S3Config} for `s3://BUCKET[/PREFIX]`: the bucket and prefix from
 * the spec, the rest from the environment. Both the standard AWS variables
 * and toolwarden's `S3_*` ones are read; where both are set, `S3_*` wins
 * (it names this server's bucket, while the AWS ones are often set for other
 * tools):
 *
 * - endpoint: S3_ENDPOINT, else AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL,
 *   else AWS itself (`https://s3.<region>.amazonaws.com`);
 * - region: S3_REGION, else AWS_REGION, else AWS_DEFAULT_REGION, else us-east-1;
 * - keys, as one set: S3_ACCESS_KEY_ID + S3_SECRET_ACCESS_KEY (+ S3_SESSION_TOKEN)
 *   when S3_ACCESS_KEY_ID is set, else AWS_ACCESS_KEY_ID +
 *   AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN), so a key of one set is never
 *   signed with the secret of the other;
 * - S3_PATH_STYLE (optional) as in {@link s3ConfigFromEnv}.
 *
 * Throws INVALID_ARGUMENT naming the missing variables.
 */
export function s3ConfigFromSpec(bucket: string, prefix: string, env: Record<string, string | undefined>): S3Config {
  const region = env.S3_REGION || env.AWS_REGION || env.AWS_DEFAULT_REGION || "us-east-1";
  const endpoint = env.S3_ENDPOINT || env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || `https://s3.${region}.amazonaws.com`;
  const set = env.S3_ACCESS_KEY_ID ? "S3" : "AWS";
  const accessKeyId = env[`${set}_ACCESS_KEY_ID`];
  const secretAccessKey = env[`${set}_SECRET_ACCESS_KEY`];
  const sessionToken = env[`${set}_SESSION_TOKEN`];
  if (!accessKeyId || !secretAccessKey) {
    const missing = !accessKeyId ? "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY)" : `${set}_SECRET_ACCESS_KEY`;
    throw invalid(`no credentials for s3://${bucket}: set ${missing}`);
  }
  const pathStyle = env.S3_PATH_STYLE ? parseBoolean(env.S3_PATH_STYLE, "S3_PATH_STYLE") : undefined;
  return {
    endpoint,
    region,
    bucket,
    accessKeyId,
    secretAccessKey,
    ...(sessionToken ? { sessionToken } : {}),
    ...(prefix ? { prefix } : {}),
    ...(pathStyle !== undefined ? { pathStyle } : {}),
  };
}
