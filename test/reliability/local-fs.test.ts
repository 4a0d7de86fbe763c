/**
 * Local-filesystem hardening against the real server (issue 13, items 5
 * and 6 and the smaller ones): walks never enter symlinked directories; an
 * edit keeps owner and group and clears setuid/setgid; permission errors
 * are reported as such (and an unreadable directory is not shown empty);
 * path names with C1 controls, line separators or bidi overrides are
 * refused, and shown escaped when another process made them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, startServe, type ServeProcess } from "../helpers/cli.ts";
import { callTool, codeOf, textOf, toolResult, type ToolReply } from "../helpers/reliability/http.ts";

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;

function tempBase(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), "tw-localfs-")));
}

async function call(server: ServeProcess, tool: string, args: unknown, session = "s"): Promise<ToolReply> {
  return toolResult(await callTool(server.url, tool, args, { session }));
}

describe("walks list a symlink to a directory but never enter it", () => {
  let base: string;
  let server: ServeProcess;
  beforeAll(async () => {
    base = tempBase();
    const ws = join(base, "ws");
    mkdirSync(join(ws, "src"), { recursive: true });
    writeFileSync(join(ws, "src", "a.ts"), "const needle = 1;\n");
    writeFileSync(join(ws, ".gitignore"), "ignored/\n");
    writeFileSync(join(base, "outside.ts"), "const needle = 'outside';\n");
    symlinkSync(".", join(ws, "l1"));
    symlinkSync(".", join(ws, "l2"));
    symlinkSync("..", join(ws, "up"));
    symlinkSync("..", join(ws, "src", "back"));
    server = await startServe([ws, "--port", "0", "--no-auth", "--quiet"]);
  });
  afterAll(() => {
    server?.kill();
    rmSync(base, { recursive: true, force: true });
  });

  test("a deep listing shows l1 and l2 once each, as symlinks, and nothing through them; up (outside) is left out", async () => {
    const result = await call(server, "view", { path: ".", depth: 20, hidden: true });
    expect(codeOf(result)).toBe("ok");
    const text = textOf(result);
    expect(text).toContain("l1/  (symlink)");
    expect(text).toContain("l2/  (symlink)");
    expect(text).toContain("src/back/  (symlink)");
    expect(text).not.toMatch(/l1\/src|l2\/src|l1\/l1|back\/src|^up/m);
    expect(text.match(/a\.ts/g)?.length).toBe(1);
  });

  test("a search finds the one file once, and never reads through the links", async () => {
    const result = await call(server, "view", { path: ".", content: "needle", hidden: true });
    expect(codeOf(result)).toBe("ok");
    const text = textOf(result);
    expect(text).toContain("1 matching line in 1 file");
    expect(text).not.toContain("outside");
  });

  test("a symlinked directory named as the path is listed (it resolves inside)", async () => {
    const result = await call(server, "view", { path: "l1", depth: 2 });
    expect(codeOf(result)).toBe("ok");
    expect(textOf(result)).toContain("l1/src/a.ts");
  });
});

describe("an edit keeps the owner and group, clears setuid, and replaces the file", () => {
  let base: string;
  let ws: string;
  let server: ServeProcess;
  beforeAll(async () => {
    base = tempBase();
    ws = join(base, "ws");
    mkdirSync(ws);
    server = await startServe([ws, "--port", "0", "--no-auth", "--quiet"]);
  });
  afterAll(() => {
    server?.kill();
    rmSync(base, { recursive: true, force: true });
  });

  test("a file owned by nobody, mode 4755 (2755 too), edited by this server", async () => {
    const cases = [
      { name: "suid.sh", mode: 0o4755, after: 0o755 },
      { name: "sgid.sh", mode: 0o2755, after: 0o755 },
      // setgid without group-execute is not cleared by the kernel either.
      { name: "sgid-noexec", mode: 0o2644, after: 0o2644 },
    ];
    for (const { name, mode, after } of cases) {
      const file = join(ws, name);
      writeFileSync(file, "#!/bin/sh\necho old\n");
      if (isRoot) chownSync(file, NOBODY, NOBODY);
      chmodSync(file, mode);
      linkSync(file, join(ws, `${name}.hardlink`));
      const owner = statSync(file);
      expect(codeOf(await call(server, "view", { path: name }))).toBe("ok");
      const edit = await call(server, "edit", { path: name, old_string: "echo old", new_string: "echo new" });
      expect(codeOf(edit)).toBe("ok");
      const now = statSync(file);
      expect(readFileSync(file, "utf8")).toBe("#!/bin/sh\necho new\n");
      expect({ name, uid: now.uid, gid: now.gid }).toEqual({ name, uid: owner.uid, gid: owner.gid });
      if (isRoot) expect(now.uid).toBe(NOBODY);
      expect({ name, mode: (now.mode & 0o7777).toString(8) }).toEqual({ name, mode: after.toString(8) });
      // The edit replaced the file: the hard link still holds the old content.
      expect(readFileSync(join(ws, `${name}.hardlink`), "utf8")).toBe("#!/bin/sh\necho old\n");
    }
  });
});

describe("permission errors say so; an unreadable directory is not shown empty", () => {
  let base: string;
  let server: ServeProcess;
  beforeAll(async () => {
    base = tempBase();
    const ws = join(base, "ws");
    mkdirSync(join(ws, "locked"), { recursive: true });
    mkdirSync(join(ws, "closed"));
    writeFileSync(join(ws, "locked", "inside.txt"), "x\n");
    writeFileSync(join(ws, "closed", "inside.txt"), "x\n");
    writeFileSync(join(ws, "readonly.txt"), "x\n");
    // The server's own state (audit log, history) in a directory its user may write, outside the workspace.
    const state = join(base, "state");
    mkdirSync(state);
    if (isRoot) {
      chownSync(state, NOBODY, NOBODY);
      chownSync(base, NOBODY, NOBODY);
      for (const p of ["ws", "ws/locked", "ws/closed", "ws/locked/inside.txt", "ws/closed/inside.txt", "ws/readonly.txt"]) {
        chownSync(join(base, p), NOBODY, NOBODY);
      }
    }
    chmodSync(join(ws, "locked"), 0o644); // names readable, nothing about them (no x)
    chmodSync(join(ws, "closed"), 0o000);
    chmodSync(join(ws, "readonly.txt"), 0o000);
    // Root ignores file permissions: the server runs as nobody to meet them.
    const command = isRoot ? ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", process.execPath, CLI, "serve"] : undefined;
    server = await startServe([ws, "--port", "0", "--no-auth", "--quiet"], { command, env: { TOOLWARDEN_STATE: state } });
  });
  afterAll(() => {
    server?.kill();
    chmodSync(join(base, "ws", "locked"), 0o755);
    chmodSync(join(base, "ws", "closed"), 0o755);
    rmSync(base, { recursive: true, force: true });
  });

  function expectPermissionDenied(result: ToolReply, path: string): void {
    expect(codeOf(result)).toBe("FS_ACCESS_DENIED");
    const text = textOf(result);
    expect(text).toContain(`Permission denied on \`${path}\``);
    expect(text).not.toContain("outside what this workspace may touch");
  }

  test("listing a directory without x (or without r) is refused as permission denied", async () => {
    expectPermissionDenied(await call(server, "view", { path: "locked" }), "locked");
    expectPermissionDenied(await call(server, "view", { path: "closed" }), "closed");
  });

  test("a deep listing marks them unreadable instead of showing them empty", async () => {
    const result = await call(server, "view", { path: ".", depth: 3 });
    expect(codeOf(result)).toBe("ok");
    const text = textOf(result);
    expect(text).toContain("locked/  (unreadable: permission denied)");
    expect(text).toContain("closed/  (unreadable: permission denied)");
  });

  test("reading or writing a file the permissions forbid says permission denied", async () => {
    expectPermissionDenied(await call(server, "view", { path: "closed/inside.txt" }), "closed/inside.txt");
    expectPermissionDenied(await call(server, "view", { path: "readonly.txt" }), "readonly.txt");
    expectPermissionDenied(await call(server, "write", { path: "closed/new.txt", content: "x" }), "closed/new.txt");
  });
});

describe("names with C1 controls, line separators or bidi overrides", () => {
  let base: string;
  let ws: string;
  let server: ServeProcess;
  const EVIL = ["bidi\u202Etxt.js", "iso\u2066late", "line\u2028sep", "c1\u0085ctl", "pdi\u2069"];
  beforeAll(async () => {
    base = tempBase();
    ws = join(base, "ws");
    mkdirSync(join(ws, "made"), { recursive: true });
    for (const name of EVIL) writeFileSync(join(ws, "made", name), "x\n");
    writeFileSync(join(ws, "made", "plain.txt"), "x\n");
    server = await startServe([ws, "--port", "0", "--no-auth", "--quiet"]);
  });
  afterAll(() => {
    server?.kill();
    rmSync(base, { recursive: true, force: true });
  });

  test("are refused in paths with FS_INVALID_PATH, and nothing is created", async () => {
    for (const name of EVIL) {
      const write = await call(server, "write", { path: `new-${name}`, content: "x" });
      expect({ name, code: codeOf(write) }).toEqual({ name, code: "FS_INVALID_PATH" });
      const view = await call(server, "view", { path: `made/${name}` });
      expect({ name, code: codeOf(view) }).toEqual({ name, code: "FS_INVALID_PATH" });
    }
    expect(() => statSync(join(ws, `new-${EVIL[0]}`))).toThrow();
  });

  test("existing ones made by another process are listed escaped, never raw", async () => {
    const text = textOf(await call(server, "view", { path: "made" }));
    for (const shown of ["bidi\\u{202e}txt.js", "iso\\u{2066}late", "line\\u{2028}sep", "c1\\u{85}ctl", "pdi\\u{2069}"]) {
      expect(text).toContain(`made/${shown}`);
    }
    expect(text).toContain("made/plain.txt");
    expect(text).not.toMatch(/[\u0080-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
  });
});
