/**
 * The R2 provider's writes: conditional puts that R2 enforces atomically
 * (`ifVersion` as `etagMatches`, `ifAbsent` as `etagDoesNotMatch: "*"`),
 * and the directory / below-a-file checks an unconditional or create-only
 * put makes first (see ./provider.ts for what is and is not atomic).
 *
 * No `node:` imports: this runs inside workerd.
 */
import { FsError } from "../errors.ts";
import type { WriteCondition, WriteResult } from "../types.ts";
import { assertFileSlot, type R2Workspace } from "./objects.ts";

/**
 * ETags R2 mints are hex (`<hex>-<parts>` after a multipart upload). Anything
 * else can never match, and must not reach `etagMatches`: "*" there would
 * match any object, and a comma list any of several.
 */
const ETAG_SHAPE = /^[0-9A-Za-z-]{1,128}$/;

/** Put `bytes` at `key` (the key of `path`) under `condition`. */
export async function putObject(ws: R2Workspace, path: string, key: string, bytes: Uint8Array, condition: WriteCondition): Promise<WriteResult> {
  const { bucket } = ws;
  switch (condition.kind) {
    case "ifVersion": {
      if (!ETAG_SHAPE.test(condition.version)) {
        throw new FsError("FS_STALE_VERSION", `version mismatch: ${path} (not a version of this store)`, { path });
      }
      const written = await bucket.put(key, bytes, { onlyIf: { etagMatches: condition.version } });
      if (!written) throw new FsError("FS_STALE_VERSION", `version mismatch: ${path}`, { path });
      return { version: written.etag, created: false };
    }
    case "ifAbsent": {
      await assertFileSlot(ws, path);
      const written = await bucket.put(key, bytes, { onlyIf: { etagDoesNotMatch: "*" } });
      if (!written) throw new FsError("FS_ALREADY_EXISTS", `already exists: ${path}`, { path });
      return { version: written.etag, created: true };
    }
    default: {
      const [existing] = await Promise.all([bucket.head(key), assertFileSlot(ws, path)]);
      const written = await bucket.put(key, bytes);
      if (!written) throw new FsError("FS_IO_ERROR", `R2 put returned nothing: ${path}`, { path });
      return { version: written.etag, created: existing === null };
    }
  }
}
