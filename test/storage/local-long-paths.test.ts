/**
 * Paths the system cannot name once the workspace's own directory is put in
 * front: refused up front (FS_INVALID_PATH, how long they may be here, and
 * nothing made on disk), and a tree that deep already on disk never stops
 * the start-up sweep (a hosting server sweeps every workspace when it starts).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { closeSync, constants, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanTempFiles, createLocalStorage } from "../../src/storage/local/mod.ts";
import { Cond } from "../../src/storage/types.ts";

const roots: string[] = [];
afterAll(() => {
  // GNU rm walks a tree deeper than PATH_MAX through descriptors; node's recursive rm does not.
  for (const root of roots) execFileSync("rm", ["-rf", root]);
});

function freshRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "tw-long-paths-"));
  roots.push(root);
  return root;
}

const text = (s: string) => new TextEncoder().encode(s);

describe("local storage and paths past the system's limit", () => {
  test("a write whose path is too long with the root in front is refused, and not one directory is made", async () => {
    const root = freshRoot();
    const storage = await createLocalStorage(root);
    const deep = `${"a/".repeat(2040)}f`; // within a workspace path's 4096 bytes, past the system's with the root
    const write = storage.write(deep, text("x\n"), Cond.ifAbsent);
    await expect(write).rejects.toMatchObject({ code: "FS_INVALID_PATH" });
    await expect(write).rejects.toThrow(
      /invalid path: 4081 bytes, longer than this workspace can hold \(\d+ bytes here: its directory's own path takes \d+ of the system's 4095\); use a shorter path/,
    );
    expect(readdirSync(root)).toEqual([]);
    await expect(storage.read(deep)).rejects.toMatchObject({ code: "FS_INVALID_PATH" });
    await expect(storage.stat(deep)).rejects.toMatchObject({ code: "FS_INVALID_PATH" });
    // A path just within the limit is written.
    const most = 4095 - 32 - Buffer.byteLength(root) - 1;
    const fits = `${"b/".repeat(Math.floor((most - 1) / 2) - 1)}f`;
    expect(fits.length).toBeLessThanOrEqual(most);
    await storage.write(fits, text("fits\n"), Cond.ifAbsent);
    expect(new TextDecoder().decode((await storage.read(fits)).bytes)).toBe("fits\n");
  });

  test("the start-up sweep skips a tree deeper than the system can name, and still removes the temp files it can reach", async () => {
    const root = freshRoot();
    // 2,100 levels, made through descriptors as a write could before the limit was checked.
    let fd = openSync(root, constants.O_RDONLY | constants.O_DIRECTORY);
    for (let i = 0; i < 2100; i++) {
      mkdirSync(`/proc/self/fd/${fd}/d`);
      const next = openSync(`/proc/self/fd/${fd}/d`, constants.O_RDONLY | constants.O_DIRECTORY);
      closeSync(fd);
      fd = next;
    }
    writeFileSync(`/proc/self/fd/${fd}/.deep.txt.tw-abcdefabcdef.tmp`, "left\n");
    closeSync(fd);
    const shallow = join(root, ".note.txt.tw-0123456789ab.tmp");
    writeFileSync(shallow, "left\n");
    expect(await cleanTempFiles(root)).toBeGreaterThanOrEqual(1);
    expect(existsSync(shallow)).toBe(false);
    // And the storage over it opens.
    await createLocalStorage(root);
  });
});
