/** `toolwarden call`: one tool call from the shell, as a separate process each time. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { lineId, runCli, tempDir } from "../helpers/cli.ts";

let dir: ReturnType<typeof tempDir>;
let session: string;

beforeEach(() => {
  dir = tempDir();
  session = join(dir.path, "..", `${dir.path.split("/").pop()}-session.json`);
  writeFileSync(join(dir.path, "a.txt"), "hello\nworld\n");
});
afterEach(() => {
  dir.remove();
  rmSync(session, { force: true });
});

describe("call", () => {
  test("view prints exactly the model's text and exits 0", async () => {
    const r = await runCli(["call", "view", '{"path": "a.txt"}', "--root", dir.path]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^\[a\.txt: 2 lines\]\n1:[0-9a-f]{2}\|hello\n2:[0-9a-f]{2}\|world\n$/);
  });

  test("view then edit in two processes share the session through --session-file", async () => {
    const view = await runCli(["call", "view", '{"path": "a.txt"}', "--root", dir.path, "--session-file", session]);
    expect(view.code).toBe(0);
    const edit = await runCli([
      "call",
      "edit",
      JSON.stringify({ path: "a.txt", old_string: "world", new_string: "there" }),
      "--root",
      dir.path,
      "--session-file",
      session,
    ]);
    expect(edit.stderr).toBe("");
    expect(edit.code).toBe(0);
    expect(edit.stdout).toStartWith("Edited `a.txt`");
    expect(readFileSync(join(dir.path, "a.txt"), "utf8")).toBe("hello\nthere\n");
    // The file says which root the observations belong to.
    const saved = JSON.parse(readFileSync(session, "utf8"));
    expect(saved.toolwarden).toBe("session");
    expect(Object.keys(saved.roots[Object.keys(saved.roots)[0]])).toEqual(["a.txt"]);
  });

  test("TOOLWARDEN_SESSION_FILE works like --session-file, and batch_edit takes the ids view printed", async () => {
    const env = { TOOLWARDEN_SESSION_FILE: session };
    const view = await runCli(["call", "view", '{"path": "a.txt"}', "--root", dir.path], { env });
    const id = lineId(view.stdout.trimEnd(), "hello");
    const ops = { path: "a.txt", operations: [{ operation: "replace", start: id, content: "HELLO" }] };
    const edit = await runCli(["call", "batch_edit", JSON.stringify(ops), "--root", dir.path], { env });
    expect(edit.code).toBe(0);
    expect(readFileSync(join(dir.path, "a.txt"), "utf8")).toBe("HELLO\nworld\n");
  });

  test("an edit without an earlier view: the model's text, `code: X` on stderr, a hint, exit 1", async () => {
    const r = await runCli(["call", "edit", JSON.stringify({ path: "a.txt", old_string: "world", new_string: "x" }), "--root", dir.path]);
    expect(r.code).toBe(1);
    expect(r.stdout.length).toBeGreaterThan(20);
    const [code, hint] = r.stderr.split("\n");
    expect(code).toBe("code: FS_NOT_OBSERVED");
    expect(hint).toStartWith("hint: each `toolwarden call` starts a new session");
    expect(readFileSync(join(dir.path, "a.txt"), "utf8")).toBe("hello\nworld\n");
  });

  test("a failing call with a session file gets no hint; the root defaults to the current directory", async () => {
    const r = await runCli(["call", "view", '{"path": "missing.txt"}', "--session-file", session], { cwd: dir.path });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("code: FS_NOT_FOUND\n");
  });

  test("arguments can come from stdin with -", async () => {
    const content = "line with 'quotes' and \"double\" ones\n";
    const r = await runCli(["call", "write", "-", "--root", dir.path], { stdin: JSON.stringify({ path: "new.txt", content }) });
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir.path, "new.txt"), "utf8")).toBe(content);
  });

  test("bad JSON and a missing tool name are usage errors (exit 2)", async () => {
    const bad = await runCli(["call", "view", "{path: a}", "--root", dir.path]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toStartWith("toolwarden: the tool arguments are not valid JSON");
    expect(bad.stderr).toContain("Usage: toolwarden call TOOL [JSON]");
    const none = await runCli(["call"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toStartWith("toolwarden: call needs a TOOL name");
  });

  test("an unknown tool is the pipeline's own answer (exit 1, INVALID_ARGUMENT with a suggestion)", async () => {
    const r = await runCli(["call", "veiw", '{"path": "a.txt"}', "--root", dir.path]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("Did you mean `view`?");
    expect(r.stderr).toBe("code: INVALID_ARGUMENT\n");
  });

  test("bash is there only with --allow-shell, behind the same guard and rules as the server", async () => {
    const without = await runCli(["call", "bash", '{"command": "echo hi"}', "--root", dir.path]);
    expect(without.code).toBe(1);
    const echo = await runCli(["call", "bash", '{"command": "echo hi"}', "--root", dir.path, "--allow-shell"]);
    expect(echo.code).toBe(0);
    expect(echo.stdout).toBe("hi\n");
    const cat = await runCli(["call", "bash", '{"command": "cat a.txt"}', "--root", dir.path, "--allow-shell"]);
    expect(cat.stderr).toBe("code: SHELL_FORBIDDEN\n");
    // A traceback after exit 0 is not passed off as success (built-in loud-failure rule).
    const py = await runCli([
      "call",
      "bash",
      JSON.stringify({ command: "echo 'Traceback (most recent call last):'; echo '  File \"x.py\", line 1'; echo 'ValueError: boom'" }),
      "--root",
      dir.path,
      "--allow-shell",
    ]);
    expect(py.code).toBe(1);
    expect(py.stderr).toBe("code: RULE_BLOCKED\n");
  });

  test("a corrupt session file is refused with one line naming it (exit 2)", async () => {
    writeFileSync(session, "{not json");
    const r = await runCli(["call", "view", '{"path": "a.txt"}', "--root", dir.path, "--session-file", session]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`toolwarden: ${session}: not a toolwarden session file (not JSON); delete it or pass another --session-file\n`);
  });
});
