/**
 * Quotas at the storage seam: a write over the quota is refused with nothing
 * written and says usage, limit and what it would add; usage equals what the
 * storage really holds after many concurrent writers, overwrites and deletes.
 */
import { describe, expect, test } from "bun:test";
import { countUsage, createMemoryLedger, quotaStorage } from "../../src/http/hosting/mod.ts";
import { createMemoryStorage } from "../../src/storage/memory/mod.ts";
import { Cond } from "../../src/storage/types.ts";

const bytes = (n: number, fill = 120) => new Uint8Array(n).fill(fill);

async function setup(maxBytes: number, maxFiles: number) {
  const raw = createMemoryStorage();
  const ledger = createMemoryLedger();
  const storage = quotaStorage(raw, {
    workspace: "ws",
    quota: { maxBytes, maxFiles },
    ledger,
    ensureUsage: async () => ledger.init("ws", await countUsage(raw)),
  });
  return { raw, ledger, storage };
}

describe("quota storage", () => {
  test("a write over the byte or file limit is refused, nothing written, with usage, limit and the addition", async () => {
    const { raw, ledger, storage } = await setup(100, 2);
    await storage.write("a", bytes(60), Cond.ifAbsent);
    const over = storage.write("b", bytes(50), Cond.ifAbsent);
    await expect(over).rejects.toMatchObject({ code: "LIMIT_EXCEEDED" });
    await expect(over).rejects.toThrow(
      'Workspace "ws" is over its quota: writing b (50 bytes) would add 50 bytes to the 60 bytes in use, over the limit of 100 bytes. Nothing was written.',
    );
    expect(await raw.stat("b")).toBeNull();
    await storage.write("b", bytes(10), Cond.ifAbsent);
    await expect(storage.write("c", bytes(1), Cond.ifAbsent)).rejects.toThrow("1 file(s) to the 2 files in use, over the limit of 2 files");
    // Shrinking or replacing within the limit always passes.
    const a = await raw.stat("a");
    await storage.write("a", bytes(90), Cond.ifVersion(a!.version!));
    expect(await ledger.usage("ws")).toEqual({ bytes: 100, files: 2 });
    await storage.delete("b");
    expect(await ledger.usage("ws")).toEqual({ bytes: 90, files: 1 });
  });

  test("a write that loses its condition is refunded", async () => {
    const { raw, ledger, storage } = await setup(1000, 10);
    await storage.write("a", bytes(10), Cond.ifAbsent);
    await expect(storage.write("a", bytes(20), Cond.ifAbsent)).rejects.toMatchObject({ code: "FS_ALREADY_EXISTS" });
    await expect(storage.write("a", bytes(20), Cond.ifVersion("nope"))).rejects.toMatchObject({ code: "FS_STALE_VERSION" });
    expect(await ledger.usage("ws")).toEqual(await countUsage(raw));
  });

  test.each([7, 11, 23, 99, 1234] as number[])(
    "usage stays exact under 200 concurrent writers, overwriters and deleters, and never passes the limit (seed %d)",
    async (start) => {
      const { raw, ledger, storage } = await setup(2000, 8);
      let seed = start;
      const random = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
      let peak = 0;
      const ops = Array.from({ length: 200 }, (_, i) => async () => {
        const path = `f${random(12)}`;
        try {
          if (i % 5 === 4) await storage.delete(path);
          else await storage.write(path, bytes(1 + random(400)));
        } catch (error) {
          const code = (error as { code?: string }).code;
          if (!["LIMIT_EXCEEDED", "FS_STALE_VERSION", "FS_ALREADY_EXISTS", "FS_NOT_FOUND"].includes(code ?? "")) throw error;
        }
        const usage = (await ledger.usage("ws")) ?? { bytes: 0, files: 0 };
        peak = Math.max(peak, usage.bytes);
        expect(usage.files).toBeLessThanOrEqual(8);
      });
      await Promise.all(ops.map((op) => op()));
      expect(await ledger.usage("ws")).toEqual(await countUsage(raw));
      expect(peak).toBeLessThanOrEqual(2000);
    },
  );
});
