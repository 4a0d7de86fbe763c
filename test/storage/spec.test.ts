/** Storage specs (pure) and the registry that opens them. */
import { describe, expect, test } from "bun:test";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { NEUTRAL_PROVIDERS, openStorage, StorageOpenError, type StorageRegistry } from "../../src/storage/registry.ts";
import { createFakeR2 } from "../helpers/worker-fake-r2.ts";
import { formatStorageSpec, parseStorageSpec, type StorageSpec } from "../../src/storage/spec.ts";

describe("parseStorageSpec", () => {
  const accepted: Array<[string, StorageSpec]> = [
    [".", { kind: "local", dir: "." }],
    ["/srv/work", { kind: "local", dir: "/srv/work" }],
    ["C:\\work", { kind: "local", dir: "C:\\work" }],
    ["memory:", { kind: "memory" }],
    ["memory:./seed", { kind: "memory", seed: "./seed" }],
    ["s3://bucket", { kind: "s3", bucket: "bucket", prefix: "" }],
    ["s3://bucket/", { kind: "s3", bucket: "bucket", prefix: "" }],
    ["s3://bucket/team/ws1/", { kind: "s3", bucket: "bucket", prefix: "team/ws1" }],
    ["r2:", { kind: "r2", prefix: "" }],
    ["r2:ws1", { kind: "r2", prefix: "ws1" }],
  ];
  for (const [text, spec] of accepted) {
    test(`${text} -> ${spec.kind}`, () => {
      expect(parseStorageSpec(text)).toEqual(spec);
    });
  }

  const refused: Array<[string, RegExp]> = [
    ["", /empty/],
    ["s3://", /needs a bucket name/],
    ["s3:///prefix", /needs a bucket name/],
    ["s3:/bucket", /unknown storage scheme s3:/],
    ["gs://bucket", /unknown storage scheme gs:/],
    ["s3://bucket/../x", /not a plain key prefix/],
  ];
  for (const [text, reason] of refused) {
    test(`${JSON.stringify(text)} is refused with INVALID_ARGUMENT`, () => {
      let error: unknown;
      try {
        parseStorageSpec(text);
      } catch (e) {
        error = e;
      }
      expect(error).toMatchObject({ code: "INVALID_ARGUMENT" });
      expect((error as Error).message).toMatch(reason);
    });
  }

  test("formatStorageSpec is the inverse on canonical texts", () => {
    for (const text of ["/srv/w", "memory:", "memory:/seed", "s3://b", "s3://b/p/q", "r2:", "r2:ws"]) {
      expect(formatStorageSpec(parseStorageSpec(text))).toBe(text);
    }
  });
});

describe("openStorage", () => {
  test("a kind the entry does not offer is refused in one line naming what it offers", async () => {
    const error = await openStorage({ memory: NEUTRAL_PROVIDERS.memory }, "/srv/dir", { env: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageOpenError);
    expect((error as Error).message).toBe("storage /srv/dir: local storage is not available here (this entry offers memory)");
  });

  test("memory: is an empty guarded sandbox; memory:DIR copies every file of DIR through the local entry", async () => {
    const empty = await openStorage(NEUTRAL_PROVIDERS, "memory:", { env: {} });
    expect(empty.kind).toBe("memory");
    expect((await empty.storage.list("")).entries).toEqual([]);
    await expect(empty.storage.read("../x")).rejects.toMatchObject({ code: "FS_INVALID_PATH" });

    const source = createMemoryStorage();
    await source.write("a.txt", new TextEncoder().encode("A"));
    await source.write("deep/b.txt", new TextEncoder().encode("B"));
    const registry: StorageRegistry = {
      ...NEUTRAL_PROVIDERS,
      local: { kind: "local", open: async (spec) => ({ kind: "local", storage: source, name: `/real${spec.dir}`, where: spec.dir }) },
    };
    const seeded = await openStorage(registry, "memory:/seed", { env: {} });
    expect(seeded.name).toBe("memory:/real/seed");
    expect(new TextDecoder().decode((await seeded.storage.read("deep/b.txt")).bytes)).toBe("B");
    await seeded.storage.write("a.txt", new TextEncoder().encode("changed"));
    expect(new TextDecoder().decode((await source.read("a.txt")).bytes)).toBe("A");
  });

  test("s3:// without keys names the variables to set", async () => {
    const error = await openStorage(NEUTRAL_PROVIDERS, "s3://b", { env: {} }).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      "storage s3://b: S3 config: no credentials for s3://b: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY)",
    );
  });

  test("r2:PREFIX opens the Worker's binding at PREFIX/ after the probe; without a binding it is refused", async () => {
    const bucket = createFakeR2();
    const opened = await openStorage(NEUTRAL_PROVIDERS, "r2:ws1", { env: {}, r2: bucket });
    expect([opened.kind, opened.name]).toEqual(["r2", "r2:ws1"]);
    await opened.storage.write("a.txt", new TextEncoder().encode("A"));
    expect(await bucket.head("ws1/a.txt")).not.toBeNull();
    const error = await openStorage(NEUTRAL_PROVIDERS, "r2:", { env: {} }).catch((e: unknown) => e);
    expect((error as Error).message).toBe("storage r2:: r2: needs the Worker's R2 binding");
  });
});
