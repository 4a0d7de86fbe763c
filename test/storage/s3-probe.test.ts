/**
 * The start-up probe: the provider refuses to start on a server that
 * ignores conditional PUT — proven on s3rver, a real S3 server (in-process)
 * that does exactly that — and on fakes for the other ways to fall short.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as fs from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";
import { isFsError } from "../../src/storage/errors.ts";
import { createS3Storage } from "../../src/storage/s3/provider.ts";
import { createFakeS3, type FakeS3 } from "../helpers/s3-fake.ts";
import { listKeys } from "../helpers/s3-env.ts";

async function startupFailure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (!isFsError(error)) throw error;
    return { code: error.code, message: error.message };
  }
  throw new Error("the provider started");
}

describe("s3 probe on s3rver (ignores conditional PUT)", () => {
  let server: S3rver;
  let directory: string;
  let endpoint: string;
  const config = () => ({
    endpoint,
    region: "us-east-1",
    bucket: "probe-bucket",
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
    prefix: "ws1/",
  });

  beforeAll(async () => {
    directory = await fs.mkdtemp(join(tmpdir(), "tw-s3rver-"));
    server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, configureBuckets: [{ name: "probe-bucket", configs: [] }] });
    const address = await server.run();
    endpoint = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    await server.close();
    await fs.rm(directory, { recursive: true, force: true });
  });

  test("refuses to start, naming the endpoint and the reason, and removes its sentinel", async () => {
    const failure = await startupFailure(createS3Storage(config()));
    expect(failure.code).toBe("FS_IO_ERROR");
    expect(failure.message).toContain(endpoint);
    expect(failure.message).toContain(
      "the second create-if-absent write was accepted, so this server ignores conditional PUT; guarded writes cannot be offered",
    );
    expect(await listKeys(config(), "ws1/")).toEqual([]);
  });

  test("with the probe skipped it starts (the refusal is the probe's verdict, not a connection failure)", async () => {
    const storage = await createS3Storage({ ...config(), skipProbe: true });
    await storage.write("f", new TextEncoder().encode("x"));
    expect((await storage.stat("f"))?.kind).toBe("file");
    expect(storage.conditionalDelete).toBe(false);
  });
});

describe("s3 probe on servers that fall short in other ways", () => {
  const connect = (fake: FakeS3) =>
    createS3Storage({
      endpoint: fake.endpoint,
      region: "us-east-1",
      bucket: fake.bucket,
      accessKeyId: "key",
      secretAccessKey: "secret",
      fetch: fake.fetch,
    });

  test("honours If-None-Match but not If-Match: refused", async () => {
    const fake = createFakeS3({ ignoreIfMatch: true });
    const failure = await startupFailure(connect(fake));
    expect(failure.message).toContain("a write with a wrong If-Match ETag was accepted, so this server ignores If-Match");
    expect(failure.message).toContain(fake.endpoint);
  });

  test("accepts only the quoted ETag in If-Match: refused, since every compare-and-swap would fail", async () => {
    const failure = await startupFailure(connect(createFakeS3({ quotedIfMatchOnly: true })));
    expect(failure.code).toBe("FS_IO_ERROR");
    expect(failure.message).toContain("a write with the current ETag (unquoted) in If-Match was refused");
  });

  test("denies access: FS_ACCESS_DENIED from the probe, naming the step", async () => {
    const fake = createFakeS3();
    fake.intercept = () => new Response("<Error><Code>AccessDenied</Code></Error>", { status: 403 });
    const failure = await startupFailure(connect(fake));
    expect(failure.code).toBe("FS_ACCESS_DENIED");
    expect(failure.message).toContain("start-up probe (first create-if-absent write)");
    expect(failure.message).toContain("AccessDenied");
  });

  test("unreachable: FS_IO_ERROR from the probe", async () => {
    const fake = createFakeS3();
    fake.intercept = () => {
      throw new TypeError("connection refused");
    };
    const failure = await startupFailure(connect(fake));
    expect(failure.code).toBe("FS_IO_ERROR");
    expect(failure.message).toContain("S3 start-up probe (first create-if-absent write)");
    expect(failure.message).toContain("connection refused");
  });

  test("a server that enforces conditions starts, and the sentinel is gone", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    expect(storage.kind).toBe("s3");
    expect(fake.objects.size).toBe(0);
  });
});
