/**
 * Hostile archives, over the HTTP admin route into a real directory: every
 * refusal names the offending entries, and a failed import leaves no file
 * (not in the workspace, not beside it) and no workspace. The 1 GB gzip is
 * generated while the server reads it, and the server stops long before 1 GB.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TarEntry } from "modern-tar";
import { localBackend } from "../../src/cli/hosting.ts";
import { jsHasher } from "../../src/hash/js.ts";
import { createApp } from "../../src/http/app.ts";
import { createMemoryLedger, createWorkspaceRegistry, hostedStorage, type WorkspaceRegistry } from "../../src/http/hosting/mod.ts";
import { createMemoryObservationStore } from "../../src/policy/memory.ts";
import { fileTools } from "../../src/tools/mod.ts";
import type { ApiError, CreateReply } from "../helpers/api-replies.ts";
import { tempDir } from "../helpers/cli.ts";
import { gzipBomb, gzipBytes, SEED, tarOf } from "../helpers/hosting-flow.ts";

const ADMIN = "admin-token-0123456789abcdef";
const dir = tempDir("tw-archive-");
let registry: WorkspaceRegistry;
let app: ReturnType<typeof createApp>;
let bigApp: ReturnType<typeof createApp>;

function appFor(maxBytes: number) {
  return (async () => {
    const reg = createWorkspaceRegistry({
      backend: await localBackend(dir.path),
      ledger: createMemoryLedger(),
      defaultQuota: { maxBytes: 4 * 1024 * 1024 * 1024, maxFiles: 1000 },
      importLimits: { maxEntries: 50, maxBytes, maxRatio: 200, maxFileBytes: maxBytes },
    });
    return {
      reg,
      app: createApp({
        tools: fileTools,
        auth: { mode: "bearer", tokens: [{ token: ADMIN, workspace: "*", scopes: ["admin"] }] },
        storageFor: (ws) => hostedStorage(reg, ws),
        workspaces: reg,
        observations: createMemoryObservationStore(),
        hasher: jsHasher,
        version: "test",
      }),
    };
  })();
}

beforeAll(async () => {
  ({ reg: registry, app } = await appFor(10 * 1024 * 1024));
  ({ app: bigApp } = await appFor(2 * 1024 * 1024 * 1024));
});
afterAll(() => dir.remove());

async function put(ws: string, body: BodyInit, type = "application/gzip", target = app, query = "") {
  const response = await target.fetch(
    new Request(`http://127.0.0.1/v1/workspaces/${ws}${query}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": type, host: "127.0.0.1" },
      body,
      // @ts-expect-error: Bun and undici need duplex for a stream body
      duplex: "half",
    }),
  );
  return { status: response.status, body: (await response.json()) as CreateReply & ApiError };
}

/** Nothing of workspace `ws` exists: no directory, no record, not listed; nothing escaped beside DIR. */
async function expectNothingLeft(ws: string) {
  expect(existsSync(join(dir.path, ws))).toBe(false);
  expect(existsSync(join(dir.path, ".toolwarden", "workspaces", `${ws}.json`))).toBe(false);
  expect(await registry.list()).not.toContain(ws);
  expect(readdirSync(dir.path).filter((n) => n !== ".toolwarden" && !n.startsWith("ok"))).toEqual([]);
}

const file = (name: string, text = "x"): TarEntry => ({ header: { name, size: text.length, type: "file" }, body: text });

