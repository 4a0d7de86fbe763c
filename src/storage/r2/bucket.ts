/**
 * The slice of the Workers R2 binding the R2 provider uses, declared
 * structurally so that this layer type-checks under Bun, Deno and Workers
 * alike (the real `R2Bucket` from @cloudflare/workers-types is assignable to
 * {@link R2BucketLike}; tsconfig.worker.json proves it by passing `env.FILES`).
 */
import type { BodySource } from "../body-stream.ts";

/** What R2 knows about one object (`R2Object`). */
export interface R2ObjectLike {
  readonly key: string;
  readonly size: number;
  /** Unquoted entity tag; `onlyIf.etagMatches` takes exactly this form. */
  readonly etag: string;
  readonly uploaded: Date;
}

/**
 * An object with its body (`R2ObjectBody`). `size` and `etag` are known
 * before the body is read; a body left unread must be cancelled.
 */
export interface R2ObjectBodyLike extends R2ObjectLike {
  readonly body: BodySource;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** Preconditions of a put (`R2Conditional`). */
export interface R2ConditionalLike {
  readonly etagMatches?: string;
  readonly etagDoesNotMatch?: string;
}

/** Options of a list call (`R2ListOptions`). */
export interface R2ListOptionsLike {
  readonly prefix?: string;
  readonly delimiter?: string;
  readonly cursor?: string;
  readonly limit?: number;
}

/** One page of a listing (`R2Objects`). */
export interface R2ObjectsLike {
  readonly objects: readonly R2ObjectLike[];
  readonly delimitedPrefixes: readonly string[];
  readonly truncated: boolean;
  readonly cursor?: string;
}

/** The R2 bucket binding (`R2Bucket`), reduced to the calls the provider makes. */
export interface R2BucketLike {
  head(key: string): Promise<R2ObjectLike | null>;
  get(key: string): Promise<R2ObjectBodyLike | null>;
  /** Resolves null, writing nothing, when `onlyIf` fails. */
  put(key: string, value: Uint8Array, options?: { onlyIf?: R2ConditionalLike }): Promise<R2ObjectLike | null>;
  delete(key: string): Promise<void>;
  list(options?: R2ListOptionsLike): Promise<R2ObjectsLike>;
}
