import { describe, expect, test } from "bun:test";
import { resolveS3Config, s3ConfigFromEnv, s3ConfigFromSpec, type S3Config } from "../../src/storage/s3/config.ts";
import { createS3Storage } from "../../src/storage/s3/provider.ts";
import { recordingFetch } from "../helpers/s3-env.ts";

const base: S3Config = {
  endpoint: "http://127.0.0.1:9000",
  region: "us-east-1",
  bucket: "b1",
  accessKeyId: "AKID",
  secretAccessKey: "secret",
};

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}

describe("s3ConfigFromEnv", () => {
  const env = {
    S3_ENDPOINT: "http://127.0.0.1:7480",
    S3_REGION: "us-east-1",
    S3_BUCKET: "b1",
    S3_ACCESS_KEY_ID: "AKID",
    S3_SECRET_ACCESS_KEY: "secret",
  };

  test("reads the required variables and the optional ones", () => {
    expect(s3ConfigFromEnv({ ...env, S3_PREFIX: "ws1/", S3_PATH_STYLE: "false", S3_SESSION_TOKEN: "tok", OTHER: "x" })).toEqual({
      endpoint: "http://127.0.0.1:7480",
      region: "us-east-1",
      bucket: "b1",
      accessKeyId: "AKID",
      secretAccessKey: "secret",
      sessionToken: "tok",
      prefix: "ws1/",
      pathStyle: false,
    });
    expect(s3ConfigFromEnv(env)).not.toHaveProperty("pathStyle");
  });

  test("names every missing variable at once", () => {
    try {
      s3ConfigFromEnv({ S3_ENDPOINT: "http://x", S3_REGION: "" });
      throw new Error("accepted");
    } catch (error) {
      expect((error as { code?: string }).code).toBe("INVALID_ARGUMENT");
      expect((error as Error).message).toContain("S3_REGION, S3_BUCKET, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY");
    }
  });

  test("S3_PATH_STYLE must be a boolean word", () => {
    expect(s3ConfigFromEnv({ ...env, S3_PATH_STYLE: "1" }).pathStyle).toBe(true);
    expect(codeOf(() => s3ConfigFromEnv({ ...env, S3_PATH_STYLE: "maybe" }))).toBe("INVALID_ARGUMENT");
  });
});

