/** The token table: which header yields which principal, and what a principal reveals. */
import { describe, expect, test } from "bun:test";
import { createAuthenticator, type Principal } from "../../src/http/mod.ts";

const auth = createAuthenticator({
  mode: "bearer",
  tokens: [
    { token: "alpha-secret-token", workspace: "ws-a", scopes: ["read", "write"], label: "alpha" },
    { token: "beta-secret-token", workspace: "ws-b", scopes: ["read"] },
  ],
});

async function principal(header: string): Promise<Principal> {
  const outcome = await auth.authenticate(header);
  if (!outcome.ok) throw new Error(`not authenticated: ${outcome.failure}`);
  return outcome.principal;
}

describe("bearer tokens", () => {
  test("each token maps to its workspace and scopes", async () => {
    const a = await principal("Bearer alpha-secret-token");
    expect(a.workspace).toBe("ws-a");
    expect([...a.scopes]).toEqual(["read", "write"]);
    expect(a.label).toBe("alpha");
    const b = await principal("Bearer beta-secret-token");
    expect(b.workspace).toBe("ws-b");
    expect([...b.scopes]).toEqual(["read"]);
  });

  test("the principal id is stable, distinct per token and does not contain the token", async () => {
    const a1 = await principal("Bearer alpha-secret-token");
    const a2 = await principal("bearer   alpha-secret-token ");
    const b = await principal("Bearer beta-secret-token");
    expect(a1.id).toBe(a2.id);
    expect(a1.id).not.toBe(b.id);
    expect(a1.id).toMatch(/^t_[0-9a-f]{16}$/);
    expect(JSON.stringify([a1, b])).not.toContain("secret");
    expect(b.label).toBe(b.id);
  });

  test("missing, malformed and wrong credentials are told apart", async () => {
    expect(await auth.authenticate(undefined)).toEqual({ ok: false, failure: "missing" });
    expect(await auth.authenticate("")).toEqual({ ok: false, failure: "missing" });
    expect(await auth.authenticate("Basic YTpi")).toEqual({ ok: false, failure: "malformed" });
    expect(await auth.authenticate("Bearer two words")).toEqual({ ok: false, failure: "malformed" });
    for (const wrong of ["alpha-secret-toke", "alpha-secret-tokenX", "ALPHA-SECRET-TOKEN", "beta"]) {
      expect(await auth.authenticate(`Bearer ${wrong}`)).toEqual({ ok: false, failure: "invalid" });
    }
  });
});

describe("configuration errors fail at start-up", () => {
  const grant = { token: "t1", workspace: "w", scopes: ["read" as const] };
  test.each([
    ["an empty token", [{ ...grant, token: "" }], /empty/],
    ["a token with whitespace", [{ ...grant, token: "a b" }], /whitespace/],
    ["a duplicate token", [grant, { ...grant, workspace: "other" }], /twice/],
    ["no workspace", [{ ...grant, workspace: "" }], /workspace/],
    ["an unknown scope", [{ ...grant, scopes: ["root"] as never }], /unknown scope/],
  ])("%s", (_name, tokens, message) => {
    expect(() => createAuthenticator({ mode: "bearer", tokens })).toThrow(message);
  });
});

describe("no-auth mode", () => {
  test("every request is the one local principal, whatever it sends", async () => {
    const none = createAuthenticator({ mode: "none", workspace: "local-ws" });
    expect(none.required).toBe(false);
    for (const header of [undefined, "Bearer anything", "garbage"]) {
      const outcome = await none.authenticate(header);
      expect(outcome.ok).toBe(true);
      if (outcome.ok) {
        expect(outcome.principal.workspace).toBe("local-ws");
        expect([...outcome.principal.scopes]).toEqual(["read", "write", "exec"]);
      }
    }
  });

  test("scopes can be narrowed", async () => {
    const outcome = await createAuthenticator({ mode: "none", workspace: "w", scopes: ["read"] }).authenticate(undefined);
    expect(outcome.ok && [...outcome.principal.scopes]).toEqual(["read"]);
  });
});
