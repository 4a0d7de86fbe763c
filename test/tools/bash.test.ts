import { afterAll, describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPipeline, installLoudFailure, installShellGuard } from "../../src/pipeline/mod.ts";
import { resultText, type ToolResult } from "../../src/result.ts";
import { createBashTool, type BashToolOptions } from "../../src/tools/bash/run.ts";
import { fakeCtx } from "../helpers/pipeline-fakes.ts";

const root = realpathSync(mkdtempSync(join(tmpdir(), "toolwarden-bash-")));
mkdirSync(join(root, "src"));
writeFileSync(join(root, "src", "x.ts"), "export const x = 1;\n");
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The local-mode stack: bash behind the shell guard, with the loud-failure rules. */
function localHost(options: Partial<BashToolOptions> = {}) {
  const p = createPipeline([createBashTool({ root, ...options })]);
  installShellGuard(p, { projectRoot: root });
  installLoudFailure(p);
  return (args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult> => p.call("bash", args, fakeCtx(["exec"], signal));
}

const bash = localHost();
// The interpreter itself: a version manager's `python3` shim can take a second or more per start.
const python = JSON.stringify(execFileSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim());
const lastLine = (text: string): string => text.slice(text.lastIndexOf("\n") + 1);

describe("bash tool, real commands through the pipeline", () => {
  test("a non-zero exit is a result, not a tool error, with the exit code as its last line", async () => {
    const result = await bash({ command: "echo building; exit 3" });
    expect(result.isError).toBe(false);
    expect(resultText(result)).toBe("building\n[exit code: 3]");
  });

  test("success has no status line; no output says so", async () => {
    const result = await bash({ command: `${python} -c 'raise SystemExit(0)'` });
    expect(result).toEqual({ isError: false, content: [{ type: "text", text: "(no output)" }] });
    expect(resultText(await bash({ command: "echo ok" }))).toBe("ok\n");
  });

  test("stderr comes in its own section after stdout", async () => {
    const text = resultText(await bash({ command: "echo out; echo 'warning: careful' >&2" }));
    expect(text).toBe("out\n[stderr]\nwarning: careful\n");
  });

  test("the command runs in the project root", async () => {
    expect(resultText(await bash({ command: "pwd" }))).toBe(`${root}\n`);
  });

  test("a traceback behind `| tail` (exit 0) is blocked by python-traceback-with-success", async () => {
    const result = await bash({ command: `${python} -c 'raise ValueError("bad learning rate")' 2>&1 | tail -n 5` });
    expect(result.isError).toBe(true);
    expect(result.code).toBe("RULE_BLOCKED");
    const [header, original] = result.content.map((b) => b.text);
    expect(header).toStartWith('[loud-failure] Tool "bash" reported success');
    expect(header).toContain("- python-traceback-with-success (error):");
    expect(header).toEndWith("The original tool output follows unchanged.");
    expect(original).toStartWith("Traceback (most recent call last):\n");
    expect(original).toEndWith("ValueError: bad learning rate\n");
    expect(result.content).toHaveLength(2);
  });

  test("the same traceback with its real exit status is reported, not blocked", async () => {
    const result = await bash({ command: `${python} -c 'raise ValueError("boom")'` });
    expect(result.isError).toBe(false);
    const text = resultText(result);
    expect(text).toContain("[stderr]\nTraceback (most recent call last):");
    expect(lastLine(text)).toBe("[exit code: 1]");
  });

  test("a command not found behind `; true` is blocked by shell-command-not-found", async () => {
    const result = await bash({ command: "nonexistent_cmd_xyz; true" });
    expect(result.code).toBe("RULE_BLOCKED");
    expect(result.content[0].text).toContain("- shell-command-not-found (error):");
    expect(result.content[1].text).toMatch(/^\[stderr\]\nbash: (line 1: )?nonexistent_cmd_xyz: command not found\n$/);
  });

  test("a context rule adds a notice and leaves the output alone", async () => {
    const result = await bash({ command: "cp out/report.pdf dist/ 2>&1; echo published" });
    expect(result.isError).toBe(false);
    expect(resultText(result)).toContain("No such file or directory");
    expect(result.notices?.[0].text).toContain("no-such-file-with-success");
  });

  test("a timeout stops the command and says so last", async () => {
    const result = await bash({ command: "echo started; sleep 5", timeout_ms: 300 });
    expect(result.isError).toBe(false);
    expect(resultText(result)).toBe("started\n[timed out after 300ms]");
  });

  test("the configured default timeout applies when the call names none", async () => {
    const quick = localHost({ timeoutMs: 200 });
    expect(lastLine(resultText(await quick({ command: "sleep 5" })))).toBe("[timed out after 200ms]");
  });

  test("huge output is capped, keeping head and tail around an omission note", async () => {
    const capped = localHost({ maxOutputBytes: 4096 });
    const text = resultText(await capped({ command: "echo FIRST; yes line | head -n 200000; echo LAST" }));
    expect(text).toStartWith("FIRST\n");
    expect(text).toEndWith("LAST\n");
    expect(text).toMatch(/\n\[\.\.\. \d+ bytes of output omitted \.\.\.\]\n/);
    expect(new TextEncoder().encode(text).length).toBeLessThan(4096 + 100);
  });

  test("without an explicit cap the call's output limit applies", async () => {
    const text = resultText(await bash({ command: "head -c 1000000 /dev/zero | tr '\\0' a" }));
    expect(text.length).toBeLessThan(256 * 1024 + 100);
    expect(text).toContain("bytes of output omitted");
  });

  test("the configured environment is the commands' environment", async () => {
    const withEnv = localHost({ env: { PATH: process.env.PATH ?? "/usr/bin:/bin", GREETING: "hello there" } });
    expect(resultText(await withEnv({ command: 'echo "$GREETING"; echo "${HOME:-no home}"' }))).toBe("hello there\nno home\n");
  });

  test("aborting the call's signal cancels the command", async () => {
    const controller = new AbortController();
    const pending = bash({ command: "echo waiting; sleep 5" }, controller.signal);
    setTimeout(() => controller.abort(), 300);
    const result = await pending;
    expect(lastLine(resultText(result))).toBe("[cancelled]");
  });

  test("the shell guard refuses reading a project file before anything runs", async () => {
    const result = await bash({ command: "cat src/x.ts > copied.ts" });
    expect(result.code).toBe("SHELL_FORBIDDEN");
    expect(resultText(result)).toContain('view {"path": "src/x.ts"}');
    expect(resultText(await bash({ command: "test -e copied.ts && echo exists || echo absent" }))).toBe("absent\n");
  });

  test("bad arguments are refused before anything runs", async () => {
    for (const args of [
      { command: "   " },
      { command: "echo hi", timeout_ms: 0 },
      { command: "echo hi", timeout_ms: 600_001 },
      { command: "echo hi", timeout_ms: 1.5 },
    ]) {
      expect((await bash(args)).code).toBe("INVALID_ARGUMENT");
    }
    expect(resultText(await bash({ command: "echo hi", timeout_ms: 600_000 }))).toBe("hi\n");
  });

  test("a missing project root is FS_NOT_FOUND, saying the command did not run", async () => {
    const gone = localHost({ root: join(root, "no-such-root") });
    const result = await gone({ command: "echo hi" });
    expect(result.code).toBe("FS_NOT_FOUND");
    expect(resultText(result)).toStartWith("The command did not run");
  });
});

describe("bash tool definition", () => {
  test("is an exec tool that may destroy and reaches the outside world", () => {
    const tool = createBashTool({ root });
    expect(tool.name).toBe("bash");
    expect(tool.scope).toBe("exec");
    expect(tool.annotations).toEqual({ destructiveHint: true, openWorldHint: true });
  });

  test("the description sends file work to the file tools and explains the status lines", () => {
    const { description } = createBashTool({ root, timeoutMs: 30_000 });
    for (const name of ["view", "edit", "batch_edit", "write"]) expect(description).toContain(name);
    for (const marker of ["[exit code: N]", "[timed out after Nms]", "[stderr]", "default 30000 ms"]) expect(description).toContain(marker);
  });

  test("a default timeout that is not a positive integer is refused at construction", () => {
    expect(() => createBashTool({ root, timeoutMs: 0 })).toThrow(RangeError);
    expect(() => createBashTool({ root, timeoutMs: Number.NaN })).toThrow(RangeError);
  });

  test("a configured default above the usual maximum stays callable", async () => {
    const long = createBashTool({ root, timeoutMs: 900_000 });
    const p = createPipeline([long]);
    expect(resultText(await p.call("bash", { command: "echo hi", timeout_ms: 900_000 }, fakeCtx(["exec"])))).toBe("hi\n");
  });
});
