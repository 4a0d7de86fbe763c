/**
 * A directory search on local storage takes the fast way (a walk without a
 * lookup per entry, `scanFile`); the answer must be exactly the one the
 * plain way gives (`list` with sizes, `read`/`readStream`), on the same tree:
 * binaries small and large, invalid UTF-8, BOMs, CRLF, files over the size
 * limit, hidden and gitignored entries, symlinks inside and out, and the
 * observations recorded.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalStorage } from "../../src/storage/local/mod.ts";
import type { Storage } from "../../src/storage/types.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { makeContext } from "../helpers/tool-context.ts";
import { fdsUnder } from "../helpers/fds.ts";
import { view } from "../helpers/tool-view.ts";

/** The same storage without `scanFile`: a search then lists with sizes and reads as it always did. */
function plainWay(storage: Storage): Storage {
  return {
    kind: storage.kind,
    root: storage.root,
    stat: (path) => storage.stat(path),
    read: (path, options) => storage.read(path, options),
    readStream: (path) => storage.readStream!(path),
    write: (path, bytes, condition) => storage.write(path, bytes, condition),
    list: (path, options) => storage.list(path, options),
    delete: (path, options) => storage.delete(path, options),
  };
}

const MiB = 1024 * 1024;
let base: string;
let fast: ToolContext;
let plain: ToolContext;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), "tw-search-local-"));
  const ws = join(base, "ws");
  const outside = join(base, "outside");
  const file = (path: string, content: string | Uint8Array) => {
    mkdirSync(join(ws, path, ".."), { recursive: true });
    writeFileSync(join(ws, path), content);
  };
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.txt"), "needle outside\n");
  file("a.txt", "one needle\ntwo\nneedle three\n");
  file("crlf.txt", "needle\r\nx\r\nneedle\r\n");
  file("bom.txt", "\ufeffneedle with a BOM\n");
  file("utf16.txt", new Uint8Array([0xff, 0xfe, 0x6e, 0, 0x65, 0]));
  file("small.bin", new Uint8Array([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0, 1, 2]));
  // Invalid UTF-8 after the first 8 KiB: refused only when the literal is in it.
  const late = (text: string) => new Uint8Array([...new TextEncoder().encode(`${"x".repeat(9000)}\n${text}\n`), 0xc3, 0x28, 0x0a]);
  file("late-bad-match.txt", late("needle"));
  file("late-bad-nomatch.txt", late("hay"));
  // Large: a binary judged from its head, a text with a match near its end, one over the limit.
  const bigBinary = new Uint8Array(2 * MiB);
  bigBinary.set(new TextEncoder().encode("needle"), MiB);
  file("big/binary.dat", bigBinary);
  file("big/text.txt", `${"filler line\n".repeat(200_000)}the needle at the end\n`);
  file("big/over.txt", `${"needle\n".repeat(600_000)}`);
  file("empty.txt", "");
  file(".hidden/h.txt", "needle hidden\n");
  file(".gitignore", "ignored/\n");
  file("ignored/i.txt", "needle ignored\n");
  file("node_modules/pkg/index.js", "needle in a package\n");
  file("deep/a/b/c/d.txt", "x\nneedle deep\n");
  file("many/needle-every-line.txt", "needle\n".repeat(120));
  symlinkSync("a.txt", join(ws, "link-to-a.txt"));
  symlinkSync("deep", join(ws, "link-to-deep"));
  symlinkSync(join(outside, "secret.txt"), join(ws, "link-out.txt"));
  symlinkSync(outside, join(ws, "link-out-dir"));
  symlinkSync(join(ws, "nowhere"), join(ws, "dangling.txt"));
  const local = await createLocalStorage(ws);
  // A size limit between the big text (2.4 MB) and the one over it (4.2 MB), as 4x maxFileBytes.
  const limits = { maxFileBytes: (3 * MiB) / 4 + 1024, maxOutputBytes: 1024 * 1024 };
  fast = makeContext({ storage: local, limits });
  plain = makeContext({ storage: plainWay(local), limits });
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

const CASES: Record<string, Record<string, unknown>> = {
  defaults: { path: ".", content: "needle" },
  everything: { path: ".", content: "needle", hidden: true, gitignore: false },
  context: { path: ".", content: "needle", context: 1, hidden: true },
  "no match": { path: ".", content: "absent-literal", hidden: true, gitignore: false },
  "case-insensitive": { path: ".", content: "NEEDLE", case_sensitive: false },
  regex: { path: ".", content: "ne+dle$", regex: true, gitignore: false },
  "multi-line literal": { path: ".", content: "needle\nx", hidden: true },
  "pattern and depth": { path: ".", content: "needle", pattern: "*.txt", depth: 2 },
  subdirectory: { path: "deep", content: "needle" },
};

describe("directory search on local storage: the fast way answers as the plain way", () => {
  for (const [name, args] of Object.entries(CASES)) {
    test(name, async () => {
      const a = await view(fast, args);
      const b = await view(plain, args);
      expect(a.text).toBe(b.text);
      expect(a.result.isError).toBe(b.result.isError);
    });
  }

  test("the answer itself: symlinks inside are searched, outside left out, binaries and the too large counted", async () => {
    const { text } = await view(fast, CASES.everything);
    expect(text).toContain("link-to-a.txt (2 matching lines)");
    expect(text).not.toContain("outside");
    expect(text).not.toContain("link-to-deep/");
    expect(text).toContain("big/text.txt (1 matching line)");
    expect(text.split("\n")[0]).toMatch(/^\[search "needle" \(literal, case-sensitive\) in \.\/: \d+ matching lines in \d+ files; \d+ files searched\]$/);
    // utf16.txt, small.bin, big/binary.dat and late-bad-match.txt; big/over.txt.
    expect(text).toContain("[skipped: 4 binary or non-UTF-8 files, 1 file too large to search]");
  });

  test("a search keeps no directory descriptor once it has answered", async () => {
    const ws = join(base, "ws");
    const before = fdsUnder(ws);
    await view(fast, CASES.everything);
    expect(fdsUnder(ws)).toBe(before);
  });

  test("the files whose lines were shown are observed at the same versions", async () => {
    await view(fast, CASES.defaults);
    await view(plain, CASES.defaults);
    for (const path of ["a.txt", "crlf.txt", "big/text.txt", "deep/a/b/c/d.txt"]) {
      const seenFast = await fast.observations.get(fast.caller.session, path);
      expect(seenFast).toBeDefined();
      expect(seenFast).toEqual(await plain.observations.get(plain.caller.session, path));
    }
  });
});
