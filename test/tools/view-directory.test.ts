import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalStorage } from "../../src/storage/local/mod.ts";
import { createMemoryStorage } from "../../src/storage/mod.ts";
import type { Storage } from "../../src/storage/types.ts";
import type { ToolContext } from "../../src/tools/types.ts";
import { MAX_LIST_ENTRIES } from "../../src/tools/view/directory.ts";
import { makeContext, seed } from "../helpers/tool-context.ts";
import { view } from "../helpers/tool-view.ts";

const BINARY = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 13]);

describe("view: directory listing (memory storage)", () => {
  test("lists entries in tree order with sizes, line counts, empty, binary and not-UTF-8 marks", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, {
      "a.txt": "one\n",
      "a-b.txt": "x\ny\nz",
      "a/x.txt": "1\n2\n",
      "b/empty.txt": "",
      "logo.png": BINARY,
      "latin1.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]),
    });
    expect((await view(ctx, { path: "." })).text).toBe(
      ["[./: 2 directories, 4 files]", "a/", "a-b.txt  5 B, 3 lines", "a.txt  4 B, 1 line", "b/", "latin1.txt  5 B, not UTF-8", "logo.png  8 B, binary"].join(
        "\n",
      ),
    );
    expect((await view(ctx, { path: ".", depth: 2 })).text).toBe(
      [
        "[./: 2 directories, 6 files (depth 2)]",
        "a/",
        "a/x.txt  4 B, 2 lines",
        "a-b.txt  5 B, 3 lines",
        "a.txt  4 B, 1 line",
        "b/",
        "b/empty.txt  0 B, empty",
        "latin1.txt  5 B, not UTF-8",
        "logo.png  8 B, binary",
      ].join("\n"),
    );
  });

  test("a subdirectory lists workspace-relative paths, so each can be viewed as written", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "src/lib/util.ts": "export {};\n", "src/main.ts": "main();\n" });
    const out = await view(ctx, { path: "src" });
    expect(out.text).toBe(["[src/: 1 directory, 1 file]", "src/lib/", "src/main.ts  8 B, 1 line"].join("\n"));
    expect((await view(ctx, { path: "src/main.ts" })).text.split("\n")[0]).toBe("[src/main.ts: 1 line]");
  });

  test("hidden entries are left out and counted unless hidden: true", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { ".env": "A=1\n", ".config/x.json": "{}\n", "visible.txt": "v\n" });
    expect((await view(ctx, { path: "." })).text).toBe(["[./: 1 file]", '[not shown: 2 hidden (add "hidden": true)]', "visible.txt  2 B, 1 line"].join("\n"));
    expect((await view(ctx, { path: ".", hidden: true })).text).toBe(
      ["[./: 1 directory, 2 files]", ".config/", ".env  4 B, 1 line", "visible.txt  2 B, 1 line"].join("\n"),
    );
    // Naming a hidden directory lists it: hiding is about entries below the path.
    expect((await view(ctx, { path: ".config" })).text).toBe(["[.config/: 1 file]", ".config/x.json  3 B, 1 line"].join("\n"));
  });

  test("an empty listing says whether anything was left out", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "d/.hidden": "h\n" });
    expect((await view(ctx, { path: "d" })).text).toBe(["[d/: nothing to show]", '[not shown: 1 hidden (add "hidden": true)]'].join("\n"));
  });

  test("a pattern filters by glob (no slash: names at any depth) and implies walking subdirectories", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, {
      "README.md": "# r\n",
      "src/a.ts": "a\n",
      "src/deep/er/b.ts": "b\n",
      "src/c.tsx": "c\n",
      "test/a.test.ts": "t\n",
    });
    expect((await view(ctx, { path: ".", pattern: "*.ts" })).text).toBe(
      ['[./: 3 files match "*.ts" (depth 20)]', "src/a.ts  2 B, 1 line", "src/deep/er/b.ts  2 B, 1 line", "test/a.test.ts  2 B, 1 line"].join("\n"),
    );
    expect((await view(ctx, { path: ".", pattern: "src/**/*.{ts,tsx}" })).text).toBe(
      ['[./: 3 files match "src/**/*.{ts,tsx}" (depth 20)]', "src/a.ts  2 B, 1 line", "src/c.tsx  2 B, 1 line", "src/deep/er/b.ts  2 B, 1 line"].join("\n"),
    );
    // Relative to the listed directory works too.
    expect((await view(ctx, { path: "src", pattern: "deep/**" })).text).toBe(
      ['[src/: 2 directories, 1 file match "deep/**" (depth 20)]', "src/deep/", "src/deep/er/", "src/deep/er/b.ts  2 B, 1 line"].join("\n"),
    );
    expect((await view(ctx, { path: ".", pattern: "*.ts", depth: 2 })).text).toBe(
      ['[./: 2 files match "*.ts" (depth 2)]', "src/a.ts  2 B, 1 line", "test/a.test.ts  2 B, 1 line"].join("\n"),
    );
    expect((await view(ctx, { path: ".", pattern: "*.ts", depth: 1 })).text).toBe('[./: nothing matches "*.ts"]');
    expect((await view(ctx, { path: ".", pattern: "*.py" })).text).toBe('[./: nothing matches "*.py" (depth 20)]');
  });

  test("a malformed glob is INVALID_ARGUMENT showing the right form", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "a.ts": "a\n" });
    const out = await view(ctx, { path: ".", pattern: "*.{ts,tsx" });
    expect(out.result.code).toBe("INVALID_ARGUMENT");
    expect(out.text).toBe('pattern has a "{" without its closing "}"; alternatives look like "*.{ts,tsx}"');
  });

  test("a glob that would backtrack for seconds in a JS RegExp matches in linear time", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { [`dir/${"a".repeat(200)}`]: "x\n" });
    const out = await view(ctx, { path: ".", pattern: "*a*a*a*a*a*a*a*a*a*a*b" });
    expect(out.text).toBe('[./: nothing matches "*a*a*a*a*a*a*a*a*a*a*b" (depth 20)]');
  });

  test("node_modules and .git are listed but never walked unless named as the path", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "node_modules/pkg/index.js": "x\n", ".git/HEAD": "ref\n", "src/a.ts": "a\n" });
    expect((await view(ctx, { path: ".", depth: 3, hidden: true })).text).toBe(
      [
        "[./: 3 directories, 1 file (depth 3)]",
        ".git/  (not walked; view it by path to list it)",
        "node_modules/  (not walked; view it by path to list it)",
        "src/",
        "src/a.ts  2 B, 1 line",
      ].join("\n"),
    );
    expect((await view(ctx, { path: "node_modules", depth: 2 })).text).toBe(
      ["[node_modules/: 1 directory, 1 file (depth 2)]", "node_modules/pkg/", "node_modules/pkg/index.js  2 B, 1 line"].join("\n"),
    );
  });

  test("a listing is bounded: it says how many entries were left out and how to narrow it", async () => {
    const ctx = makeContext();
    const files: Record<string, string> = {};
    for (let i = 0; i < MAX_LIST_ENTRIES + 100; i++) files[`many/f${String(i).padStart(4, "0")}.txt`] = "x\n";
    files["many/sub/inner.txt"] = "y\n";
    await seed(ctx.storage, files);
    const out = await view(ctx, { path: "many" });
    const lines = out.text.split("\n");
    expect(lines[0]).toBe(`[many/: 1 directory, ${MAX_LIST_ENTRIES + 100} files]`);
    expect(lines.filter((l) => l.startsWith("many/"))).toHaveLength(MAX_LIST_ENTRIES);
    expect(lines.at(-1)).toBe(`[cut: showing ${MAX_LIST_ENTRIES} of 601 entries, 101 not shown. Narrow it with a "pattern" such as "**/*.ts"]`);
  });

  test("the output byte limit also bounds a listing", async () => {
    const ctx = makeContext({ limits: { maxOutputBytes: 2048 } });
    const files: Record<string, string> = {};
    for (let i = 0; i < 100; i++) files[`d/sub${i % 2}/file-with-a-longish-name-${String(i).padStart(3, "0")}.txt`] = "x\n";
    await seed(ctx.storage, files);
    const out = await view(ctx, { path: "d", depth: 2 });
    expect(new TextEncoder().encode(out.text).length).toBeLessThanOrEqual(2048);
    const shown = out.text.split("\n").filter((l) => l.startsWith("d/")).length;
    expect(out.text.split("\n").at(-1)).toBe(
      `[cut: showing ${shown} of 102 entries, ${102 - shown} not shown. Narrow it with one subdirectory (view {"path": "d/sub0"}), or a smaller "depth", or a "pattern" such as "**/*.ts"]`,
    );
  });

  test("files over 1 MiB are not read to count lines, and the listing says so", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "big.txt": "x\n".repeat(600 * 1024), "small.txt": "s\n" });
    expect((await view(ctx, { path: "." })).text).toBe(
      ["[./: 2 files]", "big.txt  1.2 MiB", "small.txt  2 B, 1 line", "[line counts left out for 1 file over 1.0 MiB or past the reading budget]"].join("\n"),
    );
  });

  test("arguments that select lines are named as ignored for a directory", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "d/a.txt": "a\n" });
    expect((await view(ctx, { path: "d", start: 1, end: 5 })).text).toBe(
      ["[d/: 1 file]", '[note: ignored "start", "end": they select lines of a file, and this path is a directory]', "d/a.txt  2 B, 1 line"].join("\n"),
    );
  });

  test("listing a directory records no observation", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "d/a.txt": "a\n" });
    await view(ctx, { path: "d" });
    expect(await ctx.observations.get(ctx.caller.session, "d")).toBeUndefined();
    expect(await ctx.observations.get(ctx.caller.session, "d/a.txt")).toBeUndefined();
  });
});

