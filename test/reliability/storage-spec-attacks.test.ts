/**
 * Red-team pass on storage specs, against the real command: a bucket name
 * that rewrites the S3 URL's host, a prefix inside another workspace's
 * reserved history, and `memory:DIR` seeded from a directory with symlinks
 * that point outside it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, tempDir } from "../helpers/cli.ts";

/** A server that only records who called it (an attacker's host, or an S3 endpoint that must not be reached). */
let seen: { host: string; authorization: string | null }[] = [];
let listener: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  listener = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      seen.push({ host: new URL(request.url).host, authorization: request.headers.get("authorization") });
      return new Response("<Error><Code>AccessDenied</Code></Error>", { status: 403, headers: { "content-type": "application/xml" } });
    },
  });
});
afterAll(() => listener?.stop(true));

const keys = { S3_ACCESS_KEY_ID: "AKIAREDTEAMTEST", S3_SECRET_ACCESS_KEY: "redteam-secret", S3_REGION: "us-east-1", S3_SESSION_TOKEN: "" };

describe("s3:// specs", () => {
  test("a bucket name with URL syntax cannot send signed requests to another host", async () => {
    seen = [];
    for (const bucket of [`127.0.0.1:${listener.port}#`, `127.0.0.1:${listener.port}?`, `x@127.0.0.1:${listener.port}?`]) {
      // Host-style addressing puts the bucket in front of the endpoint's host; the endpoint itself is unreachable.
      const run = await runCli(["call", "view", '{"path": "."}', "--root", `s3://${bucket}`], {
        env: { ...keys, S3_ENDPOINT: "http://127.0.0.1:1", S3_PATH_STYLE: "false" },
      });
      expect({ bucket, seen }).toEqual({ bucket, seen: [] });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("is not a bucket name");
    }
  });

  test("a workspace prefix inside a workspace's .toolwarden/ is refused before any request", async () => {
    seen = [];
    for (const spec of ["s3://files/ws/.toolwarden/history", "s3://files/.toolwarden", "s3://files/a/./.toolwarden/x"]) {
      const run = await runCli(["call", "view", '{"path": "."}', "--root", spec], {
        env: { ...keys, S3_ENDPOINT: `http://127.0.0.1:${listener.port}`, S3_PATH_STYLE: "true" },
      });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("inside .toolwarden/, where a workspace keeps its history");
    }
    expect(seen).toEqual([]);
  });
});

describe("memory:DIR seeded from a directory with symlinks", () => {
  const dir = tempDir("tw-seed-attacks-");
  const ws = join(dir.path, "ws");
  beforeAll(() => {
    mkdirSync(ws);
    writeFileSync(join(dir.path, "outside.txt"), "OUTSIDE SECRET\n");
    writeFileSync(join(ws, "a.txt"), "a\n");
    symlinkSync(join(dir.path, "outside.txt"), join(ws, "link.txt"));
    symlinkSync(dir.path, join(ws, "linkdir"));
    symlinkSync("/nonexistent", join(ws, "dangling"));
    symlinkSync("a.txt", join(ws, "inside-link.txt"));
  });
  afterAll(() => dir.remove());

  test("copies what is inside (a symlink within the directory included), never what a symlink points to outside", async () => {
    const listing = await runCli(["call", "view", '{"path": ".", "depth": 3}', "--root", `memory:${ws}`]);
    expect(listing.code).toBe(0);
    expect(listing.stdout).toContain("a.txt");
    expect(listing.stdout).toContain("inside-link.txt");
    expect(listing.stdout.split("\n").filter((line) => line.startsWith("link.txt"))).toEqual([]);
    expect(listing.stdout).not.toContain("linkdir");
    expect(listing.stdout).not.toContain("outside");
    const search = await runCli(["call", "view", '{"path": ".", "content": "SECRET"}', "--root", `memory:${ws}`]);
    expect(search.stdout).toContain("no match in 2 files searched");
  });
});
