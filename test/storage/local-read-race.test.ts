/**
 * The careful read's last proof (src/storage/local/read.ts, openProven): a
 * directory opened from the root, then renamed out of the root by another
 * process before the file is opened through it, must not hand over the
 * outside file put in its place. The race is played deterministically: the
 * move happens inside the open itself.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, openSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDir, probeDirFds } from "../../src/storage/local/dirfd.ts";
import { openProven, READ_FLAGS } from "../../src/storage/local/read.ts";
import { type LocalContext, resolveFile } from "../../src/storage/local/resolve.ts";

let base: string;
let ctx: LocalContext;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "tw-read-race-")));
  mkdirSync(join(base, "ws/p/d"), { recursive: true });
  mkdirSync(join(base, "out"));
  writeFileSync(join(base, "ws/p/d/f.txt"), "inside\n");
  writeFileSync(join(base, "out/secret.txt"), "SECRET\n");
  const realRoot = join(base, "ws");
  ctx = { realRoot, rootFd: probeDirFds(realRoot), fsync: false };
});

afterAll(() => {
  closeDir(ctx.rootFd);
  rmSync(base, { recursive: true, force: true });
});

test("a directory moved out of the root, and an outside file into it, between the directory's open and the file's: retried, never read", () => {
  const resolved = resolveFile(ctx, "p/d/f.txt");
  let opened = "";
  const fd = openProven(ctx, resolved, "p/d/f.txt", (full) => {
    // Another process, at the worst moment: the held directory leaves the root and the secret takes the file's name.
    renameSync(join(base, "ws/p/d"), join(base, "out/moved"));
    renameSync(join(base, "out/moved/f.txt"), join(base, "out/inside.txt"));
    renameSync(join(base, "out/secret.txt"), join(base, "out/moved/f.txt"));
    const held = openSync(full, READ_FLAGS);
    opened = readFileSync(held, "utf8");
    return held;
  });
  // The open did reach the outside file; the proof refused it.
  expect(opened).toBe("SECRET\n");
  expect(fd).toBeNull();
  // Put back: the same call, undisturbed, holds the inside file.
  renameSync(join(base, "out/moved/f.txt"), join(base, "out/secret.txt"));
  renameSync(join(base, "out/inside.txt"), join(base, "out/moved/f.txt"));
  renameSync(join(base, "out/moved"), join(base, "ws/p/d"));
  const again = openProven(ctx, resolveFile(ctx, "p/d/f.txt"), "p/d/f.txt");
  expect(again).not.toBeNull();
  expect(readFileSync(again!, "utf8")).toBe("inside\n");
  closeDir(again!);
});

test("a file moved within the root after it was resolved is not held under the old name", () => {
  writeFileSync(join(base, "ws/p/g.txt"), "g\n");
  const resolved = resolveFile(ctx, "p/g.txt");
  const fd = openProven(ctx, resolved, "p/g.txt", (full) => {
    const held = openSync(full, READ_FLAGS);
    renameSync(join(base, "ws/p/g.txt"), join(base, "ws/p/h.txt"));
    return held;
  });
  expect(fd).toBeNull();
});
