/**
 * The server configuration file (`toolwarden serve --config FILE`): JSON,
 * validated with valibot. Every object is strict, so a misspelt field is
 * refused with its path instead of being silently ignored.
 */
import * as v from "valibot";
import { LoudFailureConfigSchema } from "../rules/mod.ts";
import { SCOPES } from "../scopes.ts";

/** The scopes a token may carry (the one list in src/scopes.ts). */
export const CONFIG_SCOPES = SCOPES;

/** A strict object whose unknown-field message lists the fields it knows. */
function strict<const TEntries extends v.ObjectEntries>(entries: TEntries) {
  const known = Object.keys(entries).join(", ");
  return v.strictObject(entries, (issue) =>
    issue.received === "undefined" ? `missing required field ${issue.expected}` : `unknown field (known fields: ${known})`,
  );
}

function positiveInt(name: string) {
  return v.pipe(v.number(`${name} must be a number`), v.integer(`${name} must be an integer`), v.minValue(1, `${name} must be 1 or more`));
}

const TokenSchema = v.pipe(
  strict({
    token: v.optional(
      v.pipe(
        v.string("token must be a string"),
        v.minLength(1, "token must not be empty"),
        v.regex(/^\S+$/, "token must not contain whitespace"),
        v.description("The bearer token itself. Prefer tokenEnv, which keeps the secret out of the file."),
      ),
    ),
    tokenEnv: v.optional(
      v.pipe(
        v.string("tokenEnv must be a string"),
        v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "tokenEnv must be an environment variable name"),
        v.description("Name of the environment variable holding the token."),
      ),
    ),
    scopes: v.pipe(
      v.array(
        v.picklist(CONFIG_SCOPES, (issue) => `scopes entries must be one of ${SCOPES.join(", ")} (got ${issue.received})`),
        'scopes must be a list like ["read", "write"]',
      ),
      v.minLength(1, "scopes must name at least one scope"),
    ),
    workspace: v.optional(
      v.pipe(
        v.string("workspace must be a string"),
        v.minLength(1, "workspace must not be empty"),
        v.description('Directory this token reaches, relative to the config file (default: the served DIR); with workspaces, a workspace name or "*".'),
      ),
    ),
    label: v.optional(v.pipe(v.string("label must be a string"), v.description("Name shown in the call log instead of a token hash."))),
  }),
  v.check((grant) => (grant.token === undefined) !== (grant.tokenEnv === undefined), "give exactly one of token and tokenEnv"),
);

const LimitsSchema = strict({
  maxBodyBytes: v.optional(positiveInt("maxBodyBytes")),
  maxFileBytes: v.optional(positiveInt("maxFileBytes")),
  maxViewLines: v.optional(positiveInt("maxViewLines")),
  maxOutputBytes: v.optional(positiveInt("maxOutputBytes")),
  maxLineChars: v.optional(positiveInt("maxLineChars")),
  callTimeoutMs: v.optional(
    v.pipe(
      v.number("callTimeoutMs must be a number"),
      v.integer("callTimeoutMs must be an integer"),
      v.minValue(0, "callTimeoutMs must be 0 (no limit) or more"),
    ),
  ),
  observationBytesPerToken: v.optional(
    v.pipe(positiveInt("observationBytesPerToken"), v.description("Memory for one token's observations (what its sessions viewed), in bytes.")),
  ),
  mcpSessionsPerToken: v.optional(
    v.pipe(positiveInt("mcpSessionsPerToken"), v.description("Live MCP sessions one token may hold; one more closes its own least recently used.")),
  ),
});

const ShellSchema = strict({
  enabled: v.optional(v.boolean("enabled must be a boolean")),
  timeoutMs: v.optional(positiveInt("timeoutMs")),
});

const nonEmpty = (name: string) => v.pipe(v.string(`${name} must be a string`), v.minLength(1, `${name} must not be empty`));

/** Where the served workspace's files are; the DIR argument wins over it. */
const StorageSchema = v.variant(
  "kind",
  [
    strict({
      kind: v.literal("local"),
      path: v.pipe(nonEmpty("path"), v.description("Directory to serve, relative to the config file.")),
    }),
    strict({
      kind: v.literal("memory"),
      seed: v.optional(v.pipe(nonEmpty("seed"), v.description("Directory copied into the sandbox at start, relative to the config file."))),
    }),
    strict({
      kind: v.literal("s3"),
      bucket: v.pipe(nonEmpty("bucket"), v.regex(/^[^/]+$/, "bucket must not contain /")),
      prefix: v.optional(v.pipe(v.string("prefix must be a string"), v.description("Key prefix that is the workspace root."))),
    }),
  ],
  (issue) =>
    issue.received === "undefined" ? "missing required field kind (local, memory or s3)" : `kind must be local, memory or s3 (got ${issue.received})`,
);