describe("view: .gitignore (local storage on a temp dir)", () => {
  let root: string;
  let ctx: ToolContext;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "toolwarden-view-"));
    ctx = makeContext({ storage: await createLocalStorage(root) });
    await seed(ctx.storage, {
      ".gitignore": "dist/\n*.log\n!keep.log\n*.tmp\n/rootonly.txt\n",
      "rootonly.txt": "r\n",
      "src/rootonly.txt": "not anchored here\n",
      "src/.gitignore": "generated/\n!important.tmp\n",
      "src/app.ts": "app\n",
      "src/debug.log": "log\n",
      "src/keep.log": "keep\n",
      "src/scratch.tmp": "tmp\n",
      "src/important.tmp": "tmp\n",
      "src/generated/x.ts": "gen\n",
      "src/lib/util.ts": "util\n",
      "dist/out.js": "out\n",
      "docs/README.md": "# docs\n",
    });
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  test("root and nested .gitignore rules apply, deeper files overriding shallower ones", async () => {
    expect((await view(ctx, { path: ".", depth: 3 })).text).toBe(
      [
        "[./: 3 directories, 6 files (depth 3)]",
        '[not shown: 2 hidden (add "hidden": true), 5 gitignored (add "gitignore": false)]',
        "docs/",
        "docs/README.md  7 B, 1 line",
        "src/",
        "src/app.ts  4 B, 1 line",
        "src/important.tmp  4 B, 1 line",
        "src/keep.log  5 B, 1 line",
        "src/lib/",
        "src/lib/util.ts  5 B, 1 line",
        "src/rootonly.txt  18 B, 1 line",
      ].join("\n"),
    );
  });

  test("rules from directories above the listed one still apply", async () => {
    expect((await view(ctx, { path: "src" })).text).toBe(
      [
        "[src/: 1 directory, 4 files]",
        '[not shown: 1 hidden (add "hidden": true), 3 gitignored (add "gitignore": false)]',
        "src/app.ts  4 B, 1 line",
        "src/important.tmp  4 B, 1 line",
        "src/keep.log  5 B, 1 line",
        "src/lib/",
        "src/rootonly.txt  18 B, 1 line",
      ].join("\n"),
    );
  });

  test("gitignore: false shows everything the rules left out", async () => {
    const out = await view(ctx, { path: "src", gitignore: false });
    expect(out.text).toBe(
      [
        "[src/: 2 directories, 6 files]",
        '[not shown: 1 hidden (add "hidden": true)]',
        "src/app.ts  4 B, 1 line",
        "src/debug.log  4 B, 1 line",
        "src/generated/",
        "src/important.tmp  4 B, 1 line",
        "src/keep.log  5 B, 1 line",
        "src/lib/",
        "src/rootonly.txt  18 B, 1 line",
        "src/scratch.tmp  4 B, 1 line",
      ].join("\n"),
    );
  });

  test("naming an ignored directory lists it", async () => {
    expect((await view(ctx, { path: "dist" })).text).toBe(["[dist/: 1 file]", "dist/out.js  4 B, 1 line"].join("\n"));
  });

  test("hidden: true shows the .gitignore files themselves", async () => {
    const out = await view(ctx, { path: ".", hidden: true });
    expect(out.text.split("\n").slice(0, 3)).toEqual([
      "[./: 2 directories, 1 file]",
      '[not shown: 2 gitignored (add "gitignore": false)]',
      ".gitignore  42 B, 5 lines",
    ]);
  });
});

