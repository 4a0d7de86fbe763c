/**
 * Hosting settings and the `token mint` command: what `serve --workspaces`
 * accepts and refuses, where keys come from, and a minted token printed
 * alone on one line (the real command, as a subprocess).
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { exportJWK, generateKeyPair } from "jose";
import { StartupError } from "../../src/cli/errors.ts";
import { resolveServeSettings, type ServeInputs } from "../../src/cli/settings.ts";
import { loadConfig } from "../../src/config/mod.ts";
import { createJwtVerifier } from "../../src/http/jwt.ts";
import { parseWorkerConfig } from "../../src/worker/config.ts";
import { runCli, tempDir } from "../helpers/cli.ts";

const SECRET = "s".repeat(40);
const settings = (flags: Record<string, string | boolean>, more: Partial<ServeInputs> = {}) =>
  resolveServeSettings({ flags, env: { TW_JWT: SECRET }, cwd: "/work", generateToken: () => "generated", ...more });

describe("serve --workspaces settings", () => {
  test("--workspaces DIR hosts workspaces; --jwt-secret-env adds an HS256 key; no static token is generated then", () => {
    const s = settings({ workspaces: "spaces", "jwt-secret-env": "TW_JWT" });
    expect(s.hosting?.location).toBe("/work/spaces");
    expect(s.auth.mode === "bearer" && s.auth.grants).toEqual([]);
    expect(s.auth.mode === "bearer" && s.auth.jwt?.keys).toEqual([{ alg: "HS256", secret: new TextEncoder().encode(SECRET) }]);
    expect(settings({ workspaces: "s3://bucket/pre" }).hosting?.location).toBe("s3://bucket/pre");
  });

  test("without keys, --token (or a generated token) is a global admin token", () => {
    const s = settings({ workspaces: "/w", token: "t-0123456789" });
    expect(s.auth.mode === "bearer" && s.auth.grants).toEqual([{ token: "t-0123456789", scopes: ["admin"], workspace: "*" }]);
    const g = settings({ workspaces: "/w" });
    expect(g.auth.mode === "bearer" && g.auth.grants[0]).toEqual({ token: "generated", scopes: ["admin"], workspace: "*" });
  });

  test("refused: signed tokens without workspaces, --no-auth, --allow-shell, a missing or short secret, a config token without a workspace name", () => {
    expect(() => settings({ "jwt-secret-env": "TW_JWT" })).toThrow(/--workspaces/);
    expect(() => settings({ workspaces: "/w", "no-auth": true })).toThrow(StartupError);
    expect(() => settings({ workspaces: "/w", "allow-shell": true })).toThrow(/bash cannot be confined/);
    expect(() => settings({ workspaces: "/w", "jwt-secret-env": "NOPE" })).toThrow(/NOPE is not set/);
    expect(() => settings({ workspaces: "/w", "jwt-secret-env": "TW_JWT" }, { env: { TW_JWT: "short" } })).toThrow(/32 bytes/);
    const config = loadConfig('{"tokens": [{"token": "abc", "scopes": ["read"]}]}', "c.json");
    expect(() => settings({ workspaces: "/w" }, { config })).toThrow(/names its workspace/);
    const named = loadConfig('{"tokens": [{"token": "abc", "scopes": ["read"], "workspace": "ws1"}]}', "c.json");
    expect(settings({ workspaces: "/w" }, { config: named }).auth).toMatchObject({ grants: [{ workspace: "ws1" }] });
  });

  test("config: workspaces.dir relative to the file, quota and import limits, jwt keys by kid", async () => {
    const pair = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
    const pub = await exportJWK(pair.publicKey);
    const config = loadConfig(
      JSON.stringify({
        workspaces: { dir: "spaces", quota: { maxFiles: 7 }, import: { maxRatio: 50 } },
        jwt: {
          keys: [
            { kid: "a", alg: "HS256", secretEnv: "TW_JWT" },
            { kid: "b", alg: "EdDSA", jwk: pub },
          ],
          maxLifetimeSeconds: 600,
        },
      }),
      "/etc/tw/c.json",
    );
    const s = settings({}, { config, configPath: "/etc/tw/c.json" });
    expect(s.hosting).toMatchObject({ location: "/etc/tw/spaces", quota: { maxFiles: 7, maxBytes: 1024 ** 3 }, importLimits: { maxRatio: 50 } });
    expect(s.auth.mode === "bearer" && s.auth.jwt?.keys.map((k) => k.kid)).toEqual(["a", "b"]);
    expect(() => loadConfig(JSON.stringify({ jwt: { keys: [{ alg: "EdDSA", jwk: { ...pub, d: "x" } }] } }), "c.json")).toThrow(/remove "d"/);
    expect(() => loadConfig(JSON.stringify({ jwt: { keys: [{ alg: "none" }] } }), "c.json")).toThrow(/HS256/);
  });
});

describe("Worker: TOOLWARDEN_JWT_KEYS", () => {
  test("keys by kid; TOOLWARDEN_TOKENS becomes optional; quota vars", () => {
    const config = parseWorkerConfig({
      TOOLWARDEN_JWT_KEYS: JSON.stringify([{ kid: "k1", alg: "HS256", secret: SECRET }]),
      TOOLWARDEN_QUOTA_MAX_BYTES: "5000",
    });
    expect(config.tokens).toEqual([]);
    expect(config.jwt?.keys).toEqual([{ kid: "k1", alg: "HS256", secret: new TextEncoder().encode(SECRET) }]);
    expect(config.quota).toEqual({ maxBytes: 5000, maxFiles: 100_000 });
  });

  test("a broken key set is refused without quoting the secret", () => {
    const secret = "tiny-secret-value";
    for (const raw of [`[{"alg":"HS256","secret":"${secret}"}]`, `[{"alg":"HS256","secret":"${secret}"`, `[{"alg":"RS256","secret":"${secret}"}]`]) {
      let message = "";
      try {
        parseWorkerConfig({ TOOLWARDEN_JWT_KEYS: raw });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain("TOOLWARDEN_JWT_KEYS");
      expect(message).not.toContain(secret);
    }
  });
});

describe("toolwarden token mint", () => {
  const dir = tempDir("tw-mint-");
  const env = { TW_KEY: SECRET };

  test("prints the token alone on one line; the server's verifier accepts it", async () => {
    const done = await runCli(
      ["token", "mint", "--workspace", "ws1", "--scopes", "read,write", "--ttl", "1h", "--label", "a1", "--kid", "k", "--key-env", "TW_KEY"],
      { env },
    );
    expect(done).toMatchObject({ code: 0, stderr: "" });
    expect(done.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const verifier = createJwtVerifier({ keys: [{ alg: "HS256", kid: "k", secret: new TextEncoder().encode(SECRET) }] });
    expect(await verifier.verify(done.stdout.trim())).toMatchObject({ ok: true, grant: { workspace: "ws1", scopes: ["read", "write"], sub: "a1" } });
  });

  test("an Ed25519 private JWK in a key file signs EdDSA", async () => {
    const pair = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
    const file = join(dir.path, "ed.jwk");
    writeFileSync(file, JSON.stringify({ ...(await exportJWK(pair.privateKey)), kid: "ed-1" }));
    const done = await runCli(["token", "mint", "--workspace", "*", "--scopes", "admin", "--ttl", "10m", "--key-file", file]);
    expect(done.code).toBe(0);
    const verifier = createJwtVerifier({ keys: [{ alg: "EdDSA", kid: "ed-1", jwk: await exportJWK(pair.publicKey) }] });
    expect(await verifier.verify(done.stdout.trim())).toMatchObject({ ok: true, grant: { workspace: "*", scopes: ["admin"] } });
  });

  test.each([
    [["--scopes", "read", "--ttl", "1h", "--key-env", "TW_KEY"], "--workspace is required"],
    [["--workspace", "ws1", "--scopes", "read,root", "--ttl", "1h", "--key-env", "TW_KEY"], "unknown scope"],
    [["--workspace", "*", "--scopes", "read", "--ttl", "1h", "--key-env", "TW_KEY"], "admin tokens only"],
    [["--workspace", "ws1", "--scopes", "read", "--ttl", "soon", "--key-env", "TW_KEY"], "--ttl"],
    [["--workspace", "ws1", "--scopes", "read", "--ttl", "1h"], "exactly one of --key-file"],
    [["--workspace", "ws1", "--scopes", "read", "--ttl", "1h", "--key-env", "SHORT"], "at least 32 bytes"],
  ] as [string[], string][])("refused: %p", async (args, message) => {
    const done = await runCli(["token", "mint", ...args], { env: { ...env, SHORT: "abc" } });
    expect(done.code).toBe(2);
    expect(done.stdout).toBe("");
    expect(done.stderr).toContain(message);
  });
});
