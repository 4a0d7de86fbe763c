/**
 * An in-process S3 stand-in answering the requests the S3 provider makes
 * (path-style PUT / GET / HEAD / DELETE of objects, ListObjectsV2), with
 * switches for the ways real servers differ. It lets the provider's logic
 * run in the ordinary test run; the live radosgw run (scripts/s3-test.sh)
 * is what proves it against a real server.
 *
 * Signatures are not checked. Each request's condition check and its effect
 * happen without an await in between, so conditions are atomic.
 */
import { type FakeBody, recordedBody } from "./fake-body.ts";

/** How the fake behaves where servers differ. */
export interface FakeS3Options {
  /** Status for If-Match on a missing key: AWS 404, radosgw 412. Default 404. */
  readonly ifMatchMissing?: 404 | 412;
  /** Honour If-Match on DELETE (AWS since 2024). Default true. */
  readonly deleteIfMatch?: boolean;
  /** Ignore If-Match and If-None-Match entirely (s3rver and other fakes). Default false. */
  readonly ignoreConditions?: boolean;
  /** Ignore If-Match on PUT while honouring If-None-Match. Default false. */
  readonly ignoreIfMatch?: boolean;
  /** Compare If-Match to the quoted ETag only, refusing the unquoted form. Default false. */
  readonly quotedIfMatchOnly?: boolean;
}

/** A stored object. */
export interface FakeObject {
  readonly bytes: Uint8Array;
  /** Quoted, as S3 sends it. */
  readonly etag: string;
  readonly meta: Record<string, string>;
}

/** Chunk size of the fake's GET bodies. */
export const FAKE_S3_CHUNK = 64 * 1024;

/** What a test sees of a request, and may answer itself. */
export interface FakeRequest {
  readonly method: string;
  readonly key: string | undefined;
  readonly query: URLSearchParams;
  readonly headers: Headers;
}

/**
 * Answer a request instead of the fake (return a Response), fake a network
 * failure (throw), or let the fake handle it (return undefined). `store`
 * runs the fake's own handling, so an interceptor can let a write land and
 * still lose its answer.
 */
export type Interceptor = (request: FakeRequest, store: () => Promise<Response>) => Promise<Response | undefined> | Response | undefined;

/** The fake server. */
export interface FakeS3 {
  readonly fetch: typeof fetch;
  readonly endpoint: string;
  readonly bucket: string;
  readonly objects: Map<string, FakeObject>;
  /** Every request, in order. */
  readonly requests: FakeRequest[];
  /** Every GET body served, in order. */
  readonly bodies: FakeBody[];
  intercept?: Interceptor;
  /** Put an object directly (no request), e.g. keys the provider would never write. */
  seed(key: string, text: string): Promise<void>;
}

const encoder = new TextEncoder();

function compareUtf8(a: string, b: string): number {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&${{ "&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos" }[c]};`);
}

function errorResponse(status: number, code: string): Response {
  return new Response(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message></Message></Error>`, {
    status,
    headers: { "content-type": "application/xml" },
  });
}

async function etagOf(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return `"${Array.from(digest.subarray(0, 16), (b) => b.toString(16).padStart(2, "0")).join("")}"`;
}

