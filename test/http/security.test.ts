/** DNS-rebinding refusals on a real server, and the Host/Origin matchers behind them. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hostMatcher, loopbackHosts, originMatcher } from "../../src/http/mod.ts";
import { jsonHeaders, startServer, TOKENS, type TestServer } from "../helpers/server.ts";

describe("Host and Origin on a real server (default policy)", () => {
  let server: TestServer;
  beforeAll(() => {
    server = startServer();
  });
  afterAll(() => server.stop());

  const routes = (url: string): Array<[string, RequestInit]> => [
    [`${url}/healthz`, {}],
    [`${url}/v1/tools`, { headers: jsonHeaders(TOKENS.full) }],
    [`${url}/v1/tools/view`, { method: "POST", headers: jsonHeaders(TOKENS.full), body: '{"path":"a"}' }],
    [
      `${url}/mcp`,
      {
        method: "POST",
        headers: { ...jsonHeaders(TOKENS.full), accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
        }),
      },
    ],
  ];

  test("a foreign Host is refused with 403 on every route, even with a valid token", async () => {
    for (const [url, init] of routes(server.url)) {
      const response = await fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), host: "attacker.example" } });
      expect(response.status).toBe(403);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("FORBIDDEN");
      expect(body.error.message).toContain("allowedHosts");
    }
  });

  test("a foreign Origin is refused with 403 on every route", async () => {
    for (const [url, init] of routes(server.url)) {
      const response = await fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), origin: "https://attacker.example" } });
      expect(response.status).toBe(403);
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain("allowedOrigins");
    }
  });

  test("loopback names on the server's port, and loopback origins, are accepted", async () => {
    for (const host of loopbackHosts(server.port)) {
      const response = await fetch(`${server.url}/healthz`, { headers: { host, origin: `http://${host}` } });
      expect(response.status).toBe(200);
    }
  });

  test("nothing is written by a refused request", async () => {
    await fetch(`${server.url}/v1/tools/write`, {
      method: "POST",
      headers: { ...jsonHeaders(TOKENS.full), host: "attacker.example:80" },
      body: JSON.stringify({ path: "rebound.txt", content: "x" }),
    });
    expect((await server.storages.get("ws1")?.stat("rebound.txt")) ?? null).toBeNull();
  });
});

describe("explicit policies", () => {
  test("a deployment's own host and origin pass; loopback then does not", async () => {
    const server = startServer({ allowedHosts: ["tools.example.com"], allowedOrigins: ["https://app.example.com"] });
    try {
      const ok = await fetch(`${server.url}/healthz`, { headers: { host: "tools.example.com", origin: "https://app.example.com" } });
      expect(ok.status).toBe(200);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(403);
      const badOrigin = await fetch(`${server.url}/healthz`, { headers: { host: "tools.example.com", origin: "http://localhost:3000" } });
      expect(badOrigin.status).toBe(403);
    } finally {
      await server.stop();
    }
  });

  test('"*" turns the checks off', async () => {
    const server = startServer({ allowedHosts: "*", allowedOrigins: "*" });
    try {
      const response = await fetch(`${server.url}/healthz`, { headers: { host: "anything.example", origin: "https://x.example" } });
      expect(response.status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});

describe("hostMatcher", () => {
  test("default: loopback names on any port, nothing else", () => {
    const ok = hostMatcher(undefined);
    for (const host of ["localhost", "localhost:8080", "127.0.0.1:1", "[::1]:9", "LOCALHOST:80", "localhost.:80"]) expect(ok(host)).toBe(true);
    for (const host of ["localhost.attacker.example", "127.0.0.1.nip.io", "attacker.example", "", "[::2]:80", "localhost:80:80", "user@localhost"]) {
      expect(ok(host)).toBe(false);
    }
  });

  test("an entry with a port matches only that port", () => {
    const ok = hostMatcher(loopbackHosts(8787));
    expect(ok("127.0.0.1:8787")).toBe(true);
    expect(ok("[::1]:8787")).toBe(true);
    expect(ok("127.0.0.1:8788")).toBe(false);
    expect(ok("127.0.0.1")).toBe(false);
  });

  test("a malformed entry is refused at start-up", () => {
    expect(() => hostMatcher(["http://example.com"])).toThrow(/allowedHosts/);
  });
});

describe("originMatcher", () => {
  test("default: http(s) loopback origins only", () => {
    const ok = originMatcher(undefined);
    expect(ok("http://localhost:5173")).toBe(true);
    expect(ok("https://127.0.0.1")).toBe(true);
    expect(ok("http://[::1]:3000")).toBe(true);
    expect(ok("null")).toBe(false);
    expect(ok("file://")).toBe(false);
    expect(ok("http://localhost.attacker.example")).toBe(false);
  });

  test("explicit origins match by origin, not by prefix", () => {
    const ok = originMatcher(["https://app.example.com"]);
    expect(ok("https://app.example.com")).toBe(true);
    expect(ok("https://APP.example.com:443")).toBe(true);
    expect(ok("https://app.example.com.attacker.example")).toBe(false);
    expect(ok("http://app.example.com")).toBe(false);
  });
});
