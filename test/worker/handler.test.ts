/**
 * The Worker's fetch handler over fake bindings (fast; the real runtime is
 * test/worker-e2e.test.ts): a broken setting answers every request 500 with
 * a JSON body and logs the reason once, without a token; fixing it serves.
 */
import { describe, expect, test } from "bun:test";
import { fileTools } from "../../src/tools/mod.ts";
import { createWorkerFetch, type WorkerEnv, type WorkerLog } from "../../src/worker/handler.ts";
import { createFakeNamespace } from "../helpers/worker-fake-do.ts";
import { createFakeR2 } from "../helpers/worker-fake-r2.ts";
import { createFakeS3, type FakeS3Options } from "../helpers/s3-fake.ts";

const TOKEN = "handler-token-0123456789-SECRET";
const GOOD = JSON.stringify([{ token: TOKEN, workspace: "ws1", scopes: ["read", "write"] }]);

function setup() {
  const lines: string[] = [];
  const log: WorkerLog = { log: (m) => lines.push(`log ${m}`), error: (m) => lines.push(`error ${m}`) };
  const handle = createWorkerFetch({ tools: fileTools, version: "1.2.3-test", log });
  const env = (vars: Partial<WorkerEnv>): WorkerEnv => ({ FILES: createFakeR2(), OBSERVATIONS: createFakeNamespace(), ...vars });
  return { handle, env, lines };
}

const get = (path: string, token = TOKEN) => new Request(`https://tools.example.com${path}`, { headers: { authorization: `Bearer ${token}` } });

