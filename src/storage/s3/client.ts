/**
 * Signed S3 requests: URL building, SigV4 signing with aws4fetch, the retry
 * rule, and turning a failed response into an FsError. Web-standard fetch
 * only, so it runs on Workers, Deno and Bun.
 *
 * Retry rule: a request that is safe to repeat (GET, HEAD, LIST, and
 * unconditional PUT/DELETE) is sent once more after a network error or a 5xx.
 * A conditional write is never repeated: if the first attempt succeeded but
 * its answer was lost, the repeat would fail its own condition and report a
 * conflict that did not happen.
 */
import { AwsClient } from "aws4fetch";
import { FsError, type FsErrorCode } from "../errors.ts";
import type { ResolvedS3Config } from "./config.ts";
import { encodeKey, encodeQuery } from "./keys.ts";
import { parseS3Error } from "./xml.ts";

/** One request to the bucket. */
export interface S3Request {
  readonly method: "GET" | "HEAD" | "PUT" | "DELETE";
  /** Object key; absent for a bucket-level request (listing). */
  readonly key?: string;
  readonly query?: ReadonlyArray<readonly [string, string]>;
  readonly headers?: Record<string, string>;
  readonly body?: Uint8Array;
  /** Safe to send again after a network error or 5xx. */
  readonly retry: boolean;
}

/** Details of a failed S3 response, chained as the `cause` of the FsError it becomes. */
export class S3ResponseError extends Error {
  readonly status: number;
  /** The S3 error code from the XML body ("NoSuchKey", "SlowDown", ...), when there was one. */
  readonly s3Code?: string;
  readonly requestId?: string;
  constructor(status: number, body: { code?: string; message?: string; requestId?: string }) {
    super(`HTTP ${status}${body.code ? ` ${body.code}` : ""}${body.message ? `: ${body.message}` : ""}`);
    this.name = "S3ResponseError";
    this.status = status;
    this.s3Code = body.code;
    this.requestId = body.requestId;
  }
}

/** Sends signed requests to one bucket. */
export interface S3Client {
  /** Where the bucket lives, for messages ("http://127.0.0.1:7480 bucket b"). */
  readonly where: string;
  /** Send a request; rejects with FS_IO_ERROR on a network failure (after the retry, when allowed). */
  send(request: S3Request): Promise<Response>;
  /** Turn an unexpected response into an FsError (reads and discards its body). */
  failure(response: Response, operation: string, path: string): Promise<FsError>;
  /** Read a successful response's body; a body that breaks off is FS_IO_ERROR, not a bare TypeError. */
  bytes(response: Response, operation: string, path: string): Promise<Uint8Array>;
}

const RETRY_DELAY_MS = 50;

function codeForStatus(status: number): FsErrorCode {
  if (status === 403) return "FS_ACCESS_DENIED";
  if (status === 404) return "FS_NOT_FOUND";
  return "FS_IO_ERROR";
}

/** Build the client for a resolved config. */
export function createS3Client(config: ResolvedS3Config): S3Client {
  const aws = new AwsClient({
    accessKeyId: config.accessKeyId,
    secretAccessKey: config.secretAccessKey,
    sessionToken: config.sessionToken,
    service: "s3",
    region: config.region,
    retries: 0,
  });
  const base = config.endpoint.href.replace(/\/+$/, "");
  const where = `${base} bucket ${config.bucket}`;
  const bucketBase = config.pathStyle
    ? `${base}/${encodeURIComponent(config.bucket)}`
    : `${config.endpoint.protocol}//${config.bucket}.${config.endpoint.host}${config.endpoint.pathname.replace(/\/+$/, "")}`;

  function urlOf(request: S3Request): string {
    const path = request.key === undefined ? (config.pathStyle ? "" : "/") : `/${encodeKey(request.key)}`;
    const query = request.query && request.query.length > 0 ? `?${encodeQuery(request.query)}` : "";
    return `${bucketBase}${path}${query}`;
  }

  async function attempt(request: S3Request): Promise<Response> {
    const headers: Record<string, string> = { ...request.headers };
    if (request.body) headers["content-type"] = "application/octet-stream";
    const signed = await aws.sign(urlOf(request), {
      method: request.method,
      headers,
      // The body is sent as given; callers hand over bytes they no longer change.
      body: request.body as BodyInit | undefined,
    });
    return config.fetch(signed);
  }

  async function send(request: S3Request): Promise<Response> {
    try {
      const response = await attempt(request);
      if (response.status < 500 || !request.retry) return response;
      await response.body?.cancel();
    } catch (error) {
      if (!request.retry) throw networkError(request, error);
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS * (1 + Math.random())));
    try {
      return await attempt(request);
    } catch (error) {
      throw networkError(request, error);
    }
  }

  function networkError(request: S3Request, error: unknown): FsError {
    const reason = error instanceof Error ? error.message : String(error);
    const tries = request.retry ? " (after one retry)" : "";
    return new FsError("FS_IO_ERROR", `s3 ${request.method} ${request.key ?? "(bucket)"} at ${where}: network error${tries}: ${reason}`, {
      cause: error,
    });
  }

  async function failure(response: Response, operation: string, path: string): Promise<FsError> {
    const text = response.status === 204 || response.body === null ? "" : await response.text().catch(() => "");
    const cause = new S3ResponseError(response.status, parseS3Error(text));
    // A missing bucket is a configuration fault, not a missing file: report it as I/O.
    const code = cause.s3Code === "NoSuchBucket" ? "FS_IO_ERROR" : codeForStatus(response.status);
    return new FsError(code, `s3 ${operation} ${path} at ${where}: ${cause.message}`, { cause, path });
  }

  async function bytes(response: Response, operation: string, path: string): Promise<Uint8Array> {
    try {
      return new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new FsError("FS_IO_ERROR", `s3 ${operation} ${path} at ${where}: the response body broke off: ${reason}`, {
        cause: error,
        path,
      });
    }
  }

  return { where, send, failure, bytes };
}
