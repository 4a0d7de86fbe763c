/** `deno task serve`: the same server under Deno, driven over HTTP through a view -> batch_edit -> view cycle. */
import { expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { lineId, restCall, ROOT, startServe, tempDir } from "../helpers/cli.ts";

const deno = join(ROOT, "node_modules", ".bin", "deno");
const TOKEN = "deno-test-token";

test.skipIf(!existsSync(deno))(
  "deno task serve: banner, view -> batch_edit -> view by line id, one log line per call, SIGTERM exits 0",
  async () => {
    const dir = tempDir();
    writeFileSync(join(dir.path, "app.ts"), "const port = 80;\nconsole.log(port);\n");
    // Own process group: `deno task` runs `deno run` as a child, and cleanup must reach both.
    const server = await startServe([dir.path, "--port", "0", "--token", TOKEN], { command: [deno, "task", "serve"], detached: true });
    try {
      expect(server.banner).toContain(`serving ${dir.path}`);
      expect(server.banner).toMatch(/tools: +view, write, edit, batch_edit\n/);

      const first = await restCall(server.url, TOKEN, "view", { path: "app.ts" }, "d");
      expect(first.body.isError).toBe(false);
      const id = lineId(first.body.content[0].text, "const port = 80;");
      const edit = await restCall(
        server.url,
        TOKEN,
        "batch_edit",
        {
          path: "app.ts",
          operations: [
            { operation: "replace", start: id, content: "const port = 8080;" },
            { operation: "insert", after: -1, content: "export { port };" },
          ],
        },
        "d",
      );
      expect(edit.body.isError).toBe(false);
      const second = await restCall(server.url, TOKEN, "view", { path: "app.ts" }, "d");
      expect(second.body.content[0].text).toMatch(/\|const port = 8080;\n.*\|console\.log\(port\);\n.*\|export \{ port \};$/);
      expect(readFileSync(join(dir.path, "app.ts"), "utf8")).toBe("const port = 8080;\nconsole.log(port);\nexport { port };\n");

      const log = await server.waitForStderr(/rest view ok \d+ms\n[\s\S]*rest batch_edit ok \d+ms\n[\s\S]*rest view ok \d+ms\n/);
      // --unstable-no-legacy-abort in the task keeps Deno's request-signal notice out of the log.
      expect(log).not.toContain("request.signal aborts");

      // deno task forwards the signal to its `deno run` child and exits with the child's status.
      // (Signalled as a whole group, deno task itself sometimes exits 143 however its child ended.)
      server.child.kill("SIGTERM");
      expect(await server.exited).toBe(0);
    } finally {
      try {
        process.kill(-server.child.pid!, "SIGKILL");
      } catch {
        // Already gone.
      }
      dir.remove();
    }
  },
  60_000,
);

test.skipIf(!existsSync(deno))(
  "without /proc/self/fd (Deno without --allow-all) the local provider refuses to start, saying why",
  async () => {
    const dir = tempDir();
    try {
      const child = Bun.spawn(
        [deno, "run", "--allow-net", "--allow-read", "--allow-write", "--allow-env", "--allow-sys", "src/deno.ts", dir.path, "--port", "0", "--no-auth"],
        { cwd: ROOT, stdout: "pipe", stderr: "pipe" },
      );
      const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
      expect(code).toBe(1);
      expect(stdout).not.toContain("MCP client configuration");
      expect(stderr).toContain("local storage needs Linux /proc/self/fd");
      expect(stderr).toContain("--allow-all");
      // One line, not a stack trace.
      expect(stderr).not.toContain("    at ");
    } finally {
      dir.remove();
    }
  },
  30_000,
);
