/**
 * An in-memory stand-in for the R2 binding, for fast unit tests of paging
 * and early stopping. It follows R2's documented list semantics (keys in
 * UTF-8 byte order, `delimiter` rolling keys up into prefixes that count
 * towards `limit`, opaque cursors) and records every call. The real
 * semantics are tested in workerd (test/storage/r2-workerd.test.ts).
 */
import { type FakeBody, recordedBody } from "./fake-body.ts";
import type { R2BucketLike, R2ConditionalLike, R2ListOptionsLike, R2ObjectBodyLike, R2ObjectLike, R2ObjectsLike } from "../../src/storage/r2/mod.ts";

const encoder = new TextEncoder();

/** UTF-8 byte order, which is code point order. */
function compareBytes(a: string, b: string): number {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

/** Chunk size of the fake's object bodies. */
export const FAKE_R2_CHUNK = 64 * 1024;

/** A fake bucket plus the list calls it served and the bodies it handed out. */
export interface FakeR2 extends R2BucketLike {
  readonly listCalls: R2ListOptionsLike[];
  readonly bodies: FakeBody[];
  /** Store bytes at `key` without any check (test set-up). */
  seed(key: string, bytes?: Uint8Array): void;
}

/** How the fake treats `onlyIf`: as R2 does, not at all, or backwards (as an old Miniflare once did). */
export type FakeConditions = "enforce" | "ignore" | "reversed";

/** An empty fake bucket. */
export function createFakeR2(conditions: FakeConditions = "enforce"): FakeR2 {
  const objects = new Map<string, { bytes: Uint8Array; etag: string }>();
  const listCalls: R2ListOptionsLike[] = [];
  const bodies: FakeBody[] = [];
  let counter = 0;

  function bodyOf(key: string, bytes: Uint8Array): ReadableStream<Uint8Array> {
    return recordedBody(bodies, key, bytes, FAKE_R2_CHUNK);
  }

  const meta = (key: string): R2ObjectLike | null => {
    const stored = objects.get(key);
    return stored ? { key, size: stored.bytes.length, etag: stored.etag, uploaded: new Date(0) } : null;
  };
  const store = (key: string, bytes: Uint8Array) => objects.set(key, { bytes: bytes.slice(), etag: `e${++counter}` });

  return {
    listCalls,
    bodies,
    seed: (key, bytes = new Uint8Array()) => void store(key, bytes),
    async head(key) {
      return meta(key);
    },
    async get(key): Promise<R2ObjectBodyLike | null> {
      const found = meta(key);
      const bytes = objects.get(key)?.bytes;
      if (!found || !bytes) return null;
      const body = bodyOf(key, bytes);
      return { ...found, body, arrayBuffer: async () => await new Response(body).arrayBuffer() };
    },
    async put(key, value, options?: { onlyIf?: R2ConditionalLike }) {
      const existing = objects.get(key);
      const only = options?.onlyIf;
      const holds = (condition: boolean) => (conditions === "ignore" ? true : conditions === "reversed" ? !condition : condition);
      if (only?.etagDoesNotMatch === "*" && !holds(!existing)) return null;
      if (only?.etagMatches !== undefined && !holds(existing?.etag === only.etagMatches)) return null;
      store(key, value);
      return meta(key);
    },
    async delete(key) {
      objects.delete(key);
    },
    async list(options: R2ListOptionsLike = {}): Promise<R2ObjectsLike> {
      listCalls.push(options);
      const prefix = options.prefix ?? "";
      const limit = options.limit ?? 1000;
      const keys = [...objects.keys()].filter((k) => k.startsWith(prefix)).sort(compareBytes);
      let i = options.cursor === undefined ? 0 : Number(options.cursor);
      const page: R2ObjectLike[] = [];
      const prefixes: string[] = [];
      while (i < keys.length && page.length + prefixes.length < limit) {
        const key = keys[i];
        const cut = options.delimiter === undefined ? -1 : key.indexOf(options.delimiter, prefix.length);
        if (cut === -1) {
          page.push(meta(key)!);
          i++;
        } else {
          const rolled = key.slice(0, cut + 1);
          prefixes.push(rolled);
          while (i < keys.length && keys[i].startsWith(rolled)) i++;
        }
      }
      const truncated = i < keys.length;
      return truncated
        ? { objects: page, delimitedPrefixes: prefixes, truncated, cursor: String(i) }
        : { objects: page, delimitedPrefixes: prefixes, truncated };
    },
  };
}
