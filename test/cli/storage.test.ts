/**
 * The workspace argument of `serve` and `call --root` in its every form, on
 * real processes: memory:, memory:DIR, s3:// (refused at start-up, in one
 * line, by a real S3 server that ignores conditional writes: s3rver), and
 * observations in a real redis-server.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import * as fs from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";
import { lineId, restCall, ROOT, runCli, startServe, tempDir } from "../helpers/cli.ts";
import { redisServerAvailable, startRedisServer, type RedisServer } from "../helpers/redis-server.ts";

const TOKEN = "storage-test-token";
// Each test starts real processes (one to three): seconds each on a loaded machine.
setDefaultTimeout(60_000);

describe("memory: storage", () => {
  test("serve memory:DIR starts with DIR's files, writes stay in memory, the banner and /healthz say memory", async () => {
    const dir = tempDir();
    writeFileSync(join(dir.path, "a.txt"), "one\n");
    const server = await startServe([`memory:${dir.path}`, "--port", "0", "--token", TOKEN]);
    try {
      expect(server.banner).toContain(`serving memory:${dir.path}\n`);
      expect(server.banner).toContain(`storage: memory (process memory (seeded with 1 file from ${dir.path}; changes are not written back))`);
      expect(server.banner).toContain("observations: memory (this process only)");
      expect(await (await fetch(`${server.url}/healthz`)).json()).toMatchObject({ ok: true, storage: "memory" });
      const view = await restCall(server.url, TOKEN, "view", { path: "a.txt" }, "s");
      expect(view.body.content[0].text).toContain("|one");
      const write = await restCall(server.url, TOKEN, "write", { path: "a.txt", content: "two\n" }, "s");
      expect(write.body.isError).toBe(false);
      expect((await restCall(server.url, TOKEN, "view", { path: "a.txt" }, "s")).body.content[0].text).toContain("|two");
      expect(readFileSync(join(dir.path, "a.txt"), "utf8")).toBe("one\n");
    } finally {
      server.kill();
      dir.remove();
    }
  });

  test("call --root memory: is an empty sandbox; memory:DIR reads DIR and never writes it", async () => {
    const empty = await runCli(["call", "view", '{"path": "."}', "--root", "memory:"]);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe("[./: empty directory]\n");
    const dir = tempDir();
    writeFileSync(join(dir.path, "a.txt"), "seed\n");
    const seeded = await runCli(["call", "write", '{"path": "new.txt", "content": "x\\n"}', "--root", `memory:${dir.path}`]);
    expect(seeded.code).toBe(0);
    expect(existsSync(join(dir.path, "new.txt"))).toBe(false);
    dir.remove();
  });

  test("the shell needs a directory: --allow-shell on memory: is refused in one line", async () => {
    const r = await runCli(["serve", "memory:", "--port", "0", "--allow-shell"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "toolwarden: the shell (--allow-shell or shell.enabled) runs commands in a local directory; memory: is memory storage, so turn the shell off\n",
    );
  });

  test("a config file's storage section chooses the workspace (paths relative to the file); the argument wins", async () => {
    const dir = tempDir();
    await fs.mkdir(join(dir.path, "seed"));
    writeFileSync(join(dir.path, "seed", "from-config.txt"), "c\n");
    writeFileSync(join(dir.path, "tw.json"), JSON.stringify({ storage: { kind: "memory", seed: "seed" } }));
    const fromConfig = await runCli(["call", "view", '{"path": "."}', "--config", join(dir.path, "tw.json")]);
    expect(fromConfig.stdout).toContain("from-config.txt");
    const argument = await runCli(["call", "view", '{"path": "."}', "--config", join(dir.path, "tw.json"), "--root", "memory:"]);
    expect(argument.stdout).not.toContain("from-config.txt");
    writeFileSync(join(dir.path, "bad.json"), JSON.stringify({ storage: { kind: "ftp" } }));
    const bad = await runCli(["call", "view", '{"path": "."}', "--config", join(dir.path, "bad.json")]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bad\.json: storage\.kind: kind must be local, memory or s3 \(got "ftp"\)\n$/);
    dir.remove();
  });

  test("an unknown scheme is refused, never taken for a directory", async () => {
    const r = await runCli(["serve", "s3:/bucket", "--port", "0"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toStartWith('toolwarden: storage "s3:/bucket": unknown storage scheme s3:;');
    expect(r.stderr.split("\n").length).toBe(2);
  });
});

describe("s3:// on a server that ignores conditional writes (s3rver)", () => {
  let server: S3rver;
  let directory: string;
  let endpoint: string;
  beforeAll(async () => {
    directory = await fs.mkdtemp(join(tmpdir(), "tw-s3rver-cli-"));
    server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, configureBuckets: [{ name: "files", configs: [] }] });
    endpoint = `http://127.0.0.1:${(await server.run()).port}`;
  });
  afterAll(async () => {
    await server.close();
    await fs.rm(directory, { recursive: true, force: true });
  });

  // The S3_* variables (set when the S3 suite runs) would win over these: blank them.
  const env = () => ({
    AWS_ENDPOINT_URL_S3: endpoint,
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "S3RVER",
    AWS_REGION: "us-east-1",
    ...{ S3_ENDPOINT: "", S3_REGION: "", S3_ACCESS_KEY_ID: "", S3_SECRET_ACCESS_KEY: "", S3_SESSION_TOKEN: "" },
  });

  test("serve refuses to start with one line naming the endpoint and the reason (no key in it)", async () => {
    const r = await runCli(["serve", "s3://files/ws", "--port", "0"], { env: env() });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `toolwarden: storage s3://files/ws at ${endpoint} bucket files prefix ws/: cannot be used: the second create-if-absent write was accepted, ` +
        "so this server ignores conditional PUT; guarded writes cannot be offered\n",
    );
  });

  test("a missing bucket and missing keys are named in one line each", async () => {
    const missing = await runCli(["call", "view", '{"path": "."}', "--root", "s3://nothere"], { env: env() });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      `toolwarden: storage s3://nothere at ${endpoint} bucket nothere: bucket nothere does not exist (HTTP 404 NoSuchBucket); create it or fix the name\n`,
    );
    const noKeys = await runCli(["call", "view", '{"path": "."}', "--root", "s3://files"], {
      env: { ...env(), AWS_ACCESS_KEY_ID: "", S3_ACCESS_KEY_ID: "" },
    });
    expect(noKeys.code).toBe(2);
    expect(noKeys.stderr).toBe(
      "toolwarden: storage s3://files: S3 config: no credentials for s3://files: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY)\n",
    );
  });
});

describe("--observations redis://", () => {
  test("a server that cannot be reached stops start-up with one line, no password in it", async () => {
    const r = await runCli(["serve", "memory:", "--port", "0", "--observations", "redis://user:hunter2@127.0.0.1:1/0"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^toolwarden: observations redis:\/\/127\.0\.0\.1:1\/0: cannot connect \(.+\)\n$/);
    expect(r.stderr).not.toContain("hunter2");
  });

  test("a bad value is a usage error", async () => {
    const r = await runCli(["serve", "memory:", "--port", "0", "--observations", "postgres://x"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toStartWith('toolwarden: --observations takes memory or redis://HOST:PORT[/DB] (got "postgres://x")\n');
  });

  const deno = join(ROOT, "node_modules", ".bin", "deno");
  describe.skipIf(!redisServerAvailable())("with a real redis-server", () => {
    let redis: RedisServer;
    beforeAll(async () => {
      redis = await startRedisServer();
    });
    afterAll(() => redis?.stop());

    for (const runtime of ["bun", "deno"] as const) {
      test.skipIf(runtime === "deno" && !existsSync(deno))(
        `${runtime}: views recorded in redis count for a restarted server's writes`,
        async () => {
          const dir = tempDir();
          writeFileSync(join(dir.path, "a.txt"), "one\n");
          const db = runtime === "bun" ? 1 : 2;
          const options = runtime === "deno" ? { command: [deno, "task", "serve"], detached: true } : {};
          const args = [dir.path, "--port", "0", "--token", TOKEN, "--observations", `${redis.url}/${db}`];
          const first = await startServe(args, options);
          const stop = async (server: typeof first) => {
            server.child.kill("SIGTERM");
            const code = await server.exited;
            // SIGTERM closes the Redis connection and exits 0 (deno task itself may report 143 for its group).
            if (runtime === "bun") expect(code).toBe(0);
            if (runtime === "deno") {
              try {
                process.kill(-server.child.pid!, "SIGKILL");
              } catch {
                // Already gone.
              }
            }
          };
          try {
            expect(first.banner).toContain(`observations: ${redis.url}/${db}`);
            const view = await restCall(first.url, TOKEN, "view", { path: "a.txt" }, "s");
            const id = lineId(view.body.content[0].text, "one");
            await stop(first);
            // A new process has nothing in memory: only the shared store can know what session s viewed.
            const second = await startServe(args, options);
            try {
              const edit = await restCall(
                second.url,
                TOKEN,
                "batch_edit",
                { path: "a.txt", operations: [{ operation: "replace", start: id, content: "two" }] },
                "s",
              );
              expect(edit.body.isError).toBe(false);
              expect(readFileSync(join(dir.path, "a.txt"), "utf8")).toBe("two\n");
            } finally {
              await stop(second);
            }
          } finally {
            first.kill();
            dir.remove();
          }
        },
        60_000,
      );
    }
  });
});
