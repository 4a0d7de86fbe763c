/** The config file: what is accepted, and that every refusal names its field (or rule) in one line. */
import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config/mod.ts";

function refusal(config: unknown): string {
  const text = typeof config === "string" ? config : JSON.stringify(config);
  try {
    loadConfig(text, "tw.json");
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).not.toContain("\n");
    return message;
  }
  throw new Error("the config was accepted");
}

describe("loadConfig accepts", () => {
  test("an empty object", () => {
    expect(loadConfig("{}", "tw.json")).toEqual({});
  });

  test("every documented field", () => {
    const config = loadConfig(
      JSON.stringify({
        $schema: "./toolwarden.schema.json",
        port: 0,
        host: "127.0.0.1",
        allowedHosts: ["devbox.lan"],
        tokens: [
          { token: "abc", scopes: ["read"], workspace: "../other", label: "ci" },
          { tokenEnv: "TW_TOKEN", scopes: ["read", "write", "exec"] },
        ],
        limits: {
          maxBodyBytes: 1,
          maxFileBytes: 2,
          maxViewLines: 3,
          maxOutputBytes: 4,
          maxLineChars: 5,
          callTimeoutMs: 0,
          observationBytesPerToken: 6,
          mcpSessionsPerToken: 7,
        },
        shell: { enabled: true, timeoutMs: 30000 },
        rules: { builtinRules: false, rules: [{ id: "oops", pattern: "OOPS", action: "error", message: "It said OOPS." }] },
      }),
      "tw.json",
    );
    expect(config.port).toBe(0);
    expect(config.tokens?.[1].tokenEnv).toBe("TW_TOKEN");
    expect(config.limits?.callTimeoutMs).toBe(0);
    expect(config.shell).toEqual({ enabled: true, timeoutMs: 30000 });
    // Rule defaults are applied, so what the server installs is what the file means.
    expect(config.rules?.shellTools).toEqual(["bash"]);
    expect(config.rules?.rules[0].when).toBe("success");
  });
});

describe("loadConfig refuses, naming the field", () => {
  test("text that is not JSON, or not an object", () => {
    expect(refusal("{port: 1}")).toStartWith("tw.json: not valid JSON (");
    expect(refusal("[1]")).toBe('tw.json: must be a JSON object like {"port": 7878}');
  });

  test("an unknown top-level field, listing the known ones", () => {
    expect(refusal({ prot: 8080 })).toBe(
      "tw.json: prot: unknown field (known fields: $schema, port, host, allowedHosts, tokens, jwt, workspaces, limits, shell, rules, storage, observations)",
    );
  });

  test("an unknown nested field, with its full path", () => {
    expect(refusal({ limits: { maxBodyByte: 1 } })).toStartWith("tw.json: limits.maxBodyByte: unknown field (known fields: maxBodyBytes,");
    expect(refusal({ tokens: [{ token: "a", scopes: ["read"], scope: "x" }] })).toStartWith("tw.json: tokens[0].scope: unknown field");
    expect(refusal({ shell: { enable: true } })).toStartWith("tw.json: shell.enable: unknown field");
  });

  test("values of the wrong type or range", () => {
    expect(refusal({ port: 70000 })).toBe("tw.json: port: port must be 0 (any free port) to 65535");
    expect(refusal({ port: "7878" })).toBe("tw.json: port: port must be a number");
    expect(refusal({ limits: { maxViewLines: 0 } })).toBe("tw.json: limits.maxViewLines: maxViewLines must be 1 or more");
    expect(refusal({ limits: { callTimeoutMs: 1.5 } })).toBe("tw.json: limits.callTimeoutMs: callTimeoutMs must be an integer");
    expect(refusal({ limits: { mcpSessionsPerToken: 0 } })).toBe("tw.json: limits.mcpSessionsPerToken: mcpSessionsPerToken must be 1 or more");
    expect(refusal({ limits: { observationBytesPerToken: 0 } })).toBe("tw.json: limits.observationBytesPerToken: observationBytesPerToken must be 1 or more");
    expect(refusal({ shell: { enabled: "yes" } })).toBe("tw.json: shell.enabled: enabled must be a boolean");
    expect(refusal({ host: "" })).toBe("tw.json: host: host must not be empty");
  });

  test("tokens: a bad scope, both or neither of token and tokenEnv, no scopes", () => {
    expect(refusal({ tokens: [{ token: "a", scopes: ["read", "root"] }] })).toBe(
      'tw.json: tokens[0].scopes[1]: scopes entries must be one of read, write, exec, admin, audit (got "root")',
    );
    expect(refusal({ tokens: [{ token: "a", tokenEnv: "B", scopes: ["read"] }] })).toBe("tw.json: tokens[0]: give exactly one of token and tokenEnv");
    expect(refusal({ tokens: [{ scopes: ["read"] }] })).toBe("tw.json: tokens[0]: give exactly one of token and tokenEnv");
    expect(refusal({ tokens: [{ token: "a", scopes: [] }] })).toBe("tw.json: tokens[0].scopes: scopes must name at least one scope");
    expect(refusal({ tokens: [{ token: "a b", scopes: ["read"] }] })).toBe("tw.json: tokens[0].token: token must not contain whitespace");
    expect(refusal({ tokens: [{ tokenEnv: "1BAD", scopes: ["read"] }] })).toBe("tw.json: tokens[0].tokenEnv: tokenEnv must be an environment variable name");
    expect(refusal({ tokens: [] })).toBe("tw.json: tokens: tokens must not be empty");
  });
});

