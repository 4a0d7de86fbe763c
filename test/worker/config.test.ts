/** The Worker's settings: defaults, lists, and refusals that name the setting without quoting a token. */
import { describe, expect, test } from "bun:test";
import { MIN_TOKEN_CHARS, parseWorkerConfig, WORKER_MAX_FILE_BYTES, WorkerConfigError } from "../../src/worker/config.ts";

const TOKEN = "tok-0123456789abcdef-SECRET";
const grant = (extra: Record<string, unknown> = {}) => ({ token: TOKEN, workspace: "ws1", scopes: ["read", "write"], ...extra });
const tokens = (...grants: unknown[]) => JSON.stringify(grants);

function refusal(vars: Record<string, string>): string {
  try {
    parseWorkerConfig(vars);
  } catch (error) {
    expect(error).toBeInstanceOf(WorkerConfigError);
    return (error as Error).message;
  }
  throw new Error("the configuration was accepted");
}

describe("parseWorkerConfig", () => {
  test("a minimal configuration gets the edge defaults", () => {
    const config = parseWorkerConfig({ TOOLWARDEN_TOKENS: tokens(grant({ label: "ci" })) });
    expect(config.tokens).toEqual([{ token: TOKEN, workspace: "ws1", scopes: ["read", "write"], label: "ci" }]);
    expect(config).toMatchObject({ allowedHosts: "*", allowedOrigins: "*", maxFileBytes: WORKER_MAX_FILE_BYTES, rules: {} });
    expect(config.observations).toEqual({ maxPathsPerSession: 10_000, idleSeconds: 86_400 });
  });

  test("host and origin lists, file limit, rules and observation bounds come from vars", () => {
    const config = parseWorkerConfig({
      TOOLWARDEN_TOKENS: tokens(grant()),
      TOOLWARDEN_ALLOWED_HOSTS: " tools.example.com , api.example.com:8443 ",
      TOOLWARDEN_ALLOWED_ORIGINS: "https://app.example.com",
      TOOLWARDEN_MAX_FILE_BYTES: "1048576",
      TOOLWARDEN_RULES: '{"rules": []}',
      TOOLWARDEN_MAX_PATHS_PER_SESSION: "50",
      TOOLWARDEN_SESSION_IDLE_SECONDS: "600",
    });
    expect(config).toMatchObject({
      allowedHosts: ["tools.example.com", "api.example.com:8443"],
      allowedOrigins: ["https://app.example.com"],
      maxFileBytes: 1_048_576,
      rules: { rules: [] },
      observations: { maxPathsPerSession: 50, idleSeconds: 600 },
    });
  });

  const broken: Array<[string, Record<string, string>, RegExp]> = [
    ["unset", {}, /TOOLWARDEN_TOKENS is not set.*wrangler secret put TOOLWARDEN_TOKENS/],
    ["blank", { TOOLWARDEN_TOKENS: "  " }, /TOOLWARDEN_TOKENS is not set/],
    ["not JSON", { TOOLWARDEN_TOKENS: `[{"token": "${TOKEN}"` }, /TOOLWARDEN_TOKENS is not valid JSON/],
    ["not an array", { TOOLWARDEN_TOKENS: JSON.stringify(grant()) }, /must be a JSON array/],
    ["empty", { TOOLWARDEN_TOKENS: "[]" }, /at least one token/],
    ["short token", { TOOLWARDEN_TOKENS: tokens(grant({ token: "short-SECRET" })) }, new RegExp(`entry #1 token: token must be at least ${MIN_TOKEN_CHARS}`)],
    ["numeric token", { TOOLWARDEN_TOKENS: tokens(grant({ token: 1234567890123456 })) }, /entry #1 token: token must be a string/],
    ["token with a space", { TOOLWARDEN_TOKENS: tokens(grant({ token: "SECRET with spaces inside" })) }, /token must not contain whitespace/],
    ["nested workspace", { TOOLWARDEN_TOKENS: tokens(grant(), grant({ token: `${TOKEN}2`, workspace: "ws1/sub" })) }, /entry #2 workspace: .*no '\/'/],
    ["dot workspace", { TOOLWARDEN_TOKENS: tokens(grant({ workspace: ".." })) }, /entry #1 workspace/],
    ["no scopes", { TOOLWARDEN_TOKENS: tokens({ token: TOKEN, workspace: "ws1" }) }, /entry #1 scopes/],
    ["unknown scope", { TOOLWARDEN_TOKENS: tokens(grant({ scopes: ["root"] })) }, /scopes may only contain read, write, exec, admin, audit/],
    ["unknown field", { TOOLWARDEN_TOKENS: tokens(grant({ tokn: TOKEN })) }, /entry #1 tokn/],
    ["file limit", { TOOLWARDEN_TOKENS: tokens(grant()), TOOLWARDEN_MAX_FILE_BYTES: "8MB" }, /TOOLWARDEN_MAX_FILE_BYTES must be a positive integer/],
    [
      "path bound",
      { TOOLWARDEN_TOKENS: tokens(grant()), TOOLWARDEN_MAX_PATHS_PER_SESSION: "0" },
      /TOOLWARDEN_MAX_PATHS_PER_SESSION must be a positive integer/,
    ],
    ["rules", { TOOLWARDEN_TOKENS: tokens(grant()), TOOLWARDEN_RULES: "{rules" }, /TOOLWARDEN_RULES is not valid JSON/],
  ];
  for (const [label, vars, message] of broken) {
    test(`refuses ${label}, naming the setting and never quoting a token`, () => {
      const text = refusal(vars);
      expect(text).toMatch(message);
      expect(text).not.toMatch(/SECRET|0123456789abcdef|12345678901234567890/);
    });
  }
});
