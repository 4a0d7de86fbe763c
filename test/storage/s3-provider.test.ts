/**
 * The S3 provider's own logic, against the in-process fake (test/storage/s3-fake.ts):
 * the shared conformance suite under both servers' dialects, then what only
 * S3 has — retries, unknown outcomes, error mapping, request counts.
 */
import { describe, expect, test } from "bun:test";
import { isFsError } from "../../src/storage/errors.ts";
import { createS3Storage, type S3Storage } from "../../src/storage/s3/provider.ts";
import { Cond } from "../../src/storage/types.ts";
import { storageConformance } from "../helpers/storage-conformance.ts";
import { BODY_CHUNK_BYTES } from "../../src/storage/body-stream.ts";
import { createFakeS3, FAKE_S3_CHUNK, type FakeS3, type FakeS3Options } from "../helpers/s3-fake.ts";

const text = (s: string) => new TextEncoder().encode(s);
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

async function connect(fake: FakeS3, extra: { prefix?: string; listPageSize?: number; skipProbe?: boolean } = {}): Promise<S3Storage> {
  return createS3Storage({
    endpoint: fake.endpoint,
    region: "us-east-1",
    bucket: fake.bucket,
    accessKeyId: "key",
    secretAccessKey: "secret",
    fetch: fake.fetch,
    prefix: "ws/",
    ...extra,
  });
}

async function failureOf(promise: Promise<unknown>): Promise<{ code: string; message: string; cause?: unknown }> {
  try {
    await promise;
  } catch (error) {
    if (!isFsError(error)) throw error;
    return { code: error.code, message: error.message, cause: error.cause };
  }
  throw new Error("expected a failure");
}

function putsSince(fake: FakeS3, index: number): number {
  return fake.requests.slice(index).filter((r) => r.method === "PUT").length;
}

const dialects: Array<[string, FakeS3Options]> = [
  ["AWS dialect", { ifMatchMissing: 404, deleteIfMatch: true }],
  ["radosgw dialect", { ifMatchMissing: 412, deleteIfMatch: false }],
];
for (const [label, options] of dialects) {
  storageConformance(`s3 on the fake server, ${label}`, async () => ({ storage: await connect(createFakeS3(options)) }));
}

describe("s3: keys, headers and versions", () => {
  test("a file is stored at prefix + path; the version is the ETag without quotes", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    const { version } = await storage.write("a/b.txt", text("x"));
    const stored = fake.objects.get("ws/a/b.txt");
    expect(stored?.etag).toBe(`"${version}"`);
    expect((await storage.stat("a/b.txt"))?.version).toBe(version);
  });

  test("ifVersion sends If-Match with the unquoted ETag, ifAbsent sends If-None-Match: *", async () => {
    const fake = createFakeS3({ quotedIfMatchOnly: false });
    const storage = await connect(fake);
    const first = await storage.write("f", text("1"), Cond.ifAbsent);
    expect(fake.requests.at(-1)?.headers.get("if-none-match")).toBe("*");
    await storage.write("f", text("2"), Cond.ifVersion(first.version));
    expect(fake.requests.at(-1)?.headers.get("if-match")).toBe(first.version);
  });

  test("an ifVersion write is one request; an ifAbsent write checks the layout in parallel first", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    const { version } = await storage.write("d/e/f", text("1"), Cond.ifAbsent);
    // LIST d/e/f/ + HEAD d + HEAD d/e, then the PUT.
    expect(
      fake.requests
        .slice(-4, -1)
        .map((r) => r.method)
        .sort(),
    ).toEqual(["GET", "HEAD", "HEAD"]);
    expect(fake.requests.at(-1)?.method).toBe("PUT");
    const before = fake.requests.length;
    await storage.write("d/e/f", text("2"), Cond.ifVersion(version));
    expect(fake.requests.length - before).toBe(1);
  });

  test("a conflict answered 409 (ConditionalRequestConflict) is a failed condition too", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    const { version } = await storage.write("f", text("1"));
    fake.intercept = (request) =>
      request.method === "PUT" ? new Response("<Error><Code>ConditionalRequestConflict</Code></Error>", { status: 409 }) : undefined;
    expect((await failureOf(storage.write("f", text("2"), Cond.ifVersion(version)))).code).toBe("FS_STALE_VERSION");
    expect((await failureOf(storage.write("g", text("2"), Cond.ifAbsent))).code).toBe("FS_ALREADY_EXISTS");
  });

  test("paths with URL and XML metacharacters survive the round trip and the listing", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    const names = ["a b", "a+b", "a&b", "<x>", "it's", "100%", "50%25", "q?x=1#h", "é", "🚀", "\uff0e"];
    for (const name of names) await storage.write(`d/${name}`, text(name));
    expect([...fake.objects.keys()].sort()).toEqual(names.map((n) => `ws/d/${n}`).sort());
    for (const name of names) expect(decode((await storage.read(`d/${name}`)).bytes)).toBe(name);
    const listed = (await storage.list("d")).entries.map((e) => e.name);
    expect(listed).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });
});

