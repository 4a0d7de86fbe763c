/**
 * What the flags, the environment and the config file add up to. Flags win
 * over the environment, which wins over the file, which wins over the
 * defaults. Pure: the caller passes the environment, the working directory
 * and the token generator.
 */
import { dirname, resolve } from "node:path";
import type { Config, ConfigToken } from "../config/mod.ts";
import type { HttpLimits, Scope } from "../http/mod.ts";
import type { JwtOptions } from "../http/jwt.ts";
import type { LoudFailureConfig } from "../rules/mod.ts";
import { formatStorageSpec, parseStorageSpec, type StorageSpec } from "../storage/spec.ts";
import { UsageError, type FlagValues } from "./args.ts";
import { StartupError } from "./errors.ts";
import { hostedWorkspace, resolveHosting, resolveJwt, type HostingSettings } from "./hosting-settings.ts";

/** Default port of `serve`. */
export const DEFAULT_PORT = 7878;
/** Default bind address of `serve`: loopback only. */
export const DEFAULT_HOST = "127.0.0.1";
/** Environment variable that supplies the token when `--token` is not given. */
export const TOKEN_ENV = "TOOLWARDEN_TOKEN";

/** What both `serve` and `call` need: where, how big, and which tools. */
export interface ToolSettings {
  /**
   * The served workspace (the default one) as a storage spec: an absolute
   * directory path, `memory:` (or `memory:/abs/seed`), or `s3://BUCKET[/PREFIX]`.
   */
  readonly root: string;
  readonly limits: HttpLimits;
  readonly shell: { readonly enabled: boolean; readonly timeoutMs?: number };
  readonly rules: LoudFailureConfig;
}

/** One token the server accepts. */
export interface Grant {
  readonly token: string;
  readonly scopes: readonly Scope[];
  /** A storage spec, as {@link ToolSettings.root}; with hosted workspaces, a workspace name or "*". */
  readonly workspace: string;
  readonly label?: string;
}

/** Where the tokens came from (the banner says so). */
export type TokenSource = "flag" | "env" | "config" | "generated";

/** How `serve` authenticates. */
export type ServeAuth =
  | { readonly mode: "none" }
  | { readonly mode: "bearer"; readonly grants: readonly Grant[]; readonly source: TokenSource; readonly jwt?: JwtOptions };

/** Where observations (what each session has viewed) live. */
export type ObservationSettings =
  | { readonly kind: "memory" }
  | {
      readonly kind: "redis";
      /** redis://[user:password@]HOST:PORT[/DB] (or rediss:// for TLS). */
      readonly url: string;
      /** An observation (and a token's whole share) unused this long is forgotten. */
      readonly idleSeconds?: number;
    };

/** Everything `serve` needs to start. */
export interface ServeSettings extends ToolSettings {
  readonly observations: ObservationSettings;
  readonly host: string;
  readonly port: number;
  readonly auth: ServeAuth;
  /** Host header values accepted besides the loopback names on the bound port. */
  readonly extraHosts: readonly string[];
  readonly quiet: boolean;
  /** Set when the server hosts workspaces (`--workspaces`); tokens then name workspaces, not directories. */
  readonly hosting?: HostingSettings;
}

/** Inputs of {@link resolveServeSettings}. */
export interface ServeInputs {
  readonly flags: FlagValues;
  /** The DIR argument, if given. */
  readonly dir?: string;
  readonly config?: Config;
  /** Path of the config file, for resolving its relative workspaces. */
  readonly configPath?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  /** A fresh random token (called only when no token is configured). */
  readonly generateToken: () => string;
}

/** The scopes of local mode's own token (and of everyone without auth): exec only with the shell. */
export function localScopes(shellEnabled: boolean): Scope[] {
  return shellEnabled ? ["read", "write", "exec"] : ["read", "write"];
}

/** Whether `host` names this machine only (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return name === "localhost" || name === "::1" || /^127(\.\d{1,3}){3}$/.test(name);
}

/**
 * A workspace spec with its directories made absolute against `base`
 * (memory:'s seed too); s3:// as written. Throws StartupError for a spec
 * that does not parse (an unknown scheme, a bad prefix).
 */
