/** How flags, the environment and the config file combine into what `serve` runs with. */
import { describe, expect, test } from "bun:test";
import { UsageError, type FlagValues } from "../../src/cli/args.ts";
import { StartupError } from "../../src/cli/errors.ts";
import { DEFAULT_HOST, DEFAULT_PORT, isLoopbackHost, resolveServeSettings, type ServeInputs } from "../../src/cli/settings.ts";
import { callTimeoutFor } from "../../src/cli/toolset.ts";
import { loadConfig } from "../../src/config/mod.ts";
import { MAX_BASH_TIMEOUT_MS } from "../../src/tools/bash/run.ts";

function settings(flags: FlagValues, more: Partial<ServeInputs> = {}) {
  return resolveServeSettings({ flags, env: {}, cwd: "/work", generateToken: () => "generated", ...more });
}

describe("serve settings", () => {
  test("defaults: the current directory on 127.0.0.1:7878 with a generated read/write token", () => {
    const s = settings({});
    expect([s.root, s.host, s.port]).toEqual(["/work", DEFAULT_HOST, DEFAULT_PORT]);
    expect(s.auth).toEqual({ mode: "bearer", source: "generated", grants: [{ token: "generated", scopes: ["read", "write"], workspace: "/work" }] });
    expect(s.shell.enabled).toBe(false);
  });

  test("the exec scope comes only with the shell (flag or config)", () => {
    const flag = settings({ "allow-shell": true });
    expect(flag.auth.mode === "bearer" && flag.auth.grants[0].scopes).toEqual(["read", "write", "exec"]);
    const config = settings({}, { config: loadConfig('{"shell": {"enabled": true, "timeoutMs": 5000}}', "c.json") });
    expect(config.shell).toEqual({ enabled: true, timeoutMs: 5000 });
    expect(config.auth.mode === "bearer" && config.auth.grants[0].scopes).toContain("exec");
  });

  test("token precedence: --token, then TOOLWARDEN_TOKEN, then the config's tokens, then a generated one", () => {
    const config = loadConfig('{"tokens": [{"token": "from-file", "scopes": ["read"]}]}', "c.json");
    const env = { TOOLWARDEN_TOKEN: "from-env" };
    const grant = (s: ReturnType<typeof settings>) => (s.auth.mode === "bearer" ? [s.auth.source, s.auth.grants[0].token] : []);
    expect(grant(settings({ token: "from-flag" }, { env, config }))).toEqual(["flag", "from-flag"]);
    expect(grant(settings({}, { env, config }))).toEqual(["env", "from-env"]);
    expect(grant(settings({}, { config }))).toEqual(["config", "from-file"]);
    expect(grant(settings({}))).toEqual(["generated", "generated"]);
  });

  test("flags override the file's port and host; the file overrides the defaults", () => {
    const config = loadConfig('{"port": 9000, "host": "localhost"}', "c.json");
    expect(settings({}, { config })).toMatchObject({ port: 9000, host: "localhost" });
    expect(settings({ port: 0, host: "127.0.0.2" }, { config })).toMatchObject({ port: 0, host: "127.0.0.2" });
  });

  test("config token workspaces resolve against the config file's directory; tokenEnv reads the environment", () => {
    const config = loadConfig('{"tokens": [{"tokenEnv": "T1", "scopes": ["read"], "workspace": "../data"}, {"token": "t2", "scopes": ["write"]}]}', "c.json");
    const s = settings({}, { dir: "repo", config, configPath: "etc/tw.json", env: { T1: "secret" } });
    expect(s.auth.mode === "bearer" && s.auth.grants).toEqual([
      { token: "secret", scopes: ["read"], workspace: "/work/data" },
      { token: "t2", scopes: ["write"], workspace: "/work/repo" },
    ]);
  });

  test("a tokenEnv that is unset is a start-up error naming the entry and the variable", () => {
    const config = loadConfig('{"tokens": [{"tokenEnv": "NOPE", "scopes": ["read"]}]}', "c.json");
    expect(() => settings({}, { config, configPath: "c.json" })).toThrow(new StartupError("c.json: tokens[0].tokenEnv: environment variable NOPE is not set"));
  });

  test("--no-auth: allowed on loopback, refused elsewhere, and not with --token", () => {
    expect(settings({ "no-auth": true }).auth).toEqual({ mode: "none" });
    expect(settings({ "no-auth": true, host: "::1" }).auth).toEqual({ mode: "none" });
    expect(() => settings({ "no-auth": true, host: "0.0.0.0" })).toThrow(StartupError);
    expect(() => settings({ "no-auth": true }, { config: loadConfig('{"host": "192.168.1.5"}', "c.json") })).toThrow(/--no-auth is refused on 192\.168\.1\.5/);
    expect(() => settings({ "no-auth": true, token: "t" })).toThrow(UsageError);
  });

  test("a token with whitespace (e.g. a stray newline in the env) is refused", () => {
    expect(() => settings({}, { env: { TOOLWARDEN_TOKEN: "abc\n" } })).toThrow(/TOOLWARDEN_TOKEN: a token cannot be empty or contain whitespace/);
  });
});