describe("s3: keys other writers made", () => {
  test("a folder marker key makes a directory, not a file with an empty name", async () => {
    const fake = createFakeS3();
    await fake.seed("ws/empty/", "");
    await fake.seed("ws/full/", "");
    await fake.seed("ws/full/f", "x");
    const storage = await connect(fake);
    expect(await storage.stat("empty")).toMatchObject({ kind: "directory" });
    expect((await storage.list("", { recursive: true })).entries.map((e) => [e.path, e.kind])).toEqual([
      ["empty", "directory"],
      ["full", "directory"],
      ["full/f", "file"],
    ]);
  });

  test("keys with empty, '.' or '..' segments are not listed", async () => {
    const fake = createFakeS3();
    await fake.seed("ws/a//b", "x");
    await fake.seed("ws/../c", "x");
    await fake.seed("ws/ok", "x");
    const storage = await connect(fake);
    expect((await storage.list("", { recursive: true })).entries.map((e) => e.path)).toEqual(["ok"]);
  });

  test("a key 'a' beside keys 'a/...': the file wins in stat and list", async () => {
    const fake = createFakeS3();
    await fake.seed("ws/a", "file");
    await fake.seed("ws/a/b", "below");
    const storage = await connect(fake);
    expect(await storage.stat("a")).toMatchObject({ kind: "file", size: 4 });
    expect((await storage.list("")).entries).toEqual([{ path: "a", name: "a", kind: "file", size: 4 }]);
    expect(decode((await storage.read("a/b")).bytes)).toBe("below");
  });
});

describe("s3: listing reads no more than it needs", () => {
  async function seeded(count: number): Promise<FakeS3> {
    const fake = createFakeS3();
    for (let i = 0; i < count; i++) await fake.seed(`ws/d/f${String(i).padStart(3, "0")}`, "x");
    return fake;
  }

  test("a limited listing of a large directory stops after the first page", async () => {
    const fake = await seeded(500);
    const storage = await connect(fake, { listPageSize: 50 });
    const before = fake.requests.length;
    const cut = await storage.list("d", { limit: 10 });
    expect(cut.entries.map((e) => e.name)).toEqual(Array.from({ length: 10 }, (_, i) => `f00${i}`));
    expect(cut.truncated).toBe(true);
    expect(fake.requests.length - before).toBe(1);
  });

  test("an unlimited listing follows continuation tokens to the end", async () => {
    const fake = await seeded(120);
    const storage = await connect(fake, { listPageSize: 50 });
    const before = fake.requests.length;
    const all = await storage.list("d");
    expect(all.entries.length).toBe(120);
    expect(all.truncated).toBe(false);
    expect(fake.requests.length - before).toBe(3);
  });

  test("a directory whose keys come after its siblings' keys is still listed in its place", async () => {
    const fake = createFakeS3();
    // S3 order: a-1 .. a-9, a.txt, then a/x: the directory "a" arrives last but sorts first.
    for (let i = 1; i <= 9; i++) await fake.seed(`ws/a-${i}`, "x");
    await fake.seed("ws/a.txt", "x");
    await fake.seed("ws/a/x", "x");
    const storage = await connect(fake, { listPageSize: 2 });
    const cut = await storage.list("", { limit: 2 });
    expect(cut.entries.map((e) => e.path)).toEqual(["a", "a-1"]);
    expect(cut.truncated).toBe(true);
  });

  test("a directory rolled up by the delimiter costs one entry, not a walk of its subtree", async () => {
    const fake = createFakeS3();
    for (let i = 0; i < 200; i++) await fake.seed(`ws/big/f${i}`, "x");
    await fake.seed("ws/small", "x");
    const storage = await connect(fake, { listPageSize: 10 });
    const before = fake.requests.length;
    expect((await storage.list("")).entries.map((e) => e.path)).toEqual(["big", "small"]);
    expect(fake.requests.length - before).toBe(1);
  });

  test("a server that repeats a continuation token is an I/O error, not an endless loop", async () => {
    const fake = await seeded(10);
    const storage = await connect(fake, { listPageSize: 2 });
    fake.intercept = (request) =>
      request.key === undefined
        ? new Response(
            "<ListBucketResult><IsTruncated>true</IsTruncated><Contents><Key>ws/d/f000</Key><Size>1</Size></Contents><NextContinuationToken>same</NextContinuationToken></ListBucketResult>",
          )
        : undefined;
    const failure = await failureOf(storage.list("d"));
    expect(failure.code).toBe("FS_IO_ERROR");
    expect(failure.message).toContain("repeated a continuation token");
  });
});