describe("view: storage failures", () => {
  test("a storage error while listing becomes a coded result, never a throw", async () => {
    const ctx = makeContext();
    await seed(ctx.storage, { "d/a.txt": "a\n" });
    const failing = {
      ...ctx,
      storage: {
        ...ctx.storage,
        list: async () => {
          throw Object.assign(new Error("backend unavailable"), { code: "FS_IO_ERROR" });
        },
      },
    };
    const out = await view(failing, { path: "d" });
    expect(out.result.code).toBe("FS_IO_ERROR");
    expect(out.text).toBe("Storage error on `d`. [backend unavailable] The storage failed; retrying the same call once is safe — nothing was changed.");
  });
});

describe("view: names no path may use, from any provider", () => {
  test("a key another client wrote with a bidi override is listed escaped, never raw, and never read", async () => {
    const inner = createMemoryStorage();
    await inner.write("ok.txt", new TextEncoder().encode("x\n"));
    // A bucket key written by another client: the provider lists it as it is.
    const raw: Storage = {
      ...inner,
      async list(path, options) {
        const listed = await inner.list(path, options);
        const extra = { path: "evil\u202Etxt.js", name: "evil\u202Etxt.js", kind: "file" as const, size: 3 };
        return { ...listed, entries: [extra, ...listed.entries] };
      },
    };
    const ctx = makeContext({ storage: raw });
    const text = (await view(ctx, { path: "." })).text;
    expect(text).toContain("evil\\u{202e}txt.js  3 B, name has characters no path may use");
    expect(text).not.toContain("\u202E");
  });
});
