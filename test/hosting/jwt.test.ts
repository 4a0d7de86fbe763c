/**
 * Signed tokens: algorithms, keys by kid, required and bounded claims, and
 * refusals that say why without echoing the token. The verifier runs with
 * an injected clock, so nothing here depends on the wall clock.
 */
import { describe, expect, test } from "bun:test";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { mintToken, parseTtl, secretBytes, signingKeyFrom, type SigningKey } from "../../src/cli/mint.ts";
import { createAuthenticator } from "../../src/http/auth.ts";
import { createJwtVerifier, type JwtOptions, type JwtScope } from "../../src/http/jwt.ts";
import { createApp } from "../../src/http/app.ts";
import { jsHasher } from "../../src/hash/js.ts";
import { createMemoryObservationStore } from "../../src/policy/memory.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { fileTools } from "../../src/tools/mod.ts";

const NOW = 1_900_000_000;
const clock = () => NOW * 1000;
const SECRET_A = secretBytes(`${"a".repeat(32)}-first-key`);
const SECRET_B = secretBytes(`${"b".repeat(32)}-second-key`);
const keyA: SigningKey = { alg: "HS256", kid: "a", secret: SECRET_A };
const keyB: SigningKey = { alg: "HS256", kid: "b", secret: SECRET_B };
const base: JwtOptions = {
  keys: [
    { alg: "HS256", kid: "a", secret: SECRET_A },
    { alg: "HS256", kid: "b", secret: SECRET_B },
  ],
  now: clock,
  maxLifetimeSeconds: 3600,
};
const claims = { workspace: "ws1", scopes: ["read", "write"] as JwtScope[], ttlSeconds: 600, now: NOW };