describe("loadConfig refuses a broken rule table, naming the rule id", () => {
  test("a pattern that does not compile", () => {
    expect(refusal({ rules: { rules: [{ id: "bad-regex", pattern: "(", action: "error", message: "m" }] } })).toStartWith(
      'tw.json: rules: rule "bad-regex": invalid pattern',
    );
  });

  test("a stateful flag, a duplicate id, a missing message", () => {
    const rule = { pattern: "x", action: "error", message: "m" };
    expect(refusal({ rules: { rules: [{ id: "g-flag", ...rule, flags: "g" }] } })).toStartWith('tw.json: rules: rule "g-flag": ');
    expect(
      refusal({
        rules: {
          rules: [
            { id: "twice", ...rule },
            { id: "twice", ...rule },
          ],
        },
      }),
    ).toBe('tw.json: rules: rule "twice": duplicate id: two user rules share it');
    expect(refusal({ rules: { rules: [{ id: "mute", pattern: "x", action: "error" }] } })).toBe(
      'tw.json: rules: rule "mute": message is required unless action is off',
    );
  });

  test("a rule without an id is named by its position; a bad setting by its field", () => {
    expect(refusal({ rules: { rules: [{ pattern: "x", action: "error", message: "m" }] } })).toStartWith('tw.json: rules: rule "rules[0]": ');
    expect(refusal({ rules: { excerptChars: -1 } })).toBe("tw.json: rules.excerptChars: excerptChars must be 0 or more");
  });
});

describe("the storage and observations sections", () => {
  test("each storage kind and each observations kind is accepted", () => {
    for (const storage of [
      { kind: "local", path: "work" },
      { kind: "memory" },
      { kind: "memory", seed: "seed" },
      { kind: "s3", bucket: "b", prefix: "team/ws1" },
    ]) {
      expect(loadConfig(JSON.stringify({ storage }), "tw.json").storage).toEqual(storage as never);
    }
    const redis = { kind: "redis", url: "redis://127.0.0.1:6379/0", idleSeconds: 3600 };
    expect(loadConfig(JSON.stringify({ observations: redis }), "tw.json").observations).toEqual(redis as never);
    expect(loadConfig(JSON.stringify({ observations: { kind: "memory" } }), "tw.json").observations).toEqual({ kind: "memory" });
  });

  test("refusals name the field", () => {
    expect(refusal({ storage: { kind: "ftp" } })).toBe('tw.json: storage.kind: kind must be local, memory or s3 (got "ftp")');
    expect(refusal({ storage: { path: "x" } })).toBe("tw.json: storage.kind: missing required field kind (local, memory or s3)");
    expect(refusal({ storage: { kind: "s3" } })).toBe('tw.json: storage.bucket: missing required field "bucket"');
    expect(refusal({ storage: { kind: "s3", bucket: "a/b" } })).toBe("tw.json: storage.bucket: bucket must not contain /");
    expect(refusal({ storage: { kind: "local", path: "x", accessKey: "k" } })).toBe("tw.json: storage.accessKey: unknown field (known fields: kind, path)");
    expect(refusal({ observations: { kind: "redis", url: "http://x" } })).toBe("tw.json: observations.url: url must look like redis://HOST:PORT[/DB]");
    expect(refusal({ observations: { kind: "redis", url: "redis://x", idleSeconds: 0 } })).toBe(
      "tw.json: observations.idleSeconds: idleSeconds must be 1 or more",
    );
  });
});