describe("createWorkerFetch", () => {
  const broken: Array<[string, Partial<WorkerEnv>, RegExp]> = [
    ["no secret", {}, /TOOLWARDEN_TOKENS is not set/],
    ["a secret that is not JSON", { TOOLWARDEN_TOKENS: `[${TOKEN}` }, /not valid JSON/],
    ["a duplicate token", { TOOLWARDEN_TOKENS: JSON.stringify([JSON.parse(GOOD)[0], JSON.parse(GOOD)[0]]) }, /token #2: the same token is configured twice/],
    ["a bad host entry", { TOOLWARDEN_TOKENS: GOOD, TOOLWARDEN_ALLOWED_HOSTS: "https://x.example.com/" }, /allowedHosts/],
    ["a broken rule", { TOOLWARDEN_TOKENS: GOOD, TOOLWARDEN_RULES: '{"rules": [{"id": "x"}]}' }, /rule "x": missing required field/],
    ["a missing R2 binding", { TOOLWARDEN_TOKENS: GOOD, FILES: undefined }, /R2 binding FILES is missing/],
    ["a missing Durable Object binding", { TOOLWARDEN_TOKENS: GOOD, OBSERVATIONS: undefined }, /Durable Object binding OBSERVATIONS is missing/],
  ];
  for (const [label, vars, reason] of broken) {
    test(`${label}: every request is a 500 JSON error; the reason is logged once and names no token`, async () => {
      const { handle, env, lines } = setup();
      const environment = env(vars);
      for (const path of ["/healthz", "/v1/tools", "/openapi.json"]) {
        const response = await handle(get(path), environment);
        expect(response.status).toBe(500);
        expect(response.headers.get("content-type")).toContain("application/json");
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe("INTERNAL_ERROR");
      }
      const errors = lines.filter((l) => l.startsWith("error "));
      expect(errors.length).toBe(1);
      expect(errors[0]).toMatch(/configuration error/);
      expect(errors[0]).toMatch(reason);
      expect(lines.join("\n")).not.toContain("SECRET");
    });
  }

  test("a bucket that ignores conditional puts: every request is a 500, logged once", async () => {
    const { handle, env, lines } = setup();
    const environment = env({ TOOLWARDEN_TOKENS: GOOD, FILES: createFakeR2("ignore") });
    for (let i = 0; i < 3; i++) expect((await handle(get("/healthz"), environment)).status).toBe(500);
    const errors = lines.filter((l) => l.startsWith("error "));
    expect(errors).toEqual([expect.stringMatching(/storage refused.*overwrote an existing key/)]);
  });

  test("R2 unreachable at the first request: 503 with Retry-After, and the next request probes again and serves", async () => {
    const { handle, env } = setup();
    const files = createFakeR2();
    const put = files.put.bind(files);
    let down = true;
    files.put = (key, value, options) => (down ? Promise.reject(new Error("R2 unavailable")) : put(key, value, options));
    const environment = env({ TOOLWARDEN_TOKENS: GOOD, FILES: files });
    const first = await handle(get("/healthz"), environment);
    expect(first.status).toBe(503);
    expect(first.headers.get("retry-after")).toBe("5");
    expect(((await first.json()) as { error: { code: string } }).error.code).toBe("FS_IO_ERROR");
    down = false;
    expect((await handle(get("/healthz"), environment)).status).toBe(200);
  });

  test("a fixed secret is picked up by the next request", async () => {
    const { handle, env } = setup();
    const files = createFakeR2();
    expect((await handle(get("/healthz"), env({ FILES: files }))).status).toBe(500);
    const fixed = await handle(get("/healthz"), env({ FILES: files, TOOLWARDEN_TOKENS: GOOD }));
    expect(await fixed.json()).toEqual({ ok: true, version: "1.2.3-test", storage: "r2" });
  });

  test("serves the file tools over R2 and the Durable Object, logging each call", async () => {
    const { handle, env, lines } = setup();
    const environment = env({ TOOLWARDEN_TOKENS: GOOD });
    const post = (tool: string, args: unknown) =>
      handle(
        new Request(`https://tools.example.com/v1/tools/${tool}`, {
          method: "POST",
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", "x-session-id": "s1" },
          body: JSON.stringify(args),
        }),
        environment,
      ).then((r) => r.json() as Promise<{ isError: boolean; code?: string }>);
    expect((await post("write", { path: "a.txt", content: "one\n" })).isError).toBe(false);
    expect((await post("view", { path: "a.txt" })).isError).toBe(false);
    expect((await post("write", { path: "a.txt", content: "two\n" })).isError).toBe(false);
    expect((await handle(get("/v1/tools", "wrong-token-0123456789"), environment)).status).toBe(401);
    const calls = lines.filter((l) => l.includes('"event":"toolwarden.call"'));
    expect(calls.length).toBe(3);
    expect(lines.some((l) => /"event":"toolwarden\.start".*"hasher":"js"/.test(l))).toBe(true);
    expect(lines.join("\n")).not.toContain("SECRET");
  });

  describe("TOOLWARDEN_STORAGE=s3://…: the Worker serves an S3 bucket chosen by vars", () => {
    const S3_SECRET = "s3-key-xyzzy-7731";
    function s3Setup(options: FakeS3Options = {}) {
      const fake = createFakeS3(options, "files");
      const lines: string[] = [];
      const log: WorkerLog = { log: (m) => lines.push(`log ${m}`), error: (m) => lines.push(`error ${m}`) };
      const handle = createWorkerFetch({ tools: fileTools, version: "1.2.3-test", log, fetch: fake.fetch });
      const environment: WorkerEnv = {
        OBSERVATIONS: createFakeNamespace(),
        TOOLWARDEN_TOKENS: GOOD,
        TOOLWARDEN_STORAGE: "s3://files/team",
        AWS_ENDPOINT_URL_S3: fake.endpoint,
        AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
        AWS_SECRET_ACCESS_KEY: S3_SECRET,
      };
      return { fake, handle, environment, lines };
    }
    const post = (handle: (r: Request, e: WorkerEnv) => Promise<Response>, environment: WorkerEnv, tool: string, args: unknown) =>
      handle(
        new Request(`https://tools.example.com/v1/tools/${tool}`, {
          method: "POST",
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", "x-session-id": "s1" },
          body: JSON.stringify(args),
        }),
        environment,
      ).then((r) => r.json() as Promise<{ isError: boolean; code?: string }>);

    test("a workspace is the key prefix PREFIX/<workspace>/; no R2 binding is needed; /healthz names s3", async () => {
      const { fake, handle, environment, lines } = s3Setup();
      expect(await (await handle(get("/healthz"), environment)).json()).toEqual({ ok: true, version: "1.2.3-test", storage: "s3" });
      expect((await post(handle, environment, "write", { path: "a.txt", content: "one\n" })).isError).toBe(false);
      expect((await post(handle, environment, "view", { path: "a.txt" })).isError).toBe(false);
      expect((await post(handle, environment, "write", { path: "a.txt", content: "two\n" })).isError).toBe(false);
      expect(new TextDecoder().decode(fake.objects.get("team/ws1/a.txt")!.bytes)).toBe("two\n");
      expect([...fake.objects.keys()].filter((k) => !k.startsWith("team/ws1/"))).toEqual([]);
      for (const secret of [TOKEN, S3_SECRET]) expect(lines.join("\n")).not.toContain(secret);
    });

    test("a server that ignores conditional writes: every request is a 500, logged once, no key in the log", async () => {
      const { handle, environment, lines } = s3Setup({ ignoreConditions: true });
      for (let i = 0; i < 3; i++) expect((await handle(get("/healthz"), environment)).status).toBe(500);
      const errors = lines.filter((l) => l.startsWith("error "));
      expect(errors).toEqual([expect.stringMatching(/storage refused.*s3:\/\/files\/team.*cannot be used/)]);
      for (const secret of [TOKEN, S3_SECRET]) expect(lines.join("\n")).not.toContain(secret);
    });

    test("unreachable at the first request: 503 naming S3, and the next request probes again and serves", async () => {
      const { fake, handle, environment } = s3Setup();
      let down = true;
      fake.intercept = () => (down ? Promise.reject(new TypeError("connection refused")) : undefined);
      const first = await handle(get("/healthz"), environment);
      expect(first.status).toBe(503);
      expect(((await first.json()) as { error: { message: string } }).error.message).toContain("File storage (S3)");
      down = false;
      expect((await handle(get("/healthz"), environment)).status).toBe(200);
    });

    const badVars: Array<[string, Partial<WorkerEnv>, RegExp]> = [
      ["a spec the Worker cannot serve", { TOOLWARDEN_STORAGE: "memory:" }, /TOOLWARDEN_STORAGE must be r2 or s3:\/\/BUCKET/],
      ["an unknown scheme", { TOOLWARDEN_STORAGE: "gs://files" }, /unknown storage scheme gs:/],
      ["no keys", { AWS_ACCESS_KEY_ID: undefined }, /no credentials for s3:\/\/files: set AWS_ACCESS_KEY_ID/],
    ];
    for (const [label, vars, reason] of badVars) {
      test(`${label}: a configuration error, logged once without a key`, async () => {
        const { handle, environment, lines } = s3Setup();
        expect((await handle(get("/healthz"), { ...environment, ...vars })).status).toBe(500);
        const errors = lines.filter((l) => l.startsWith("error "));
        expect(errors).toEqual([expect.stringMatching(reason)]);
        for (const secret of [TOKEN, S3_SECRET]) expect(lines.join("\n")).not.toContain(secret);
      });
    }
  });
});
