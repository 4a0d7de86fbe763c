/**
 * The S3 provider's guarded write: a PUT with If-Match / If-None-Match, and
 * what to do when its outcome is unknown.
 *
 * A 412/409 (or, for If-Match, a 404) on the first attempt is the condition
 * failing. A 5xx or a network error leaves the outcome unknown — radosgw
 * answers 500 (ECANCELED) to the losers of a compare-and-swap race — so the
 * object is looked at: our own write id there means our write landed; the
 * precondition still holding means nothing landed and the PUT is sent again;
 * anything else means another writer won.
 */
import { FsError, isFsError } from "../errors.ts";
import type { Version, WriteResult } from "../types.ts";
import { randomHex } from "./keys.ts";
import type { S3Objects } from "./objects.ts";
import { conditionFailed, drain, isOk } from "./response.ts";

/** User metadata carrying a random id per conditional write, to tell whether an unanswered write landed. */
const WRITE_ID_HEADER = "x-amz-meta-toolwarden-write";
/** Sends of one conditional PUT when the server keeps failing with 5xx while nothing changes. */
const CONDITIONAL_ATTEMPTS = 3;

/** The two conditions a PUT can carry. */
export type PutCondition = { kind: "ifAbsent" } | { kind: "ifVersion"; version: Version };

/** Write `bytes` at `path` only if `condition` holds (FS_ALREADY_EXISTS / FS_STALE_VERSION when it does not). */
export async function conditionalPut(objects: S3Objects, path: string, bytes: Uint8Array, condition: PutCondition): Promise<WriteResult> {
  const { client, versionOf } = objects;
  const ifAbsent = condition.kind === "ifAbsent";
  const writeId = randomHex(12);
  const headers = {
    [WRITE_ID_HEADER]: writeId,
    ...(condition.kind === "ifAbsent" ? { "if-none-match": "*" } : { "if-match": condition.version }),
  };
  const conflict = () =>
    ifAbsent ? new FsError("FS_ALREADY_EXISTS", `already exists: ${path}`, { path }) : new FsError("FS_STALE_VERSION", `version mismatch: ${path}`, { path });
  /** One send: the result, or why it did not clearly succeed. */
  const attemptPut = async (attempt: number): Promise<WriteResult | { refused: boolean; trouble: FsError }> => {
    let response: Response;
    try {
      response = await objects.put(path, bytes, headers, false);
    } catch (error) {
      if (!isFsError(error)) throw error;
      return { refused: false, trouble: error };
    }
    if (isOk(response.status)) {
      await drain(response);
      return { version: versionOf(response, "write", path), created: ifAbsent };
    }
    // radosgw answers 412 for If-Match on a missing key, AWS 404: either way the version is gone.
    const refused = conditionFailed(response.status) || (!ifAbsent && response.status === 404);
    if (refused && attempt === 1) {
      await drain(response);
      throw conflict();
    }
    const trouble = await client.failure(response, "write", path);
    if (!refused && response.status < 500) throw trouble;
    return { refused, trouble };
  };
  for (let attempt = 1; ; attempt++) {
    const outcome = await attemptPut(attempt);
    if ("version" in outcome) return outcome;
    const { refused, trouble } = outcome;
    // The outcome is unknown (or a repeat was refused, perhaps by our own first attempt): look.
    const now = await objects.head(path, "write").catch((error: unknown) => {
      throw new FsError("FS_IO_ERROR", `s3 write ${path} at ${client.where}: outcome unknown (${trouble.message}), and checking failed`, {
        cause: error,
        path,
      });
    });
    if (now && now.headers.get(WRITE_ID_HEADER) === writeId) {
      return { version: versionOf(now, "write", path), created: ifAbsent };
    }
    const unchanged = condition.kind === "ifAbsent" ? now === null : now !== null && versionOf(now, "write", path) === condition.version;
    if (refused || !unchanged) throw conflict();
    if (attempt >= CONDITIONAL_ATTEMPTS) throw trouble;
  }
}
