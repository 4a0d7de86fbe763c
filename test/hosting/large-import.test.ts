/**
 * An archive inside the documented import limits but over the runtime's
 * own default body limit (Bun: 128 MiB, answered with an empty 413) is
 * imported by a real `toolwarden serve --workspaces` process.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { importBodyBytes } from "../../src/cli/serve.ts";
import { DEFAULT_IMPORT_LIMITS } from "../../src/http/hosting/mod.ts";
import { runCli, startServe, tempDir, type ServeProcess } from "../helpers/cli.ts";
import { admin as adminCall, tarOf } from "../helpers/hosting-flow.ts";

const SECRET = "5a6c1d0e9a8b7c6d5e4f30211203f4e5d6c7b8a9f0e1d2c3b4a5968778695a4c";
const env = { TW_JWT: SECRET };

describe("imports past the runtime's default body limit", () => {
  const dir = tempDir("tw-large-import-");
  let server: ServeProcess;
  beforeAll(async () => {
    server = await startServe(["--workspaces", dir.path, "--jwt-secret-env", "TW_JWT", "--port", "0", "--quiet"], { env });
  });
  afterAll(() => {
    server?.kill();
    dir.remove();
  });

  test("the body limit covers the import limits: content, a header per entry, the end blocks", () => {
    expect(importBodyBytes(DEFAULT_IMPORT_LIMITS)).toBeGreaterThan(DEFAULT_IMPORT_LIMITS.maxBytes + DEFAULT_IMPORT_LIMITS.maxEntries * 512);
    expect(importBodyBytes(undefined)).toBeUndefined();
  });

  test("a 135 MiB tar of three 45 MiB files is imported whole", async () => {
    const done = await runCli(["token", "mint", "--key-env", "TW_JWT", "--workspace", "*", "--scopes", "admin", "--ttl", "1h", "--label", "platform"], { env });
    const admin = done.stdout.trim();
    const size = 45 * 1024 * 1024;
    const body = (k: number) => `${k}`.repeat(size);
    const tar = await tarOf({ "a.bin": body(1), "b.bin": body(2), "c.bin": body(3) }, [], false);
    expect(tar.length).toBeGreaterThan(128 * 1024 * 1024);
    const created = await adminCall(server.url, admin, "PUT", "/v1/workspaces/big", { body: tar as BodyInit, type: "application/x-tar" });
    expect(created.status).toBe(201);
    for (const name of ["a.bin", "b.bin", "c.bin"]) expect(statSync(join(dir.path, "big", name)).size).toBe(size);
  }, 120_000);
});
