/**
 * The start-up probe for R2: every guarded write rests on R2 enforcing
 * `onlyIf`, and an emulator that ignores it (or, like an old Miniflare,
 * reverses it) would turn each compare-and-swap into a silent overwrite. So
 * before serving, the Worker proves on a sentinel key that a failed condition
 * writes nothing and a correct one writes.
 */
import { FsError } from "../errors.ts";
import type { R2BucketLike } from "./bucket.ts";

/** The bucket does not enforce conditional puts: guarded writes cannot be offered. */
export class R2ConditionsIgnoredError extends FsError {
  constructor(reason: string) {
    super("FS_IO_ERROR", `R2 bucket cannot be used: ${reason}; guarded writes cannot be offered`);
    this.name = "R2ConditionsIgnoredError";
  }
}

const encoder = new TextEncoder();

/**
 * Run the probe on `<prefix>.toolwarden-probe-<uuid>` (deleted afterwards):
 * create-if-absent (must write), create-if-absent again (must not), a
 * compare-and-swap on a wrong ETag (must not), one on the current ETag (must).
 * Five R2 operations. Rejects with {@link R2ConditionsIgnoredError} when the
 * bucket breaks a rule; an R2 failure rejects with R2's own error.
 */
export async function probeR2Conditions(bucket: R2BucketLike, prefix = ""): Promise<void> {
  const key = `${prefix}.toolwarden-probe-${crypto.randomUUID()}`;
  const body = (text: string) => encoder.encode(text);
  try {
    const created = await bucket.put(key, body("1"), { onlyIf: { etagDoesNotMatch: "*" } });
    if (!created) throw new R2ConditionsIgnoredError("a create-if-absent put (etagDoesNotMatch: '*') of a new key was refused");
    if (await bucket.put(key, body("2"), { onlyIf: { etagDoesNotMatch: "*" } })) {
      throw new R2ConditionsIgnoredError("a create-if-absent put (etagDoesNotMatch: '*') overwrote an existing key");
    }
    const wrong = created.etag === "0".repeat(32) ? "1".repeat(32) : "0".repeat(32);
    if (await bucket.put(key, body("3"), { onlyIf: { etagMatches: wrong } })) {
      throw new R2ConditionsIgnoredError("a compare-and-swap put (etagMatches) with a wrong ETag was applied");
    }
    if (!(await bucket.put(key, body("4"), { onlyIf: { etagMatches: created.etag } }))) {
      throw new R2ConditionsIgnoredError("a compare-and-swap put (etagMatches) with the current ETag was refused");
    }
  } finally {
    await bucket.delete(key).catch(() => undefined);
  }
}
