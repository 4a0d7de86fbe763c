/**
 * The admin routes take exactly what they document: a misspelt or repeated
 * query parameter is a 400 that names it (and nothing is created), quotas are
 * raised by global admins only, and quota updates racing each other all land.
 * Real `toolwarden serve --workspaces DIR`, records checked on disk.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, startServe, tempDir, type ServeProcess } from "../helpers/cli.ts";
import { admin } from "../helpers/hosting-flow.ts";

const SECRET = "5b1c2d0e9a8b7c6d5e4f30211203f4e5d6c7b8a9f0e1d2c3b4a5968778695a4d";
const env = { TW_JWT: SECRET };

async function mint(ws: string, scopes: string, label: string): Promise<string> {
  const done = await runCli(["token", "mint", "--key-env", "TW_JWT", "--workspace", ws, "--scopes", scopes, "--ttl", "1h", "--label", label], { env });
  expect(done.code).toBe(0);
  return done.stdout.trim();
}

describe("admin route parameters and quota rights (real process)", () => {
  const dir = tempDir("tw-admin-params-");
  let server: ServeProcess;
  let root: string;
  const record = (ws: string) => join(dir.path, ".toolwarden", "workspaces", `${ws}.json`);
  const quotaOnDisk = (ws: string) => (JSON.parse(readFileSync(record(ws), "utf8")) as { quota: unknown }).quota;
  const error = async (response: Response) => ((await response.json()) as { error: { code: string; message: string } }).error;
  beforeAll(async () => {
    server = await startServe(["--workspaces", dir.path, "--jwt-secret-env", "TW_JWT", "--port", "0", "--quiet"], { env });
    root = await mint("*", "admin", "platform");
  });
  afterAll(() => {
    server?.kill();
    dir.remove();
  });

  test("a misspelt or repeated quota parameter is refused, naming it, and nothing is created", async () => {
    const typo = await admin(server.url, root, "PUT", "/v1/workspaces/typo1?maxbytes=1000&max_files=5");
    expect(typo.status).toBe(400);
    const typoError = await error(typo);
    expect(typoError.code).toBe("INVALID_ARGUMENT");
    expect(typoError.message).toContain("?maxbytes=");
    expect(typoError.message).toContain("did you mean ?maxBytes=?");
    expect(typoError.message).toContain("?maxFiles=");
    const twice = await admin(server.url, root, "PUT", "/v1/workspaces/typo2?maxBytes=1000&maxBytes=5000000");
    expect(twice.status).toBe(400);
    expect((await error(twice)).message).toContain("?maxBytes= is given twice");
    for (const ws of ["typo1", "typo2"]) {
      expect(existsSync(join(dir.path, ws))).toBe(false);
      expect(existsSync(record(ws))).toBe(false);
    }
    expect((await admin(server.url, root, "GET", "/v1/workspaces?all=1")).status).toBe(400);
  });

  test("GET /v1/audit refuses a cursor no page gave, an unknown value of changes, and unknown parameters", async () => {
    expect((await admin(server.url, root, "PUT", "/v1/workspaces/aud")).status).toBe(201);
    const auditor = await mint("aud", "audit", "auditor");
    expect((await admin(server.url, auditor, "GET", "/v1/audit?limit=5")).status).toBe(200);
    const cursor = await admin(server.url, auditor, "GET", "/v1/audit?cursor=not-an-id");
    expect(cursor.status).toBe(400);
    expect((await error(cursor)).message).toContain("?cursor= must be the cursor of a previous page");
    expect((await admin(server.url, auditor, "GET", "/v1/audit?changes=yes")).status).toBe(400);
    const unknown = await admin(server.url, auditor, "GET", "/v1/audit?Session=a");
    expect(unknown.status).toBe(400);
    expect((await error(unknown)).message).toContain("did you mean ?session=?");
  });

  test("a workspace-bound admin token may keep or lower its quota, not raise it; a global admin may", async () => {
    expect((await admin(server.url, root, "PUT", "/v1/workspaces/capped?maxBytes=1000&maxFiles=5")).status).toBe(201);
    const tenant = await mint("capped", "admin", "tenant-admin");
    const raise = await admin(server.url, tenant, "PUT", "/v1/workspaces/capped?maxBytes=9007199254740991&maxFiles=9007199254740991");
    expect(raise.status).toBe(403);
    const raiseError = await error(raise);
    expect(raiseError.code).toBe("FORBIDDEN");
    expect(raiseError.message).toContain('needs a global admin token (ws "*")');
    expect(quotaOnDisk("capped")).toEqual({ maxBytes: 1000, maxFiles: 5 });
    expect((await admin(server.url, tenant, "PUT", "/v1/workspaces/capped?maxBytes=800")).status).toBe(200);
    expect(quotaOnDisk("capped")).toEqual({ maxBytes: 800, maxFiles: 5 });
    expect((await admin(server.url, root, "PUT", "/v1/workspaces/capped?maxBytes=5000")).status).toBe(200);
    expect(quotaOnDisk("capped")).toEqual({ maxBytes: 5000, maxFiles: 5 });
    // Creating its workspace, a bound token gets at most the default quota.
    const own = await mint("fresh", "admin", "fresh-admin");
    expect((await admin(server.url, own, "PUT", `/v1/workspaces/fresh?maxBytes=${2 ** 40}`)).status).toBe(403);
    expect(existsSync(record("fresh"))).toBe(false);
    expect(existsSync(join(dir.path, "fresh"))).toBe(false);
  });

  test("20 quota updates at once all land; the record holds one of them", async () => {
    expect((await admin(server.url, root, "PUT", "/v1/workspaces/qq")).status).toBe(201);
    const sizes = Array.from({ length: 20 }, (_, i) => 1000 + i);
    const answers = await Promise.all(sizes.map((n) => admin(server.url, root, "PUT", `/v1/workspaces/qq?maxBytes=${n}`)));
    expect(answers.map((a) => a.status)).toEqual(sizes.map(() => 200));
    expect(sizes).toContain((quotaOnDisk("qq") as { maxBytes: number }).maxBytes);
  });
});
