/**
 * The settings of a server that hosts workspaces (`serve --workspaces DIR`
 * or `workspaces.dir` in the config) and accepts signed tokens (`jwt` in
 * the config, `--jwt-secret-env NAME`). Pure: the caller passes the
 * environment.
 */
import { resolve } from "node:path";
import type { Config } from "../config/mod.ts";
import { DEFAULT_IMPORT_LIMITS, DEFAULT_QUOTA, type ImportLimits, type Quota } from "../http/hosting/mod.ts";
import { ALL_WORKSPACES, secretBytes, WORKSPACE_NAME, type JwtKey, type JwtOptions } from "../http/jwt.ts";
import type { FlagValues } from "./args.ts";
import { StartupError } from "./errors.ts";

/** Where and how workspaces are hosted. */
export interface HostingSettings {
  /** An absolute directory (one subdirectory per workspace) or `s3://BUCKET[/PREFIX]`. */
  readonly location: string;
  readonly quota: Quota;
  readonly importLimits: ImportLimits;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The hosting settings, or undefined when the server serves one directory. */
export function resolveHosting(flags: FlagValues, config: Config | undefined, base: string, cwd: string): HostingSettings | undefined {
  const flag = flags.workspaces as string | undefined;
  const location = flag ?? config?.workspaces?.dir;
  if (location === undefined) return undefined;
  return {
    location: location.startsWith("s3://") ? location : resolve(flag !== undefined ? cwd : base, location),
    quota: { ...DEFAULT_QUOTA, ...config?.workspaces?.quota },
    importLimits: { ...DEFAULT_IMPORT_LIMITS, ...config?.workspaces?.import },
  };
}

/** The signed-token settings, or undefined when none are configured. */
export function resolveJwt(flags: FlagValues, config: Config | undefined, env: Env, source: string): JwtOptions | undefined {
  const keys: JwtKey[] = [];
  const flagEnv = flags["jwt-secret-env"] as string | undefined;
  if (flagEnv !== undefined) keys.push({ alg: "HS256", secret: envSecret(env, flagEnv, `--jwt-secret-env ${flagEnv}`) });
  config?.jwt?.keys.forEach((key, i) => {
    const kid = key.kid === undefined ? {} : { kid: key.kid };
    if (key.alg === "HS256")
      keys.push({ alg: "HS256", ...kid, secret: envSecret(env, key.secretEnv, `${source}: jwt.keys[${i}].secretEnv (${key.secretEnv})`) });
    else keys.push({ alg: "EdDSA", ...kid, jwk: { ...key.jwk } });
  });
  if (keys.length === 0) return undefined;
  return {
    keys,
    ...(config?.jwt?.maxLifetimeSeconds !== undefined ? { maxLifetimeSeconds: config.jwt.maxLifetimeSeconds } : {}),
    ...(config?.jwt?.audience !== undefined ? { audience: config.jwt.audience } : {}),
    ...(config?.jwt?.clockToleranceSeconds !== undefined ? { clockToleranceSeconds: config.jwt.clockToleranceSeconds } : {}),
  };
}

function envSecret(env: Env, name: string, where: string): Uint8Array {
  const value = env[name];
  if (!value) throw new StartupError(`${where}: environment variable ${name} is not set`);
  const bytes = secretBytes(value);
  if (bytes.length < 32) throw new StartupError(`${where}: an HS256 secret must be at least 32 bytes (e.g. openssl rand -hex 32)`);
  return bytes;
}

/** A config token's workspace in hosting mode: a workspace name or "*". */
export function hostedWorkspace(workspace: string | undefined, where: string): string {
  if (workspace === undefined) throw new StartupError(`${where}.workspace: with hosted workspaces every token names its workspace (or "*" for a global admin)`);
  if (workspace !== ALL_WORKSPACES && !WORKSPACE_NAME.test(workspace)) {
    throw new StartupError(`${where}.workspace: ${JSON.stringify(workspace)} is not a workspace name (1-128 of A-Z a-z 0-9 . _ -) or "*"`);
  }
  return workspace;
}