export function resolveSpec(text: string, base: string, where: string): string {
  let spec: StorageSpec;
  try {
    spec = parseStorageSpec(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new StartupError(where === text ? message : `${where}: ${message}`);
  }
  if (spec.kind === "local") return resolve(base, spec.dir);
  if (spec.kind === "memory" && spec.seed) return formatStorageSpec({ kind: "memory", seed: resolve(base, spec.seed) });
  return formatStorageSpec(spec);
}

/** The config file's `storage` section as a spec (undefined when it has none). */
function configStorage(config: Config | undefined): string | undefined {
  const storage = config?.storage;
  if (storage === undefined) return undefined;
  switch (storage.kind) {
    case "local":
      return storage.path;
    case "memory":
      return storage.seed === undefined ? "memory:" : `memory:${storage.seed}`;
    case "s3":
      return formatStorageSpec({ kind: "s3", bucket: storage.bucket, prefix: storage.prefix ?? "" });
  }
}

/**
 * The settings shared with `call`: root, limits, shell and rules. The
 * workspace is `dir` (relative to `cwd`), else the config's `storage`
 * (relative to the config file's folder, `configDir`), else `cwd`.
 */
export function resolveToolSettings(
  flags: FlagValues,
  dir: string | undefined,
  config: Config | undefined,
  cwd: string,
  configDir: string = cwd,
): ToolSettings {
  // The per-token session shares are the server's, not a call's: `serve` reads them from the config itself.
  const { observationBytesPerToken: _observations, mcpSessionsPerToken: _mcp, ...limits } = config?.limits ?? {};
  const fromConfig = configStorage(config);
  const root = dir !== undefined ? resolveSpec(dir, cwd, dir) : fromConfig !== undefined ? resolveSpec(fromConfig, configDir, "storage") : resolve(cwd, ".");
  return {
    root,
    limits,
    shell: {
      enabled: flags["allow-shell"] === true || config?.shell?.enabled === true,
      ...(config?.shell?.timeoutMs !== undefined ? { timeoutMs: config.shell.timeoutMs } : {}),
    },
    rules: config?.rules ?? {},
  };
}

/** Resolve `serve`'s settings. Throws UsageError for contradictory flags, StartupError for refused settings. */
export function resolveServeSettings(inputs: ServeInputs): ServeSettings {
  const { flags, config, env } = inputs;
  const configDir = inputs.configPath ? dirname(resolve(inputs.cwd, inputs.configPath)) : inputs.cwd;
  const tools = resolveToolSettings(flags, inputs.dir, config, inputs.cwd, configDir);
  const host = (flags.host as string | undefined) ?? config?.host ?? DEFAULT_HOST;
  const port = (flags.port as number | undefined) ?? config?.port ?? DEFAULT_PORT;
  const scopes = localScopes(tools.shell.enabled);

  const base = inputs.configPath ? dirname(resolve(inputs.cwd, inputs.configPath)) : inputs.cwd;
  const hosting = resolveHosting(flags, config, base, inputs.cwd);
  const jwt = resolveJwt(flags, config, env, inputs.configPath ?? "config");
  if (jwt && !hosting) {
    throw new StartupError("signed tokens name a workspace: use them with hosted workspaces (--workspaces DIR, docs/hosting.md)");
  }
  if (hosting) {
    if (flags["no-auth"] === true) throw new StartupError("--no-auth is refused with --workspaces: hosted workspaces are reached with tokens");
    if (tools.shell.enabled) throw new StartupError("--allow-shell is refused with --workspaces: bash cannot be confined to one workspace");
    const auth = hostedAuth(inputs, base, jwt);
    return {
      ...tools,
      root: hosting.location,
      host,
      port,
      auth,
      extraHosts: config?.allowedHosts ?? [],
      quiet: flags.quiet === true,
      observations: observationSettings(flags, config),
      hosting,
    };
  }

  let auth: ServeAuth;
  if (flags["no-auth"] === true) {
    if (flags.token !== undefined) throw new UsageError("--token and --no-auth cannot be used together");
    if (!isLoopbackHost(host)) {
      throw new StartupError(
        `--no-auth is refused on ${host}: without a token anyone who can reach that address could change files. ` +
          "Bind to 127.0.0.1 (or localhost), or use a token.",
      );
    }
    auth = { mode: "none" };
  } else if (flags.token !== undefined) {
    auth = { mode: "bearer", source: "flag", grants: [{ token: checkToken(flags.token as string, "--token"), scopes, workspace: tools.root }] };
  } else if (env[TOKEN_ENV]) {
    auth = { mode: "bearer", source: "env", grants: [{ token: checkToken(env[TOKEN_ENV]!, TOKEN_ENV), scopes, workspace: tools.root }] };
  } else if (config?.tokens) {
    const source = inputs.configPath ?? "config";
    const grants = config.tokens.map((t, i) => grantOf(t, i, configDir, tools.root, env, source));
    if (tools.shell.enabled) refuseForeignExec(grants, tools.root, source);
    auth = { mode: "bearer", source: "config", grants };
  } else {
    auth = { mode: "bearer", source: "generated", grants: [{ token: inputs.generateToken(), scopes, workspace: tools.root }] };
  }

  return {
    ...tools,
    observations: observationSettings(flags, config),
    host,
    port,
    auth,
    extraHosts: config?.allowedHosts ?? [],
    quiet: flags.quiet === true,
  };
}

/**
 * Auth of a hosting server: config tokens name workspaces; `--token` (or
 * $TOOLWARDEN_TOKEN, or a generated one when neither tokens nor signed-token
 * keys are configured) is a global admin token, to create the first workspaces.
 */
function hostedAuth(inputs: ServeInputs, base: string, jwt: JwtOptions | undefined): ServeAuth {
  const { flags, config, env } = inputs;
  const admin = (token: string): Grant => ({ token, scopes: ["admin"], workspace: "*" });
  const source = inputs.configPath ?? "config";
  const jwtPart = jwt ? { jwt } : {};
  if (flags.token !== undefined) return { mode: "bearer", source: "flag", grants: [admin(checkToken(flags.token as string, "--token"))], ...jwtPart };
  if (env[TOKEN_ENV]) return { mode: "bearer", source: "env", grants: [admin(checkToken(env[TOKEN_ENV]!, TOKEN_ENV))], ...jwtPart };
  if (config?.tokens) {
    const grants = config.tokens.map((t, i) => ({
      ...grantOf(t, i, base, "*", env, source),
      workspace: hostedWorkspace(t.workspace, `${source}: tokens[${i}]`),
    }));
    return { mode: "bearer", source: "config", grants, ...jwtPart };
  }
  if (jwt) return { mode: "bearer", source: "config", grants: [], jwt };
  return { mode: "bearer", source: "generated", grants: [admin(inputs.generateToken())] };
}

function checkToken(token: string, where: string): string {
  if (!/^\S+$/.test(token)) throw new StartupError(`${where}: a token cannot be empty or contain whitespace`);
  return token;
}

/**
 * The shell runs every command in the served directory with the user's own
 * rights: exec cannot be confined to another workspace. A token of another
 * directory holding it would run its commands in the served one (and could
 * change its files), so such a config is refused at start-up.
 */
function refuseForeignExec(grants: readonly Grant[], root: string, source: string): void {
  grants.forEach((grant, i) => {
    if (grant.scopes.includes("exec") && grant.workspace !== root) {
      throw new StartupError(
        `${source}: tokens[${i}]: the exec scope runs bash in the served directory ${root}, not in this token's workspace ` +
          `${grant.workspace}; give exec only to tokens of the served directory, or turn the shell off`,
      );
    }
  });
}

function grantOf(entry: ConfigToken, index: number, base: string, root: string, env: Readonly<Record<string, string | undefined>>, source: string): Grant {
  let token = entry.token;
  if (token === undefined) {
    const name = entry.tokenEnv!;
    token = env[name];
    if (!token) throw new StartupError(`${source}: tokens[${index}].tokenEnv: environment variable ${name} is not set`);
    checkToken(token, `${source}: tokens[${index}].tokenEnv (${name})`);
  }
  return {
    token,
    scopes: entry.scopes,
    workspace: entry.workspace === undefined ? root : resolveSpec(entry.workspace, base, `${source}: tokens[${index}].workspace`),
    ...(entry.label !== undefined ? { label: entry.label } : {}),
  };
}

/** `--observations memory|redis://…` wins over the config's `observations`; memory is the default. */
function observationSettings(flags: FlagValues, config: Config | undefined): ObservationSettings {
  const flag = flags.observations as string | undefined;
  if (flag !== undefined) {
    if (flag === "memory") return { kind: "memory" };
    if (/^rediss?:\/\//.test(flag)) return { kind: "redis", url: flag };
    throw new UsageError(`--observations takes memory or redis://HOST:PORT[/DB] (got ${JSON.stringify(flag)})`);
  }
  const section = config?.observations;
  if (section === undefined || section.kind === "memory") return { kind: "memory" };
  return { kind: "redis", url: section.url, ...(section.idleSeconds !== undefined ? { idleSeconds: section.idleSeconds } : {}) };
}