const b64 = (value: unknown) => btoa(JSON.stringify(value)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");

describe("verifying signed tokens", () => {
  const verifier = createJwtVerifier(base);

  test("an HS256 token yields its workspace, scopes and sub; keys are chosen by kid (rotation)", async () => {
    for (const key of [keyA, keyB]) {
      const outcome = await verifier.verify(await mintToken(key, { ...claims, label: "agent-7" }));
      expect(outcome).toEqual({ ok: true, grant: { kid: key.kid, workspace: "ws1", scopes: ["read", "write"], sub: "agent-7", exp: NOW + 600, iat: NOW } });
    }
    // Signed with b's secret but naming kid a: the signature does not verify.
    const crossed = await mintToken({ ...keyB, kid: "a" }, claims);
    expect(await verifier.verify(crossed)).toMatchObject({ ok: false, refusal: { kind: "invalid", reason: expect.stringContaining("signature") } });
    const unknownKid = await mintToken({ ...keyA, kid: "zzz" }, claims);
    expect(await verifier.verify(unknownKid)).toMatchObject({ ok: false, refusal: { reason: expect.stringContaining("no key") } });
  });

  test("EdDSA (Ed25519) with a public JWK", async () => {
    const pair = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
    const pub = await exportJWK(pair.publicKey);
    const ed = createJwtVerifier({ keys: [{ alg: "EdDSA", kid: "ed", jwk: pub }], now: clock });
    const token = await mintToken({ alg: "EdDSA", kid: "ed", jwk: await exportJWK(pair.privateKey) }, claims);
    expect(await ed.verify(token)).toMatchObject({ ok: true, grant: { workspace: "ws1" } });
    // An HS256 token is refused by a server holding only the Ed25519 key, whatever its kid says.
    expect(await ed.verify(await mintToken({ ...keyA, kid: "ed" }, claims))).toMatchObject({ ok: false, refusal: { kind: "invalid" } });
  });

  test("alg none and algorithms no key has are refused", async () => {
    const none = `${b64({ alg: "none", kid: "a" })}.${b64({ ws: "ws1", scope: "read", exp: NOW + 60 })}.c2ln`;
    expect(await verifier.verify(none)).toMatchObject({ ok: false, refusal: { kind: "invalid" } });
    const hs512 = await new SignJWT({ ws: "ws1", scope: "read" })
      .setProtectedHeader({ alg: "HS512", kid: "a" })
      .setExpirationTime(NOW + 60)
      .sign(new Uint8Array(64).fill(97));
    expect(await verifier.verify(hs512)).toMatchObject({ ok: false, refusal: { reason: expect.stringContaining("alg") } });
  });

  test("expired and not-yet-valid are told apart", async () => {
    expect(await verifier.verify(await mintToken(keyA, { ...claims, now: NOW - 1200 }))).toMatchObject({ ok: false, refusal: { kind: "expired" } });
    const early = await new SignJWT({ ws: "ws1", scope: "read" })
      .setProtectedHeader({ alg: "HS256", kid: "a" })
      .setNotBefore(NOW + 60)
      .setExpirationTime(NOW + 600)
      .sign(SECRET_A);
    expect(await verifier.verify(early)).toMatchObject({ ok: false, refusal: { kind: "not-yet-valid" } });
  });

  test("exp is required and bounded by the maximum lifetime; iat may not lie in the future", async () => {
    const noExp = await new SignJWT({ ws: "ws1", scope: "read" }).setProtectedHeader({ alg: "HS256", kid: "a" }).sign(SECRET_A);
    expect(await verifier.verify(noExp)).toMatchObject({ ok: false, refusal: { reason: expect.stringContaining("exp") } });
    expect(await verifier.verify(await mintToken(keyA, { ...claims, ttlSeconds: 7200 }))).toMatchObject({
      ok: false,
      refusal: { reason: expect.stringContaining("3600 s") },
    });
    // No iat: the lifetime counts from now.
    const far = await new SignJWT({ ws: "ws1", scope: "read" })
      .setProtectedHeader({ alg: "HS256", kid: "a" })
      .setExpirationTime(NOW + 7200)
      .sign(SECRET_A);
    expect(await verifier.verify(far)).toMatchObject({ ok: false, refusal: { reason: expect.stringContaining("lifetime") } });
    const future = await mintToken(keyA, { ...claims, now: NOW + 100 });
    expect(await verifier.verify(future)).toMatchObject({ ok: false, refusal: { reason: expect.stringContaining("iat") } });
  });

  test("ws, scope and aud claims are checked", async () => {
    const sign = (payload: Record<string, unknown>) =>
      new SignJWT(payload)
        .setProtectedHeader({ alg: "HS256", kid: "a" })
        .setExpirationTime(NOW + 60)
        .sign(SECRET_A);
    expect(await verifier.verify(await sign({ scope: "read" }))).toMatchObject({ ok: false, refusal: { reason: expect.stringContaining("ws") } });
    expect(await verifier.verify(await sign({ ws: "../x", scope: "read" }))).toMatchObject({ ok: false, refusal: { reason: expect.stringContaining("ws") } });
    expect(await verifier.verify(await sign({ ws: "ws1", scope: "read root" }))).toMatchObject({
      ok: false,
      refusal: { reason: expect.stringContaining("scope") },
    });
    expect(await verifier.verify(await sign({ ws: "*", scope: "read write" }))).toMatchObject({
      ok: false,
      refusal: { reason: expect.stringContaining("admin") },
    });
    expect(await verifier.verify(await sign({ ws: "*", scope: "admin" }))).toMatchObject({ ok: true, grant: { workspace: "*", scopes: ["admin"] } });
    const withAud = createJwtVerifier({ ...base, audience: "tools.example.com" });
    expect(await withAud.verify(await mintToken(keyA, { ...claims, audience: "other" }))).toMatchObject({
      ok: false,
      refusal: { reason: expect.stringContaining("aud") },
    });
    expect(await withAud.verify(await mintToken(keyA, { ...claims, audience: "tools.example.com" }))).toMatchObject({ ok: true });
  });

  test("unusable keys are refused at start-up", () => {
    expect(() => createJwtVerifier({ keys: [{ alg: "HS256", secret: secretBytes("short") }] })).toThrow(/at least 32 bytes/);
    expect(() =>
      createJwtVerifier({
        keys: [
          { alg: "HS256", kid: "x", secret: SECRET_A },
          { alg: "HS256", kid: "x", secret: SECRET_B },
        ],
      }),
    ).toThrow(/same kid/);
    expect(() => createJwtVerifier({ keys: [{ alg: "EdDSA", jwk: { kty: "OKP", crv: "Ed25519", x: "abc", d: "secret" } }] })).toThrow(/public key/);
    expect(() => signingKeyFrom("too short", "$K")).toThrow(/32 bytes/);
    expect(parseTtl("90m")).toBe(5400);
    expect(() => parseTtl("soon")).toThrow(/--ttl/);
  });
});

describe("signed tokens at the HTTP door", () => {
  const staticToken = "static-token-0123456789abcdef";
  const app = createApp({
    tools: fileTools,
    auth: { mode: "bearer", tokens: [{ token: staticToken, workspace: "ws1", scopes: ["read"] }], jwt: { ...base } },
    storageFor: () => createMemoryStorage(),
    observations: createMemoryObservationStore(),
    hasher: jsHasher,
    version: "test",
  });
  const call = (token: string) => app.fetch(new Request("http://127.0.0.1/v1/tools", { headers: { authorization: `Bearer ${token}`, host: "127.0.0.1" } }));

  test("static tokens keep working beside signed ones", async () => {
    expect((await call(staticToken)).status).toBe(200);
    expect((await call(await mintToken(keyA, claims))).status).toBe(200);
  });

  test("expired and not-yet-valid answer 401 UNAUTHORIZED saying which, never echoing the token", async () => {
    const expired = await mintToken(keyA, { ...claims, now: NOW - 1200 });
    const response = await call(expired);
    const text = await response.text();
    expect(response.status).toBe(401);
    expect(JSON.parse(text).error.code).toBe("UNAUTHORIZED");
    expect(text).toContain("expired");
    for (const part of expired.split(".")) expect(text).not.toContain(part);
    const early = await new SignJWT({ ws: "ws1", scope: "read" })
      .setProtectedHeader({ alg: "HS256", kid: "a" })
      .setNotBefore(NOW + 60)
      .setExpirationTime(NOW + 600)
      .sign(SECRET_A);
    const earlyText = await (await call(early)).text();
    expect(earlyText).toContain("not valid yet");
    for (const part of early.split(".")) expect(earlyText).not.toContain(part);
  });

  test("the principal id is stable per kid, sub, ws and scopes, and is not the token", async () => {
    const auth = createAuthenticator({ mode: "bearer", tokens: [], jwt: base });
    const id = async (key: SigningKey, extra: Partial<typeof claims> & { label?: string }) => {
      const token = await mintToken(key, { ...claims, ...extra });
      const outcome = await auth.authenticate(`Bearer ${token}`);
      if (!outcome.ok) throw new Error("refused");
      expect(token).not.toContain(outcome.principal.id);
      return outcome.principal;
    };
    const first = await id(keyA, { label: "agent-1", ttlSeconds: 100 });
    // Another lifetime, the scope claim in another order: the same agent.
    const second = await id(keyA, { label: "agent-1", ttlSeconds: 200, scopes: ["write", "read"] });
    expect(second.id).toBe(first.id);
    expect(first.label).toBe("agent-1");
    // Other scopes: another principal (its own sessions), though the log names the same label.
    const reader = await id(keyA, { label: "agent-1", scopes: ["read"] });
    expect(reader.id).not.toBe(first.id);
    expect(reader.label).toBe("agent-1");
    expect((await id(keyA, { label: "agent-2" })).id).not.toBe(first.id);
    expect((await id(keyB, { label: "agent-1" })).id).not.toBe(first.id);
    expect((await id(keyA, { label: "agent-1", workspace: "ws2" })).id).not.toBe(first.id);
  });
});