describe("isLoopbackHost", () => {
  test("loopback names and addresses", () => {
    for (const host of ["localhost", "LOCALHOST", "127.0.0.1", "127.1.2.3", "::1", "[::1]"]) expect(isLoopbackHost(host)).toBe(true);
    for (const host of ["0.0.0.0", "::", "192.168.0.1", "localhost.evil.com", "128.0.0.1", "example.com"]) expect(isLoopbackHost(host)).toBe(false);
  });
});

describe("callTimeoutFor", () => {
  const base = { root: "/r", limits: {}, shell: { enabled: false }, rules: {} };
  test("one minute by default; with the shell, longer than the longest command a call may ask for", () => {
    expect(callTimeoutFor(base)).toBe(60_000);
    expect(callTimeoutFor({ ...base, shell: { enabled: true } })).toBeGreaterThan(MAX_BASH_TIMEOUT_MS);
    expect(callTimeoutFor({ ...base, shell: { enabled: true, timeoutMs: 900_000 } })).toBeGreaterThan(900_000);
  });

  test("a configured limit wins, 0 (none) included", () => {
    expect(callTimeoutFor({ ...base, limits: { callTimeoutMs: 0 }, shell: { enabled: true } })).toBe(0);
    expect(callTimeoutFor({ ...base, limits: { callTimeoutMs: 5_000 } })).toBe(5_000);
  });
});

describe("workspace specs and observations", () => {
  test("the argument may be a directory (made absolute), memory:[DIR] (its seed made absolute) or s3:// (as written)", () => {
    expect(settings({}, { dir: "sub" }).root).toBe("/work/sub");
    expect(settings({}, { dir: "memory:" }).root).toBe("memory:");
    expect(settings({}, { dir: "memory:seed" }).root).toBe("memory:/work/seed");
    expect(settings({}, { dir: "s3://b/p/" }).root).toBe("s3://b/p");
  });

  test("the config's storage is relative to the config file; the argument wins over it", () => {
    const config = loadConfig('{"storage": {"kind": "memory", "seed": "seed"}}', "c.json");
    expect(settings({}, { config, configPath: "etc/tw.json" }).root).toBe("memory:/work/etc/seed");
    expect(settings({}, { config, configPath: "etc/tw.json", dir: "." }).root).toBe("/work");
    const s3 = loadConfig('{"storage": {"kind": "s3", "bucket": "b", "prefix": "team"}}', "c.json");
    expect(settings({}, { config: s3 }).root).toBe("s3://b/team");
  });

  test("a token's workspace may be any spec too", () => {
    const config = loadConfig(
      '{"tokens": [{"token": "t1", "scopes": ["read"], "workspace": "s3://b/ws1"}, {"token": "t2", "scopes": ["read"], "workspace": "w2"}]}',
      "c.json",
    );
    const s = settings({}, { config, configPath: "c.json" });
    expect(s.auth.mode === "bearer" && s.auth.grants.map((g) => g.workspace)).toEqual(["s3://b/ws1", "/work/w2"]);
  });

  test("an unknown scheme is a StartupError naming it", () => {
    expect(() => settings({}, { dir: "gs://b" })).toThrow(StartupError);
  });

  test("observations: memory by default; --observations wins over the config", () => {
    expect(settings({}).observations).toEqual({ kind: "memory" });
    const config = loadConfig('{"observations": {"kind": "redis", "url": "redis://r:6379/1", "idleSeconds": 60}}', "c.json");
    expect(settings({}, { config }).observations).toEqual({ kind: "redis", url: "redis://r:6379/1", idleSeconds: 60 });
    expect(settings({ observations: "memory" }, { config }).observations).toEqual({ kind: "memory" });
    expect(settings({ observations: "redis://h:1/2" }).observations).toEqual({ kind: "redis", url: "redis://h:1/2" });
    expect(() => settings({ observations: "mongo://x" })).toThrow(UsageError);
  });
});
