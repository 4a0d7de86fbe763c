/**
 * The start-up probe: many S3-compatible servers accept `If-None-Match: *`
 * and `If-Match` and then ignore them, which would turn every guarded write
 * into a silent overwrite. Before the provider is handed out, it proves on a
 * sentinel key that this server refuses a failed condition and honours a
 * correct one, and finds out whether DELETE honours If-Match too.
 */
import { FsError, isFsError } from "../errors.ts";
import type { S3Client, S3Request } from "./client.ts";
import { randomHex, versionFromEtag } from "./keys.ts";
import { conditionFailed, drain, isOk } from "./response.ts";

/** What the probe learned. */
export interface ProbeResult {
  /** DELETE with a wrong If-Match was refused; when false, `delete(ifVersion)` is check-then-delete. */
  readonly conditionalDelete: boolean;
}

/** The server does not enforce conditional writes: guarded writes cannot be offered (a setting to change, not a passing fault). */
export class S3ConditionsIgnoredError extends FsError {
  constructor(where: string, reason: string) {
    super("FS_IO_ERROR", `S3 storage at ${where} cannot be used: ${reason}; guarded writes cannot be offered`);
    this.name = "S3ConditionsIgnoredError";
  }
}

const encoder = new TextEncoder();

/**
 * Run the probe on `<prefix>.toolwarden-probe-<random>` (removed again):
 * create-if-absent twice (the second must be refused), If-Match with a
 * wrong ETag (must be refused), If-Match with the current ETag unquoted (must
 * succeed), DELETE with a wrong If-Match (tells `conditionalDelete`).
 * Rejects with FS_IO_ERROR naming the endpoint and the reason when the
 * server cannot offer guarded writes; request failures keep their code.
 */
export async function probeConditionalWrites(client: S3Client, prefix: string): Promise<ProbeResult> {
  const key = `${prefix}.toolwarden-probe-${randomHex(8)}`;
  const refuse = (reason: string) => new S3ConditionsIgnoredError(client.where, reason);
  /** Send one probe step; a network failure names the step. */
  const step = async (name: string, request: Omit<S3Request, "key" | "retry">): Promise<Response> => {
    try {
      return await client.send({ ...request, key, retry: false });
    } catch (error) {
      if (!isFsError(error)) throw error;
      throw new FsError(error.code, `S3 start-up probe (${name}): ${error.message}`, { cause: error });
    }
  };
  const put = (name: string, body: string, headers: Record<string, string>) => step(name, { method: "PUT", body: encoder.encode(body), headers });
  const unexpected = (response: Response, name: string) => client.failure(response, `start-up probe (${name})`, key);

  let created = false;
  let removed = false;
  try {
    const first = await put("first create-if-absent write", "toolwarden probe 1", { "if-none-match": "*" });
    if (!isOk(first.status)) throw await unexpected(first, "first create-if-absent write");
    await drain(first);
    created = true;
    const etag = first.headers.get("etag");
    if (!etag) throw refuse("a PUT answered without an ETag, so versions cannot be tracked");

    const second = await put("second create-if-absent write", "toolwarden probe 2", { "if-none-match": "*" });
    if (isOk(second.status)) {
      await drain(second);
      throw refuse("the second create-if-absent write was accepted, so this server ignores conditional PUT");
    }
    if (!conditionFailed(second.status)) throw await unexpected(second, "second create-if-absent write");
    await drain(second);

    const wrong = await put("write with a wrong If-Match", "toolwarden probe 3", { "if-match": randomHex(16) });
    if (isOk(wrong.status)) {
      await drain(wrong);
      throw refuse("a write with a wrong If-Match ETag was accepted, so this server ignores If-Match");
    }
    if (!conditionFailed(wrong.status)) throw await unexpected(wrong, "write with a wrong If-Match");
    await drain(wrong);

    const right = await put("write with the current If-Match", "toolwarden probe 4", { "if-match": versionFromEtag(etag) });
    if (conditionFailed(right.status)) {
      await drain(right);
      throw refuse("a write with the current ETag (unquoted) in If-Match was refused, so compare-and-swap would always fail");
    }
    if (!isOk(right.status)) throw await unexpected(right, "write with the current If-Match");
    await drain(right);

    const guarded = await step("delete with a wrong If-Match", { method: "DELETE", headers: { "if-match": randomHex(16) } });
    if (isOk(guarded.status)) {
      await drain(guarded);
      removed = true;
      return { conditionalDelete: false };
    }
    if (!conditionFailed(guarded.status)) throw await unexpected(guarded, "delete with a wrong If-Match");
    await drain(guarded);
    return { conditionalDelete: true };
  } finally {
    if (created && !removed) {
      // Best effort: a leftover sentinel is harmless, and the probe's own verdict matters more.
      await client
        .send({ method: "DELETE", key, retry: true })
        .then(drain)
        .catch(() => undefined);
    }
  }
}