/** Where observations live; `--observations` wins over it. Each token's share is `limits.observationBytesPerToken` in either. */
const ObservationsSchema = v.variant(
  "kind",
  [
    strict({ kind: v.literal("memory") }),
    strict({
      kind: v.literal("redis"),
      url: v.pipe(nonEmpty("url"), v.regex(/^rediss?:\/\/./, "url must look like redis://HOST:PORT[/DB]")),
      idleSeconds: v.optional(
        v.pipe(positiveInt("idleSeconds"), v.description("An observation (and a token's whole share) unused this long is forgotten. Default one day.")),
      ),
    }),
  ],
  (issue) => (issue.received === "undefined" ? "missing required field kind (memory or redis)" : `kind must be memory or redis (got ${issue.received})`),
);

const JwtKeySchema = v.variant(
  "alg",
  [
    strict({
      alg: v.literal("HS256"),
      kid: v.optional(v.pipe(v.string("kid must be a string"), v.minLength(1, "kid must not be empty"))),
      secretEnv: v.pipe(
        v.string("secretEnv must be a string"),
        v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "secretEnv must be an environment variable name"),
        v.description("Environment variable holding the HS256 secret (32+ bytes after trimming)."),
      ),
    }),
    strict({
      alg: v.literal("EdDSA"),
      kid: v.optional(v.pipe(v.string("kid must be a string"), v.minLength(1, "kid must not be empty"))),
      jwk: v.pipe(
        v.looseObject({
          kty: v.literal("OKP", 'jwk.kty must be "OKP"'),
          crv: v.literal("Ed25519", 'jwk.crv must be "Ed25519"'),
          x: v.string("jwk.x must be a string"),
        }),
        v.check((jwk) => !("d" in jwk), 'the server needs only the public key: remove "d" from the JWK'),
        v.description("The Ed25519 public key as a JWK."),
      ),
    }),
  ],
  (issue) => `alg must be "HS256" or "EdDSA" (got ${issue.received})`,
);

const JwtSchema = strict({
  keys: v.pipe(v.array(JwtKeySchema, "keys must be a list"), v.minLength(1, "keys must name at least one key")),
  maxLifetimeSeconds: v.optional(positiveInt("maxLifetimeSeconds")),
  audience: v.optional(v.pipe(v.string("audience must be a string"), v.minLength(1))),
  clockToleranceSeconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0, "clockToleranceSeconds must be 0 or more"))),
});

const WorkspacesSchema = strict({
  dir: v.optional(
    v.pipe(
      v.string("dir must be a string"),
      v.minLength(1),
      v.description("Where workspaces live: a directory (one subdirectory each, relative to the config file) or s3://BUCKET[/PREFIX]."),
    ),
  ),
  quota: v.optional(strict({ maxBytes: v.optional(positiveInt("maxBytes")), maxFiles: v.optional(positiveInt("maxFiles")) })),
  import: v.optional(
    strict({
      maxEntries: v.optional(positiveInt("maxEntries")),
      maxBytes: v.optional(positiveInt("maxBytes")),
      maxRatio: v.optional(positiveInt("maxRatio")),
      maxFileBytes: v.optional(positiveInt("maxFileBytes")),
    }),
  ),
});

/** The whole configuration file. */
export const ConfigSchema = strict({
  $schema: v.optional(v.string("$schema must be a string")),
  port: v.optional(
    v.pipe(
      v.number("port must be a number"),
      v.integer("port must be an integer"),
      v.minValue(0, "port must be 0 (any free port) to 65535"),
      v.maxValue(65535, "port must be 0 (any free port) to 65535"),
    ),
  ),
  host: v.optional(v.pipe(v.string("host must be a string"), v.minLength(1, "host must not be empty"))),
  allowedHosts: v.optional(
    v.pipe(
      v.array(v.pipe(v.string("allowedHosts entries must be strings"), v.minLength(1)), "allowedHosts must be a list"),
      v.description("Extra Host header values to accept (e.g. a LAN name when binding 0.0.0.0)."),
    ),
  ),
  tokens: v.optional(v.pipe(v.array(TokenSchema, "tokens must be a list"), v.minLength(1, "tokens must not be empty"))),
  jwt: v.optional(JwtSchema),
  workspaces: v.optional(WorkspacesSchema),
  limits: v.optional(LimitsSchema),
  shell: v.optional(ShellSchema),
  rules: v.optional(LoudFailureConfigSchema),
  storage: v.optional(StorageSchema),
  observations: v.optional(ObservationsSchema),
});

/** A configuration file as written. */
export type ConfigInput = v.InferInput<typeof ConfigSchema>;
/** A validated configuration (rules defaults applied). */
export type Config = v.InferOutput<typeof ConfigSchema>;
/** One token entry of {@link Config}. */
export type ConfigToken = NonNullable<Config["tokens"]>[number];
