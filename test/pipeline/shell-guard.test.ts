import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { createPipeline, deny, installShellGuard } from "../../src/pipeline/mod.ts";
import { ok, resultText } from "../../src/result.ts";
import { fakeCtx, fakeTool } from "../helpers/pipeline-fakes.ts";

const ROOT = "/srv/project";

/** Shell-like tools that record the commands they were allowed to run. */
function host() {
  const ran: string[] = [];
  const shell = (name: string) =>
    fakeTool(name, "exec", v.object({ command: v.string() }), async ({ command }) => {
      ran.push(`${name}: ${command}`);
      return ok(`ran ${command}`);
    });
  const p = createPipeline([
    shell("bash"),
    shell("sh_exec"),
    fakeTool("notes", "write", v.object({ command: v.string() }), async ({ command }) => {
      ran.push(`notes: ${command}`);
      return ok("saved");
    }),
    fakeTool("odd_shell", "exec", v.object({ cmd: v.string() }), async ({ cmd }) => {
      ran.push(`odd_shell: ${cmd}`);
      return ok("ran");
    }),
  ]);
  const call = (tool: string, args: Record<string, unknown>) => p.call(tool, args, fakeCtx());
  return { p, ran, call };
}

describe("shell guard in the pipeline", () => {
  test("`cat src/x.ts` is refused with SHELL_FORBIDDEN naming view with a worked example, and does not run", async () => {
    const h = host();
    installShellGuard(h.p, { projectRoot: ROOT });
    const result = await h.call("bash", { command: "cat src/x.ts" });
    expect(result.isError).toBe(true);
    expect(result.code).toBe("SHELL_FORBIDDEN");
    const text = resultText(result);
    expect(text).toStartWith("bash refused `cat src/x.ts`:");
    expect(text).toContain("Read them with the `view` tool instead");
    expect(text).toContain('view {"path": "src/x.ts"}');
    expect(h.ran).toEqual([]);
  });

  test("an edit program is pointed at edit with the equivalent call", async () => {
    const h = host();
    installShellGuard(h.p, { projectRoot: ROOT });
    const result = await h.call("bash", { command: "sed -i 's/foo/bar/g' src/app.ts && npm test" });
    expect(result.code).toBe("SHELL_FORBIDDEN");
    expect(resultText(result)).toContain('edit {"path": "src/app.ts", "old_string": "foo", "new_string": "bar", "replace_all": true}');
    expect(h.ran).toEqual([]);
  });

  test("`npm test` is allowed and runs; so does a filter on a command's output", async () => {
    const h = host();
    installShellGuard(h.p, { projectRoot: ROOT });
    expect(resultText(await h.call("bash", { command: "npm test" }))).toBe("ran npm test");
    expect((await h.call("bash", { command: "make 2>&1 | grep error" })).isError).toBe(false);
    expect(h.ran).toEqual(["bash: npm test", "bash: make 2>&1 | grep error"]);
  });

  test("files outside the project root are not refused; the same file inside it is", async () => {
    const h = host();
    installShellGuard(h.p, { projectRoot: ROOT });
    expect((await h.call("bash", { command: "cat /opt/other/README" })).isError).toBe(false);
    expect((await h.call("bash", { command: `cat ${ROOT}/README` })).code).toBe("SHELL_FORBIDDEN");
  });

  test("only the shell tools are checked, and shellTools names them", async () => {
    const h = host();
    installShellGuard(h.p, { shellTools: ["sh_exec"], projectRoot: ROOT });
    expect((await h.call("sh_exec", { command: "grep -r TODO src" })).code).toBe("SHELL_FORBIDDEN");
    // Not listed: a `command` argument elsewhere is just data.
    expect((await h.call("bash", { command: "grep -r TODO src" })).isError).toBe(false);
    expect((await h.call("notes", { command: "cat src/x.ts" })).isError).toBe(false);
    expect(h.ran).toEqual(["bash: grep -r TODO src", "notes: cat src/x.ts"]);
  });

  test("a shell tool whose arguments carry no command string is refused, not run unchecked", async () => {
    const h = host();
    installShellGuard(h.p, { shellTools: ["odd_shell"] });
    const result = await h.call("odd_shell", { cmd: "cat src/x.ts" });
    expect(result.code).toBe("INTERNAL_ERROR");
    expect(resultText(result)).toContain("no `command` string");
    expect(h.ran).toEqual([]);
  });

  test("a listener that allows without next() cannot skip the guard", async () => {
    const h = host();
    h.p.onPreExecute((_call, _next) => ({ allow: true }), { order: -100 });
    installShellGuard(h.p, { projectRoot: ROOT });
    expect((await h.call("bash", { command: "ls src" })).code).toBe("SHELL_FORBIDDEN");
  });

  test("another guard's denial still stands for an allowed command", async () => {
    const h = host();
    installShellGuard(h.p, { projectRoot: ROOT });
    h.p.onPreExecute((call) => (call.name === "bash" ? deny("no shell on Fridays") : { allow: true }));
    expect(resultText(await h.call("bash", { command: "npm test" }))).toBe("no shell on Fridays");
    expect(h.ran).toEqual([]);
  });

  test("after the remover runs, commands are no longer checked", async () => {
    const h = host();
    const remove = installShellGuard(h.p, { projectRoot: ROOT });
    expect((await h.call("bash", { command: "cat src/x.ts" })).code).toBe("SHELL_FORBIDDEN");
    remove();
    expect(resultText(await h.call("bash", { command: "cat src/x.ts" }))).toBe("ran cat src/x.ts");
  });

  test("red-team bypasses are refused with their exact replacement call and do not run; code runners still run", async () => {
    const h = host();
    installShellGuard(h.p, { projectRoot: ROOT });
    const cases: [string, string][] = [
      ["{cat,src/x.ts}", 'view {"path": "src/x.ts"}'],
      ["sed -i 's/foo/bar/' /proc/self/cwd/src/app.ts", 'edit {"path": "src/app.ts", "old_string": "foo", "new_string": "bar"}'],
      ["{ cat; } < src/x.ts", 'view {"path": "src/x.ts"}'],
      ["exec 3<src/x.ts; cat <&3", 'view {"path": "src/x.ts"}'],
      ["trap 'cat src/x.ts' EXIT", 'view {"path": "src/x.ts"}'],
      ["xargs -a src/x.ts", 'view {"path": "src/x.ts"}'],
      ["flock /tmp/lock cat src/x.ts", 'view {"path": "src/x.ts"}'],
      ["echo $(<src/x.ts)", 'view {"path": "src/x.ts"}'],
      ["xxd src/x.ts", 'view {"path": "src/x.ts"}'],
    ];
    for (const [command, call] of cases) {
      const result = await h.call("bash", { command });
      expect({ command, code: result.code }).toEqual({ command, code: "SHELL_FORBIDDEN" });
      expect(resultText(result)).toContain(`  ${call}`);
    }
    expect(h.ran).toEqual([]);
    for (const command of ["python script.py", "node app.js", "make", "git status"]) {
      expect(resultText(await h.call("bash", { command }))).toBe(`ran ${command}`);
    }
    expect(h.ran).toEqual(["bash: python script.py", "bash: node app.js", "bash: make", "bash: git status"]);
  });
});