/** Start a fake bucket `bucket` at http://fake-s3.test. */
export function createFakeS3(options: FakeS3Options = {}, bucket = "fake-bucket"): FakeS3 {
  const endpoint = "http://fake-s3.test";
  const objects = new Map<string, FakeObject>();
  const requests: FakeRequest[] = [];
  const bodies: FakeBody[] = [];
  const ifMatchMissing = options.ifMatchMissing ?? 404;
  const deleteIfMatch = options.deleteIfMatch ?? true;

  const ifMatchHolds = (header: string, object: FakeObject) =>
    options.quotedIfMatchOnly ? header === object.etag : header === object.etag || `"${header}"` === object.etag;

  function objectHeaders(object: FakeObject): Headers {
    return new Headers({
      etag: object.etag,
      "content-length": String(object.bytes.length),
      "last-modified": new Date(0).toUTCString(),
      ...object.meta,
    });
  }

  function bodyOf(key: string, bytes: Uint8Array): ReadableStream<Uint8Array> {
    return recordedBody(bodies, key, bytes, FAKE_S3_CHUNK);
  }

  async function put(key: string, headers: Headers, body: Uint8Array): Promise<Response> {
    const etag = await etagOf(body);
    // From here on no await: check and store are one step.
    const existing = objects.get(key);
    if (!options.ignoreConditions) {
      if (headers.get("if-none-match") === "*" && existing) return errorResponse(412, "PreconditionFailed");
      const ifMatch = headers.get("if-match");
      if (ifMatch !== null && !options.ignoreIfMatch) {
        if (!existing) return errorResponse(ifMatchMissing, ifMatchMissing === 404 ? "NoSuchKey" : "PreconditionFailed");
        if (!ifMatchHolds(ifMatch, existing)) return errorResponse(412, "PreconditionFailed");
      }
    }
    const meta: Record<string, string> = {};
    for (const [name, value] of headers) if (name.startsWith("x-amz-meta-")) meta[name] = value;
    objects.set(key, { bytes: body.slice(), etag, meta });
    return new Response(null, { status: 200, headers: { etag } });
  }

  function list(query: URLSearchParams): Response {
    const prefix = query.get("prefix") ?? "";
    const delimiter = query.get("delimiter");
    const maxKeys = Number(query.get("max-keys") ?? "1000");
    const after = query.get("continuation-token");
    const contents: string[] = [];
    const prefixes: string[] = [];
    let last: string | undefined;
    let truncated = false;
    const keys = [...objects.keys()].filter((k) => k.startsWith(prefix)).sort(compareUtf8);
    for (const key of keys) {
      const at = delimiter ? key.indexOf(delimiter, prefix.length) : -1;
      const rolled = at !== -1;
      const item = rolled ? key.slice(0, at + (delimiter as string).length) : key;
      if (after !== null && compareUtf8(item, after) <= 0) continue;
      if (item === last) continue;
      if (contents.length + prefixes.length === maxKeys) {
        truncated = true;
        break;
      }
      if (!rolled) {
        const object = objects.get(key) as FakeObject;
        contents.push(`<Contents><Key>${escapeXml(key)}</Key><ETag>${escapeXml(object.etag)}</ETag><Size>${object.bytes.length}</Size></Contents>`);
      } else {
        prefixes.push(`<CommonPrefixes><Prefix>${escapeXml(item)}</Prefix></CommonPrefixes>`);
      }
      last = item;
    }
    const token = truncated && last !== undefined ? `<NextContinuationToken>${escapeXml(last)}</NextContinuationToken>` : "";
    const xml = `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${bucket}</Name><Prefix>${escapeXml(prefix)}</Prefix><IsTruncated>${truncated}</IsTruncated>${contents.join("")}${prefixes.join("")}${token}</ListBucketResult>`;
    return new Response(xml, { status: 200, headers: { "content-type": "application/xml" } });
  }

  async function handle(method: string, key: string | undefined, query: URLSearchParams, headers: Headers, body: Uint8Array): Promise<Response> {
    if (key === undefined) {
      if (method === "GET" && query.get("list-type") === "2") return list(query);
      return errorResponse(400, "InvalidRequest");
    }
    const object = objects.get(key);
    switch (method) {
      case "PUT":
        return put(key, headers, body);
      case "GET":
        if (!object) return errorResponse(404, "NoSuchKey");
        return new Response(bodyOf(key, object.bytes), { status: 200, headers: objectHeaders(object) });
      case "HEAD":
        if (!object) return new Response(null, { status: 404 });
        return new Response(null, { status: 200, headers: objectHeaders(object) });
      case "DELETE": {
        const ifMatch = headers.get("if-match");
        if (deleteIfMatch && !options.ignoreConditions && ifMatch !== null) {
          if (!object) return errorResponse(404, "NoSuchKey");
          if (!ifMatchHolds(ifMatch, object)) return errorResponse(412, "PreconditionFailed");
        }
        objects.delete(key);
        return new Response(null, { status: 204 });
      }
      default:
        return errorResponse(405, "MethodNotAllowed");
    }
  }

  const fake: FakeS3 = {
    endpoint,
    bucket,
    objects,
    requests,
    bodies,
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = input instanceof Request ? input : new Request(input, init);
      const url = new URL(request.url);
      const rest = url.pathname.slice(`/${bucket}`.length);
      const key = rest === "" || rest === "/" ? undefined : rest.slice(1).split("/").map(decodeURIComponent).join("/");
      const body = new Uint8Array(await request.arrayBuffer());
      const seen: FakeRequest = { method: request.method, key, query: url.searchParams, headers: request.headers };
      requests.push(seen);
      const store = () => handle(request.method, key, url.searchParams, request.headers, body);
      const answer = await fake.intercept?.(seen, store);
      return answer ?? store();
    }) as typeof fetch,
    async seed(key: string, text: string) {
      const bytes = encoder.encode(text);
      objects.set(key, { bytes, etag: await etagOf(bytes), meta: {} });
    },
  };
  return fake;
}