describe("hostile archives are refused with a report and leave nothing", () => {
  test.each([
    ["a '../' name", [file("../evil.txt")], "climbs with '..'"],
    ["a nested '../' name", [file("src/../../evil.txt")], "climbs with '..'"],
    ["an absolute name", [file("/etc/evil.txt")], "absolute name"],
    ["a symbolic link", [{ header: { name: "link", size: 0, type: "symlink", linkname: "/etc/passwd" } }], "symbolic link"],
    ["a hard link", [{ header: { name: "hard", size: 0, type: "link", linkname: "README.md" } }], "hard link"],
    ["a device", [{ header: { name: "dev", size: 0, type: "character-device" } }], "character-device"],
    ["a duplicate name", [file("README.md", "second")], "appears twice"],
    ["a backslash name", [file("a\\b.txt")], "backslash"],
    ["a file where the archive has a directory", [file("src/util", "a file")], '"src/util" is a file, but the archive also has entries under "src/util/"'],
    [
      "an entry under a file",
      [file("README.md/notes.txt")],
      '"README.md/notes.txt" needs "README.md" to be a directory, but the archive has "README.md" as a file',
    ],
    ["a name under the reserved .toolwarden/", [file(".toolwarden/history/audit/forged.json", "{}")], "reserved"],
  ] as [string, TarEntry[], string][])("%s", async (_name, extra, expected) => {
    const ws = `bad-${Math.random().toString(36).slice(2, 8)}`;
    // The good files come first: they were written before the bad entry arrived, and must be gone.
    const result = await put(ws, (await tarOf(SEED, extra)) as BodyInit);
    expect(result.status, JSON.stringify(result.body)).toBe(400);
    expect(result.body.error.code).toBe("INVALID_ARGUMENT");
    expect(result.body.error.message).toContain(expected);
    expect(result.body.error.message).toContain("nothing of it was kept");
    await expectNothingLeft(ws);
  });

  test("every refused entry is reported at once", async () => {
    const extra: TarEntry[] = [file("../a"), { header: { name: "l", size: 0, type: "symlink", linkname: "x" } }, file("/b")];
    const result = await put("bad-many", (await tarOf({}, extra)) as BodyInit);
    expect(result.body.error.message).toMatch(/"\.\.\/a" climbs.*"l" is a symbolic link.*"\/b" is an absolute name/);
    await expectNothingLeft("bad-many");
  });

  test("a 1 GB-expanding gzip stops at the ratio limit, long before 1 GB", async () => {
    const bomb = gzipBomb();
    const result = await put("bomb", bomb.stream, "application/gzip", bigApp);
    expect(result.status).toBe(413);
    expect(result.body.error.code).toBe("LIMIT_EXCEEDED");
    expect(result.body.error.message).toContain("compression bomb");
    expect(bomb.pulled()).toBeLessThan(64 * 1024 * 1024);
    await expectNothingLeft("bomb");
  }, 60_000);

  test("under a size limit the same bomb stops at its header", async () => {
    const bomb = gzipBomb();
    const result = await put("bomb2", bomb.stream);
    expect(result.status).toBe(413);
    expect(result.body.error.message).toContain(`larger than the ${10 * 1024 * 1024}-byte limit for one file`);
    expect(bomb.pulled()).toBeLessThan(64 * 1024 * 1024);
    await expectNothingLeft("bomb2");
  }, 60_000);

  test("files that together pass the total size limit", async () => {
    const big = "z".repeat(4 * 1024 * 1024);
    const result = await put("total", (await tarOf({ "a.bin": big, "b.bin": big, "c.bin": big }, [], false)) as BodyInit, "application/x-tar");
    expect(result.status).toBe(413);
    expect(result.body.error.message).toContain(`takes the archive past its limit of ${10 * 1024 * 1024} bytes`);
    await expectNothingLeft("total");
  });

  test("more entries than the limit", async () => {
    const files = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${i}.txt`, "x"]));
    const result = await put("many", (await tarOf(files)) as BodyInit);
    expect(result.status).toBe(413);
    expect(result.body.error.message).toContain("more than 50 entries");
    await expectNothingLeft("many");
  });

  test("an import over the workspace's quota is refused with usage, limit and what it would add", async () => {
    const result = await put(
      "quota",
      (await tarOf({ "a.txt": "a".repeat(60), "b.txt": "b".repeat(60) })) as BodyInit,
      "application/gzip",
      app,
      "?maxBytes=100",
    );
    expect(result.status).toBe(413);
    expect(result.body.error.message).toContain("would add 60 bytes to the 60 bytes in use, over the limit of 100 bytes");
    // Said to the admin who sent it, not in the agents' words ("tell your user this workspace is full").
    expect(result.body.error.message).toContain("The archive does not fit workspace quota's quota: writing b.txt (60 bytes)");
    expect(result.body.error.message).toContain("PUT it again with a larger quota (?maxBytes=N&maxFiles=N");
    expect(result.body.error.message).not.toContain("tell your user");
    await expectNothingLeft("quota");
  });

  test("a body that is not what its type says", async () => {
    const result = await put("garbage", "this is not gzip" as BodyInit);
    expect(result.status).toBe(400);
    expect(result.body.error.message).toContain("not a valid archive");
    await expectNothingLeft("garbage");
    const wrongType = await put("garbage", "x" as BodyInit, "text/plain");
    expect(wrongType.status).toBe(415);
  });

  test("an archive cut inside an entry (an interrupted upload) is refused as such, not as a server fault", async () => {
    const tar = await tarOf({ "a.txt": "a".repeat(5000), "b.txt": "b\n" }, [], false);
    const cut = tar.subarray(0, 512 + 3000); // a.txt's header and part of its body
    for (const [body, type] of [
      [cut, "application/x-tar"],
      [await gzipBytes(cut), "application/gzip"],
    ] as const) {
      const result = await put("cut", body as BodyInit, type);
      expect({ type, status: result.status, code: result.body.error.code }).toEqual({ type, status: 400, code: "INVALID_ARGUMENT" });
      expect(result.body.error.message).toContain("not a valid archive");
      await expectNothingLeft("cut");
    }
  });

  test("a plain tar works, and an archive into an existing workspace is refused without touching it", async () => {
    const tar = await tarOf(SEED, [], false);
    expect((await put("ok-plain", tar as BodyInit, "application/x-tar")).status).toBe(201);
    const again = await put("ok-plain", (await gzipBytes(tar)) as BodyInit);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("FS_ALREADY_EXISTS");
    expect(readdirSync(join(dir.path, "ok-plain")).sort()).toEqual(["README.md", "src"]);
  });
});

test("the import answer says what a workspace does not keep: empty directories and execute bits", async () => {
  const dirEntry = (name: string): TarEntry => ({ header: { name, size: 0, type: "directory" } });
  const extra: TarEntry[] = [
    dirEntry("emptydir/"),
    dirEntry("src/"),
    dirEntry("src/empty2/"),
    { header: { name: "run.sh", size: 10, type: "file", mode: 0o755 }, body: "echo hi\n#\n" },
  ];
  const result = await put("ok-modes", (await tarOf({ "a.txt": "a\n" }, extra)) as BodyInit);
  expect(result.status).toBe(201);
  // Files at the top level: no directory holds them; the three listed directories are empty, so not kept.
  expect(result.body.imported).toEqual({ files: 2, bytes: 12, directories: 0, notKept: { emptyDirectories: 3, executableModes: 1 } });
  expect(readdirSync(join(dir.path, "ok-modes")).sort()).toEqual(["a.txt", "run.sh"]);
});

test("the OpenAPI document describes the admin routes when workspaces are hosted", async () => {
  const doc = (await (await app.fetch(new Request("http://127.0.0.1/openapi.json", { headers: { host: "127.0.0.1" } }))).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/v1/workspaces", "/v1/workspaces/{ws}", "/v1/workspaces/{ws}/archive"]));
  expect(Object.keys(doc.paths["/v1/workspaces/{ws}"])).toEqual(["parameters", "put", "get", "delete"]);
});

test("files already under a workspace without a record: an archive is refused and they stay; a bodiless PUT adopts them", async () => {
  mkdirSync(join(dir.path, "ok-adopt"));
  writeFileSync(join(dir.path, "ok-adopt", "keep.txt"), "kept\n");
  const refused = await put("ok-adopt", (await tarOf(SEED)) as BodyInit);
  expect(refused.status).toBe(409);
  expect(refused.body.error.message).toContain("PUT it without a body to adopt them");
  expect(readFileSync(join(dir.path, "ok-adopt", "keep.txt"), "utf8")).toBe("kept\n");
  const adopted = await app.fetch(
    new Request("http://127.0.0.1/v1/workspaces/ok-adopt", { method: "PUT", headers: { authorization: `Bearer ${ADMIN}`, host: "127.0.0.1" } }),
  );
  expect(adopted.status).toBe(201);
  expect(((await adopted.json()) as CreateReply).usage).toEqual({ bytes: 5, files: 1 });
});

test("a DELETE of a workspace that never existed is a 404 and leaves nothing behind", async () => {
  const response = await app.fetch(
    new Request("http://127.0.0.1/v1/workspaces/never", { method: "DELETE", headers: { authorization: `Bearer ${ADMIN}`, host: "127.0.0.1" } }),
  );
  expect(response.status).toBe(404);
  expect(existsSync(join(dir.path, "never"))).toBe(false);
});