describe("resolveS3Config", () => {
  test("a prefix names a folder: normalised and ending in '/'", () => {
    expect(resolveS3Config({ ...base, prefix: "ws1" }).prefix).toBe("ws1/");
    expect(resolveS3Config({ ...base, prefix: "/team//ws1/./" }).prefix).toBe("team/ws1/");
    expect(resolveS3Config({ ...base, prefix: "" }).prefix).toBe("");
    expect(codeOf(() => resolveS3Config({ ...base, prefix: "../other" }))).toBe("INVALID_ARGUMENT");
  });

  test("path-style addressing by default, except on AWS endpoints", () => {
    expect(resolveS3Config(base).pathStyle).toBe(true);
    expect(resolveS3Config({ ...base, endpoint: "https://s3.eu-west-1.amazonaws.com" }).pathStyle).toBe(false);
    expect(resolveS3Config({ ...base, endpoint: "https://s3.eu-west-1.amazonaws.com", pathStyle: true }).pathStyle).toBe(true);
  });

  const bad: Array<[string, Partial<S3Config>]> = [
    ["no endpoint", { endpoint: "" }],
    ["an endpoint that is not a URL", { endpoint: "localhost:9000" }],
    ["a non-HTTP endpoint", { endpoint: "ftp://host" }],
    ["an endpoint with a query", { endpoint: "http://host/?x=1" }],
    ["a bucket with a slash", { bucket: "a/b" }],
    ["no secret", { secretAccessKey: "" }],
    ["a page size over 1000", { listPageSize: 1001 }],
    ["a page size of 0", { listPageSize: 0 }],
  ];
  for (const [label, change] of bad) {
    test(`refused: ${label}`, () => {
      expect(codeOf(() => resolveS3Config({ ...base, ...change }))).toBe("INVALID_ARGUMENT");
    });
  }

  test("createS3Storage rejects a bad config before sending anything", async () => {
    const { fetch, requests } = recordingFetch(undefined, () => new Response(null, { status: 500 }));
    await expect(createS3Storage({ ...base, bucket: "", fetch })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    expect(requests).toEqual([]);
  });
});

describe("requests on the wire", () => {
  async function urlsFor(config: S3Config): Promise<{ url: URL; headers: Headers }> {
    const { fetch, requests } = recordingFetch(undefined, () => new Response(null, { status: 404 }));
    const storage = await createS3Storage({ ...config, fetch, skipProbe: true, prefix: "ws/" });
    await storage.stat("a b/c").catch(() => undefined); // only the first request matters
    return requests[0];
  }

  test("path style: endpoint/bucket/prefix+path, RFC 3986 encoded", async () => {
    const { url } = await urlsFor(base);
    expect(url.href).toBe("http://127.0.0.1:9000/b1/ws/a%20b/c");
  });

  test("virtual-hosted style on AWS: bucket.host/prefix+path", async () => {
    const { url } = await urlsFor({ ...base, endpoint: "https://s3.eu-west-1.amazonaws.com", region: "eu-west-1" });
    expect(url.href).toBe("https://b1.s3.eu-west-1.amazonaws.com/ws/a%20b/c");
  });

  test("signed with SigV4 for the region; a session token travels as X-Amz-Security-Token", async () => {
    const { headers } = await urlsFor({ ...base, region: "eu-central-1", sessionToken: "session-tok" });
    expect(headers.get("authorization")).toMatch(/^AWS4-HMAC-SHA256 Credential=AKID\/\d{8}\/eu-central-1\/s3\/aws4_request/);
    expect(headers.get("x-amz-security-token")).toBe("session-tok");
  });

  test("listing queries are RFC 3986 encoded (a space is %20, never '+')", async () => {
    const { fetch, requests } = recordingFetch(
      undefined,
      () => new Response("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>", { status: 200 }),
    );
    const storage = await createS3Storage({ ...base, fetch, skipProbe: true, prefix: "ws/" });
    await storage.list("", { recursive: true }).catch(() => undefined);
    await storage.list("a b+c").catch(() => undefined);
    expect(requests[0].url.search).toBe("?list-type=2&prefix=ws%2F&max-keys=1000");
    expect(requests[1].url.search).toBe("?list-type=2&prefix=ws%2Fa%20b%2Bc%2F&max-keys=1000&delimiter=%2F");
  });
});

describe("s3ConfigFromSpec: the AWS variables and the S3_* ones", () => {
  const aws = { AWS_ACCESS_KEY_ID: "AWSKEY", AWS_SECRET_ACCESS_KEY: "awssecret", AWS_SESSION_TOKEN: "awstoken", AWS_REGION: "eu-west-1" };

  test("the standard AWS variables alone: AWS itself in that region", () => {
    expect(s3ConfigFromSpec("b", "p/q", aws)).toEqual({
      endpoint: "https://s3.eu-west-1.amazonaws.com",
      region: "eu-west-1",
      bucket: "b",
      accessKeyId: "AWSKEY",
      secretAccessKey: "awssecret",
      sessionToken: "awstoken",
      prefix: "p/q",
    });
    expect(s3ConfigFromSpec("b", "", { ...aws, AWS_REGION: undefined, AWS_DEFAULT_REGION: "ap-south-1" }).region).toBe("ap-south-1");
    expect(s3ConfigFromSpec("b", "", { ...aws, AWS_REGION: undefined }).region).toBe("us-east-1");
  });

  test("endpoint: S3_ENDPOINT, else AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL", () => {
    const all = { ...aws, S3_ENDPOINT: "http://s3-endpoint", AWS_ENDPOINT_URL_S3: "http://aws-s3", AWS_ENDPOINT_URL: "http://aws-any" };
    expect(s3ConfigFromSpec("b", "", all).endpoint).toBe("http://s3-endpoint");
    expect(s3ConfigFromSpec("b", "", { ...all, S3_ENDPOINT: undefined }).endpoint).toBe("http://aws-s3");
    expect(s3ConfigFromSpec("b", "", { ...all, S3_ENDPOINT: undefined, AWS_ENDPOINT_URL_S3: undefined }).endpoint).toBe("http://aws-any");
  });

  test("S3_* wins, and keys come as one set: an S3_ key is never signed with an AWS_ secret", () => {
    const both = { ...aws, S3_ACCESS_KEY_ID: "S3KEY", S3_SECRET_ACCESS_KEY: "s3secret", S3_REGION: "us-west-2" };
    const config = s3ConfigFromSpec("b", "", both);
    expect([config.accessKeyId, config.secretAccessKey, config.sessionToken, config.region]).toEqual(["S3KEY", "s3secret", undefined, "us-west-2"]);
    expect(() => s3ConfigFromSpec("b", "", { ...aws, S3_ACCESS_KEY_ID: "S3KEY" })).toThrow(/set S3_SECRET_ACCESS_KEY/);
  });

  test("no keys at all names both sets of variables", () => {
    expect(() => s3ConfigFromSpec("b", "", {})).toThrow(
      "S3 config: no credentials for s3://b: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY)",
    );
  });
});