describe("s3: retries and unknown outcomes", () => {
  test("a read answered 503 once is sent again and succeeds", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    await storage.write("f", text("x"));
    let failures = 1;
    fake.intercept = (request) =>
      request.method === "GET" && failures-- > 0 ? new Response("<Error><Code>SlowDown</Code></Error>", { status: 503 }) : undefined;
    expect(decode((await storage.read("f")).bytes)).toBe("x");
  });

  test("a read failing twice on the network is FS_IO_ERROR with the cause chained", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    fake.intercept = (request) => {
      if (request.method === "GET") throw new TypeError("connection reset");
      return undefined;
    };
    const failure = await failureOf(storage.read("f"));
    expect(failure.code).toBe("FS_IO_ERROR");
    expect(failure.message).toContain("connection reset");
    expect(failure.message).toContain("after one retry");
    expect(failure.cause).toBeInstanceOf(TypeError);
    expect(fake.requests.filter((r) => r.method === "GET" && r.key === "ws/f").length).toBe(2);
  });

  test("a 5xx that persists is FS_IO_ERROR naming the status and the S3 error code", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    fake.intercept = () => new Response("<Error><Code>InternalError</Code><Message>boom</Message></Error>", { status: 500 });
    const failure = await failureOf(storage.stat("f"));
    expect(failure.code).toBe("FS_IO_ERROR");
    expect(failure.message).toContain("HTTP 500 InternalError: boom");
    expect(failure.message).toContain("http://fake-s3.test");
    expect(failure.cause).toMatchObject({ status: 500, s3Code: "InternalError" });
  });

  test("403 is FS_ACCESS_DENIED; a missing bucket is FS_IO_ERROR, not a missing file", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    fake.intercept = () => new Response("<Error><Code>AccessDenied</Code></Error>", { status: 403 });
    expect(await failureOf(storage.read("f"))).toMatchObject({ code: "FS_ACCESS_DENIED" });
    fake.intercept = () => new Response("<Error><Code>NoSuchBucket</Code></Error>", { status: 404 });
    const failure = await failureOf(storage.list(""));
    expect(failure.code).toBe("FS_IO_ERROR");
    expect(failure.message).toContain("NoSuchBucket");
  });

  test("a conditional write answered 500 without landing (radosgw's lost race) is sent again", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    const { version } = await storage.write("f", text("1"));
    let failures = 1;
    fake.intercept = (request) =>
      request.method === "PUT" && failures-- > 0 ? new Response("<Error><Code>UnknownError</Code></Error>", { status: 500 }) : undefined;
    const before = fake.requests.length;
    const result = await storage.write("f", text("2"), Cond.ifVersion(version));
    expect(decode((await storage.read("f")).bytes)).toBe("2");
    expect((await storage.stat("f"))?.version).toBe(result.version);
    expect(putsSince(fake, before)).toBe(2); // the failed try and its repeat
  });

  test("a conditional write that landed but lost its answer is reported as the success it was", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    let lose = true;
    fake.intercept = async (request, store) => {
      if (request.method !== "PUT" || !lose) return undefined;
      lose = false;
      await store();
      throw new TypeError("socket hang up");
    };
    const before = fake.requests.length;
    const result = await storage.write("f", text("mine"), Cond.ifAbsent);
    expect(result.created).toBe(true);
    expect((await storage.read("f")).version).toBe(result.version);
    expect(putsSince(fake, before)).toBe(1);
  });

  test("a conditional write answered 500 while another writer won is a failed condition", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    const { version } = await storage.write("f", text("1"));
    fake.intercept = async (request) => {
      if (request.method !== "PUT") return undefined;
      fake.intercept = undefined;
      await storage.write("f", text("other"));
      return new Response("<Error><Code>UnknownError</Code></Error>", { status: 500 });
    };
    expect((await failureOf(storage.write("f", text("mine"), Cond.ifVersion(version)))).code).toBe("FS_STALE_VERSION");
    expect(decode((await storage.read("f")).bytes)).toBe("other");
  });

  test("a conditional write failing with 500 every time gives up after three tries", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    fake.intercept = (request) => (request.method === "PUT" ? new Response("<Error><Code>UnknownError</Code></Error>", { status: 500 }) : undefined);
    const before = fake.requests.length;
    const failure = await failureOf(storage.write("f", text("x"), Cond.ifAbsent));
    expect(failure.code).toBe("FS_IO_ERROR");
    expect(failure.message).toContain("HTTP 500 UnknownError");
    expect(putsSince(fake, before)).toBe(3);
  });

  test("a conditional write is not repeated after a 412", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    await storage.write("f", text("x"));
    const before = fake.requests.length;
    await failureOf(storage.write("f", text("y"), Cond.ifVersion("0123")));
    expect(fake.requests.length - before).toBe(1);
  });

  test("a body that breaks off mid-read is FS_IO_ERROR, not a bare stream error", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    await storage.write("f", text("x"));
    fake.intercept = (request) => {
      if (request.method !== "GET" || request.key === undefined) return undefined;
      const body = new ReadableStream({
        start(controller) {
          controller.enqueue(text("partial"));
          controller.error(new TypeError("stream reset"));
        },
      });
      return new Response(body, { status: 200, headers: { etag: '"abc"' } });
    };
    const failure = await failureOf(storage.read("f"));
    expect(failure.code).toBe("FS_IO_ERROR");
    expect(failure.message).toContain("the response body broke off");
  });

  test("a version no ETag could be is stale without a request", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    await storage.write("f", text("x"));
    const before = fake.requests.length;
    expect((await failureOf(storage.write("f", text("y"), Cond.ifVersion("line\nbreak")))).code).toBe("FS_STALE_VERSION");
    expect(fake.requests.length).toBe(before);
  });

  test("an unconditional write answered 500 once is sent again", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    let failures = 1;
    fake.intercept = (request) => (request.method === "PUT" && failures-- > 0 ? new Response("", { status: 502 }) : undefined);
    await storage.write("f", text("x"));
    expect(decode((await storage.read("f")).bytes)).toBe("x");
  });
});

