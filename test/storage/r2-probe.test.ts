/** The R2 start-up probe refuses a bucket that ignores or reverses conditional puts, and leaves no key behind. */
import { describe, expect, test } from "bun:test";
import { probeR2Conditions, R2ConditionsIgnoredError } from "../../src/storage/r2/mod.ts";
import { createFakeR2 } from "../helpers/worker-fake-r2.ts";

describe("probeR2Conditions", () => {
  test("passes on a bucket that enforces onlyIf, and deletes its sentinel", async () => {
    const bucket = createFakeR2();
    await probeR2Conditions(bucket);
    expect((await bucket.list()).objects).toEqual([]);
  });

  const broken: Array<["ignore" | "reversed", RegExp]> = [
    ["ignore", /create-if-absent put .* overwrote an existing key/],
    ["reversed", /create-if-absent put .* of a new key was refused/],
  ];
  for (const [mode, reason] of broken) {
    test(`refuses a bucket that treats conditions as "${mode}", naming the broken rule`, async () => {
      const bucket = createFakeR2(mode);
      const error = await probeR2Conditions(bucket).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(R2ConditionsIgnoredError);
      expect(error).toMatchObject({ code: "FS_IO_ERROR" });
      expect((error as Error).message).toMatch(reason);
      expect((await bucket.list()).objects).toEqual([]);
    });
  }

  test("refuses a bucket whose compare-and-swap ignores the ETag", async () => {
    const bucket = createFakeR2();
    const put = bucket.put.bind(bucket);
    // Enforces create-if-absent but applies every etagMatches put.
    bucket.put = (key, value, options) => (options?.onlyIf?.etagMatches !== undefined ? put(key, value) : put(key, value, options));
    await expect(probeR2Conditions(bucket)).rejects.toThrow(/compare-and-swap put \(etagMatches\) with a wrong ETag was applied/);
  });

  test("an R2 failure surfaces as itself, not as a refusal", async () => {
    const bucket = createFakeR2();
    bucket.put = () => Promise.reject(new Error("network is down"));
    const error = await probeR2Conditions(bucket).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(R2ConditionsIgnoredError);
    expect((error as Error).message).toBe("network is down");
  });
});
