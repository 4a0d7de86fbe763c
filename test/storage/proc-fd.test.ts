import { afterAll, expect, test } from "bun:test";
import { closeSync, mkdtempSync, openSync, realpathSync, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openFilePath, procFdUsable } from "../../src/storage/local/proc-fd.ts";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "tw-proc-fd-")));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The storage relies on this answer being exactly the file's current real path, or not equal to it.
test.skipIf(process.platform !== "linux")("the kernel names an open file by its current real path, never its old one", () => {
  const a = join(dir, "a.txt");
  writeFileSync(a, "x");
  const fd = openSync(a, "r");
  try {
    expect(openFilePath(fd)).toBe(a);
    expect(procFdUsable()).toBe(true);
    const b = join(dir, "b.txt");
    renameSync(a, b);
    expect(openFilePath(fd)).toBe(b);
    unlinkSync(b);
    expect(openFilePath(fd)).not.toBe(b);
  } finally {
    closeSync(fd);
  }
});
