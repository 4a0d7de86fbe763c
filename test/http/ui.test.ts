/** The inspector's gates without a browser: no data before sign-in, cookie flags, CSRF and origin checks, escaping, the event stream. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jsHasher } from "../../src/hash/js.ts";
import { createApp } from "../../src/http/app.ts";
import { createMemoryObservationStore } from "../../src/policy/memory.ts";
import { fileTools } from "../../src/tools/mod.ts";
import { startHistoryApp } from "../helpers/history-app.ts";
import { api, type HistoryTarget, ok } from "../helpers/history-flow.ts";

let fixture: ReturnType<typeof startHistoryApp>;
let url: string;
let target: HistoryTarget;
let admin: { cookie: string; csrf: string };

const SECRET = "secret-plan.txt";

async function signIn(token: string): Promise<Response> {
  return fetch(`${url}/ui/signin`, {
    method: "POST",
    redirect: "manual",
    headers: { origin: url, "content-type": "application/x-www-form-urlencoded" },
    body: `token=${encodeURIComponent(token)}`,
  });
}

function cookiesOf(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
}

beforeAll(async () => {
  fixture = startHistoryApp();
  url = fixture.url;
  target = fixture.target;
  await ok(target, "write", { path: SECRET, content: "launch at dawn\n" }, "s1");
  const response = await signIn("admin-token-0123456789");
  const cookie = cookiesOf(response);
  admin = { cookie, csrf: /tw_ui_csrf=([0-9a-f]+)/.exec(cookie)![1]! };
});
afterAll(() => fixture.stop());

describe("the inspector's gates", () => {
  test("without a session every page is the sign-in page, with no data", async () => {
    const id = (await api(target, "/v1/audit", target.adminToken)).json.entries[0].id;
    for (const cookie of ["", "tw_ui_token=agent-token-0123456789; tw_ui_csrf=x", "tw_ui_token=wrong; tw_ui_csrf=x"]) {
      for (const at of ["/ui", "/ui/files", `/ui/file?path=${SECRET}`, "/ui/sessions", "/ui/session?s=s1", `/ui/call/${id}`, "/ui/nothing"]) {
        const response = await fetch(`${url}${at}`, { headers: cookie ? { cookie } : {} });
        const body = await response.text();
        expect(body).toContain("<h1>Sign in</h1>");
        expect(body).not.toContain(SECRET);
        expect(body).not.toContain("launch at dawn");
      }
    }
  });

  test("sign-in sets HttpOnly, SameSite=Strict cookies scoped to /ui; a token without audit or admin is refused", async () => {
    const response = await signIn("admin-token-0123456789");
    expect(response.status).toBe(303);
    for (const cookie of response.headers.getSetCookie()) {
      expect(cookie).toContain("HttpOnly");
      expect(cookie).toContain("SameSite=Strict");
      expect(cookie).toContain("Path=/ui");
    }
    const agent = await signIn("agent-token-0123456789");
    expect(agent.headers.getSetCookie()).toEqual([]);
    expect(await agent.text()).toContain("needs a token with scope audit");
    const foreign = await fetch(`${url}/ui/signin`, {
      method: "POST",
      headers: { origin: "http://evil.example" },
      body: new URLSearchParams({ token: "admin-token-0123456789" }),
    });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.getSetCookie()).toEqual([]);
  });

  test("on a server reached by a non-loopback name, the inspector's own origin may sign in; a foreign one may not", async () => {
    const app = createApp({
      tools: fileTools,
      auth: { mode: "bearer", tokens: [{ token: "admin-token-0123456789", workspace: "ws", scopes: ["admin"] }] },
      storageFor: () => fixture.storage,
      historyFor: () => fixture.history,
      observations: createMemoryObservationStore(),
      hasher: jsHasher,
      version: "0.0.0-test",
      allowedHosts: ["tw.example"],
    });
    const post = (origin: string) =>
      app.request("http://tw.example/ui/signin", {
        method: "POST",
        headers: { host: "tw.example", origin, "content-type": "application/x-www-form-urlencoded" },
        body: "token=admin-token-0123456789",
      });
    expect((await post("http://tw.example")).status).toBe(303);
    expect((await post("http://evil.example")).status).toBe(403);
    expect((await post("http://tw.example.evil.example")).status).toBe(403);
    // With any Host allowed, the origin list is the only DNS-rebinding guard: it stays strict.
    const open = createApp({
      tools: fileTools,
      auth: { mode: "bearer", tokens: [{ token: "admin-token-0123456789", workspace: "ws", scopes: ["admin"] }] },
      storageFor: () => fixture.storage,
      observations: createMemoryObservationStore(),
      hasher: jsHasher,
      version: "0.0.0-test",
      allowedHosts: "*",
      allowedOrigins: ["https://app.example"],
    });
    const rebound = await open.request("http://evil.example/ui/signin", {
      method: "POST",
      headers: { host: "evil.example", origin: "http://evil.example", "content-type": "application/x-www-form-urlencoded" },
      body: "token=admin-token-0123456789",
    });
    expect(rebound.status).toBe(403);
  });

  test("a revert without the CSRF token, or without an origin, changes nothing", async () => {
    const before = await target.bytes(SECRET);
    const version = (await api(target, `/v1/history?path=${SECRET}`, target.adminToken)).json.versions[0].after.version;
    const form = (csrf: string) => new URLSearchParams({ csrf, path: SECRET, version, expect: "" });
    const wrong = await fetch(`${url}/ui/revert`, { method: "POST", headers: { cookie: admin.cookie, origin: url }, body: form("0".repeat(32)) });
    expect(await wrong.text()).toContain("CSRF");
    const noOrigin = await fetch(`${url}/ui/revert`, { method: "POST", headers: { cookie: admin.cookie }, body: form(admin.csrf) });
    expect(await noOrigin.text()).toContain("CSRF");
    expect(await target.bytes(SECRET)).toEqual(before!);
    // The same form from this origin with the token goes through (here: a conflict, the file exists and expect says absent).
    const real = await fetch(`${url}/ui/revert`, { method: "POST", headers: { cookie: admin.cookie, origin: url }, body: form(admin.csrf) });
    expect(await real.text()).toContain("Conflict");
    expect(await target.bytes(SECRET)).toEqual(before!);
  });

  test("pages escape what agents wrote (paths and arguments are data, never markup)", async () => {
    await ok(target, "write", { path: "<img src=x onerror=alert(1)>.txt", content: "<script>alert(2)</script>\n" }, "<b>s2</b>");
    const feed = await (await fetch(`${url}/ui`, { headers: { cookie: admin.cookie } })).text();
    expect(feed).not.toContain("<img src=x");
    expect(feed).not.toContain("<b>s2</b>");
    expect(feed).toContain("&lt;img src=x onerror=alert(1)&gt;.txt");
    const headers = (await fetch(`${url}/ui`, { headers: { cookie: admin.cookie } })).headers;
    expect(headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(headers.get("x-frame-options")).toBe("DENY");
  });

  test("a call id that is not an id reads nothing (no path out of the log)", async () => {
    const body = await (await fetch(`${url}/ui/call/..%2F..%2Fblobs%2Fx`, { headers: { cookie: admin.cookie } })).text();
    expect(body).toContain("No such call");
  });

  test("the event stream sends new calls after the cursor; without a session it only says signed-out", async () => {
    const anonymous = await (await fetch(`${url}/ui/events`)).text();
    expect(anonymous).toContain("event: signed-out");
    expect(anonymous).not.toContain(SECRET);

    const last = (await api(target, "/v1/audit", target.adminToken)).json.entries.at(-1)!.id;
    const controller = new AbortController();
    const response = await fetch(`${url}/ui/events?after=${last}`, { headers: { cookie: admin.cookie }, signal: controller.signal });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    await ok(target, "view", { path: SECRET }, "s3");
    const reader = response.body!.getReader();
    let text = "";
    for (let i = 0; i < 200 && !text.includes("event: call"); i++) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const data = JSON.parse(/event: call\ndata: (.*)\nid: /.exec(text)?.[1] ?? /data: (.*)/.exec(text.slice(text.indexOf("event: call")))![1]!);
    expect(data).toMatchObject({ tool: "view", path: SECRET, session: "s3", code: "OK", principal: "agent" });
  });
});