describe("s3: streamed reads and maxBytes", () => {
  /** A GET answer whose body delivers `parts`, then fails with `breaks` if given, announcing `length` bytes. */
  function answer(parts: string[], length: number, breaks?: Error): Response {
    let next = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (next < parts.length) controller.enqueue(text(parts[next++]));
        else if (breaks) controller.error(breaks);
        else controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { etag: '"abc"', "content-length": String(length) } });
  }

  async function streamFailure(storage: S3Storage, path: string) {
    const opened = await storage.readStream(path);
    return failureOf(new Response(opened.stream).arrayBuffer());
  }

  test("readStream is one GET whose body is pulled as the reader reads, not before", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    const bytes = new Uint8Array(10 * FAKE_S3_CHUNK).fill(7);
    const { version } = await storage.write("big", bytes);
    const before = fake.requests.length;
    const opened = await storage.readStream("big");
    expect(fake.requests.length - before).toBe(1);
    expect(opened.size).toBe(bytes.length);
    expect(await opened.version).toBe(version);
    const reader = opened.stream.getReader();
    const first = await reader.read();
    expect(first.value?.length).toBe(BODY_CHUNK_BYTES);
    // The transport may buffer a little ahead, but not the object.
    expect(fake.bodies.at(-1)!.pulled).toBeLessThan(bytes.length / 2);
    await reader.cancel();
  });

  test("cancelling the stream cancels the response body, releasing the connection", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    await storage.write("big", new Uint8Array(10 * FAKE_S3_CHUNK));
    const opened = await storage.readStream("big");
    const reader = opened.stream.getReader();
    await reader.read();
    await reader.cancel();
    await Bun.sleep(0);
    expect(fake.bodies.at(-1)).toMatchObject({ key: "ws/big", cancelled: true });
  });

  test("a body that breaks off mid-stream fails the stream with FS_IO_ERROR", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    await storage.write("f", text("x"));
    fake.intercept = (request) => (request.method === "GET" && request.key !== undefined ? answer(["partial"], 100, new TypeError("stream reset")) : undefined);
    const failure = await streamFailure(storage, "f");
    expect(failure.code).toBe("FS_IO_ERROR");
    expect(failure.message).toContain("broke off after 7 of 100 bytes");
    expect(failure.message).toContain("stream reset");
    expect(failure.cause).toBeInstanceOf(TypeError);
  });

  test("a body shorter or longer than its Content-Length fails the stream: the ETag would not name what arrived", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    await storage.write("f", text("x"));
    fake.intercept = (request) => (request.method === "GET" && request.key !== undefined ? answer(["abc"], 5) : undefined);
    expect(await streamFailure(storage, "f")).toMatchObject({ code: "FS_IO_ERROR", message: expect.stringContaining("ended after 3 of 5 bytes") });
    fake.intercept = (request) => (request.method === "GET" && request.key !== undefined ? answer(["abc", "def"], 4) : undefined);
    expect(await streamFailure(storage, "f")).toMatchObject({ code: "FS_IO_ERROR", message: expect.stringContaining("ran past the 4 bytes") });
  });

  test("an answer without Content-Length is read whole and streamed from memory", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    await storage.write("f", text("x"));
    fake.intercept = (request) =>
      request.method === "GET" && request.key !== undefined ? new Response(text("hello"), { status: 200, headers: { etag: '"abc"' } }) : undefined;
    const opened = await storage.readStream("f");
    expect(opened.size).toBe(5);
    expect(decode(new Uint8Array(await new Response(opened.stream).arrayBuffer()))).toBe("hello");
    expect(await opened.version).toBe("abc");
  });

  test("a GET answered 503 once is sent again before the stream is handed out", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    await storage.write("f", text("streamed"));
    let failures = 1;
    fake.intercept = (request) =>
      request.method === "GET" && failures-- > 0 ? new Response("<Error><Code>SlowDown</Code></Error>", { status: 503 }) : undefined;
    const opened = await storage.readStream("f");
    expect(decode(new Uint8Array(await new Response(opened.stream).arrayBuffer()))).toBe("streamed");
  });

  test("read with maxBytes refuses by Content-Length and cancels the body unread", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    const size = 20 * FAKE_S3_CHUNK;
    await storage.write("big", new Uint8Array(size));
    const before = fake.requests.length;
    const failure = await storage.read("big", { maxBytes: 1000 }).catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: "FS_TOO_LARGE", size, limit: 1000 });
    expect(fake.requests.length - before).toBe(1);
    await Bun.sleep(0);
    const body = fake.bodies.at(-1)!;
    expect(body.cancelled).toBe(true);
    expect(body.pulled).toBeLessThan(size / 2);
  });

  test("read with maxBytes of an answer without Content-Length still refuses by the bytes", async () => {
    const fake = createFakeS3();
    const storage = await connect(fake);
    await storage.write("f", text("x"));
    fake.intercept = (request) =>
      request.method === "GET" && request.key !== undefined ? new Response(text("hello"), { status: 200, headers: { etag: '"abc"' } }) : undefined;
    expect(await storage.read("f", { maxBytes: 4 }).catch((e: unknown) => e)).toMatchObject({ code: "FS_TOO_LARGE", size: 5, limit: 4 });
    expect(decode((await storage.read("f", { maxBytes: 5 })).bytes)).toBe("hello");
  });
});

describe("s3: delete", () => {
  test("sends If-Match with ifVersion, and a server refusing it (412) is a stale version", async () => {
    const fake = createFakeS3({ deleteIfMatch: true });
    const storage = await connect(fake);
    const { version } = await storage.write("f", text("1"));
    // Another writer slips in between the HEAD and the DELETE.
    fake.intercept = async (request) => {
      if (request.method !== "DELETE") return undefined;
      fake.intercept = undefined;
      await fake.seed("ws/f", "2");
      return undefined;
    };
    expect((await failureOf(storage.delete("f", { ifVersion: version }))).code).toBe("FS_STALE_VERSION");
    expect(decode((await storage.read("f")).bytes)).toBe("2");
  });

  test("conditionalDelete reports whether the server honoured If-Match on DELETE at start-up", async () => {
    expect((await connect(createFakeS3({ deleteIfMatch: true }))).conditionalDelete).toBe(true);
    expect((await connect(createFakeS3({ deleteIfMatch: false }))).conditionalDelete).toBe(false);
  });
});
