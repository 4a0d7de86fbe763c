/** `toolwarden serve` as a user runs it: a real process on a real port, driven over HTTP. */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { connect } from "node:net";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { lineId, printedMcpConfig, restCall, runCli, startServe, tempDir, type ServeProcess } from "../helpers/cli.ts";

const TOKEN = "test-token-0123456789";
const LOG_LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (rest|mcp) [a-z_]+ (ok|[A-Z_]+) \d+ms$/;

describe("a served directory", () => {
  const dir = tempDir();
  let server: ServeProcess;

  beforeAll(async () => {
    writeFileSync(join(dir.path, "notes.txt"), "alpha\nbeta\ngamma\n");
    server = await startServe([dir.path, "--port", "0", "--token", TOKEN]);
  });
  afterAll(() => {
    server?.kill();
    dir.remove();
  });

  test("the banner names the directory, the URL, the token, and the tools", () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.banner).toContain(`serving ${dir.path}`);
    expect(server.banner).toContain(`token:  ${TOKEN}  (from --token)`);
    expect(server.banner).toMatch(/tools: +view, write, edit, batch_edit\n/);
    expect(server.banner).toContain("scopes: read, write\n");
  });

  test("the printed MCP client configuration is valid JSON pointing at /mcp with the token", () => {
    const config = printedMcpConfig(server.banner);
    expect(config).toEqual({
      mcpServers: { toolwarden: { type: "http", url: `${server.url}/mcp`, headers: { Authorization: `Bearer ${TOKEN}` } } },
    });
  });

  test("an MCP client configured from the banner lists the tools and reads a file", async () => {
    const entry = printedMcpConfig(server.banner).mcpServers.toolwarden;
    const transport = new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: entry.headers } });
    const client = new Client({ name: "cli-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["view", "write", "edit", "batch_edit"]);
      const result = await client.callTool({ name: "view", arguments: { path: "notes.txt" } });
      expect(result.isError).toBe(false);
      expect((result.content as { text: string }[])[0].text).toContain("|beta");
    } finally {
      await client.close();
    }
  });

  test("view then edit over REST changes the file on disk, and each call logs one line", async () => {
    const before = server
      .stderr()
      .split("\n")
      .filter((l) => LOG_LINE.test(l)).length;
    const view = await restCall(server.url, TOKEN, "view", { path: "notes.txt" }, "s1");
    expect(view.status).toBe(200);
    expect(view.body.isError).toBe(false);
    const edit = await restCall(server.url, TOKEN, "edit", { path: "notes.txt", old_string: "beta", new_string: "BETA" }, "s1");
    expect(edit.body.isError).toBe(false);
    expect(readFileSync(join(dir.path, "notes.txt"), "utf8")).toBe("alpha\nBETA\ngamma\n");

    // An edit in a session that never viewed the file is refused, and logged with its code.
    const unseen = await restCall(server.url, TOKEN, "edit", { path: "notes.txt", old_string: "alpha", new_string: "x" }, "s2");
    expect(unseen.body.code).toBe("FS_NOT_OBSERVED");

    const lines = (await server.waitForStderr(/rest edit FS_NOT_OBSERVED \d+ms/)).split("\n").filter((l) => LOG_LINE.test(l));
    expect(lines.length - before).toBe(3);
    expect(lines.slice(-3).map((l) => l.split(" ").slice(1, 4).join(" "))).toEqual(["rest view ok", "rest edit ok", "rest edit FS_NOT_OBSERVED"]);
  });

  test("a wrong token is refused and the file is untouched", async () => {
    const response = await restCall(server.url, "not-the-token", "view", { path: "notes.txt" });
    expect(response.status).toBe(401);
  });
});

/** A request whose body is only half sent: in flight on the server until `finish()` sends the rest. */
async function halfSentWrite(server: ServeProcess, path: string, content: string) {
  const body = Buffer.from(JSON.stringify({ path, content }));
  const { port, hostname } = new URL(server.url);
  const socket = connect(Number(port), hostname);
  let response = "";
  socket.setEncoding("utf8").on("data", (d: string) => (response += d));
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  const half = Math.floor(body.length / 2);
  socket.write(
    `POST /v1/tools/write HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
      `Content-Type: application/json\r\nX-Session-Id: w\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
  );
  socket.write(body.subarray(0, half));
  // Another request answered means the server has read the first one's headers by now.
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  return {
    /** Send the rest; resolves with the raw HTTP response once the server closes. */
    async finish(): Promise<string> {
      // write, not end: Bun drops a response to a client that half-closed its side.
      socket.write(body.subarray(half));
      await closed;
      return response;
    },
  };
}

describe("stopping", () => {
  let dir: ReturnType<typeof tempDir>;
  let server: ServeProcess;
  const content = `${Array.from({ length: 60_000 }, (_, i) => `line ${i} of the new content, long enough to matter`).join("\n")}\n`;

  beforeEach(async () => {
    dir = tempDir();
    server = await startServe([dir.path, "--port", "0", "--token", TOKEN]);
    writeFileSync(join(dir.path, "big.txt"), "old\n".repeat(1000));
    // Every line: a whole-file write needs the session to have seen all of the version it replaces.
    expect((await restCall(server.url, TOKEN, "view", { path: "big.txt" }, "w")).body.isError).toBe(false);
  });
  afterEach(() => {
    server.kill();
    dir.remove();
  });

  test("SIGTERM during a large write lets it finish: the file holds the whole new content, exit 0", async () => {
    const write = await halfSentWrite(server, "big.txt", content);
    server.child.kill("SIGTERM");
    // The server says it is waiting for exactly this call: the signal really came mid-request.
    await server.waitForStderr("waiting for 1 call(s) in flight");
    const response = await write.finish();
    expect(response).toStartWith("HTTP/1.1 200");
    expect(response).toContain('"isError":false');
    expect(await server.exited).toBe(0);
    expect(readFileSync(join(dir.path, "big.txt"), "utf8")).toBe(content);
  }, 30_000);

  test("the same signal twice at once (a wrapper such as npm forwarding Ctrl-C) is one stop, not a forced exit", async () => {
    const write = await halfSentWrite(server, "big.txt", content);
    server.child.kill("SIGINT");
    server.child.kill("SIGINT");
    await server.waitForStderr("waiting for 1 call(s) in flight");
    expect(await write.finish()).toStartWith("HTTP/1.1 200");
    expect(await server.exited).toBe(0);
    expect(server.stderr()).not.toContain("again");
    expect(readFileSync(join(dir.path, "big.txt"), "utf8")).toBe(content);
  }, 30_000);

  test("a second signal later means do not wait: exit 1 at once, saying how many calls were cut off", async () => {
    await halfSentWrite(server, "big.txt", content);
    server.child.kill("SIGTERM");
    await server.waitForStderr("waiting for 1 call(s) in flight");
    await Bun.sleep(1_200);
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(1);
    expect(server.stderr()).toContain("toolwarden: SIGTERM again: exiting now with 1 call(s) unfinished");
    // The write never completed, so the old content is intact (writes land whole or not at all).
    expect(readFileSync(join(dir.path, "big.txt"), "utf8")).toBe("old\n".repeat(1000));
  }, 30_000);

  test("SIGINT with nothing in flight exits 0", async () => {
    server.child.kill("SIGINT");
    expect(await server.exited).toBe(0);
  });
});

describe("auth modes", () => {
  test("without --token the server generates a 43-character token, prints it and requires it", async () => {
    const dir = tempDir();
    const server = await startServe([dir.path, "--port", "0"]);
    try {
      const token = /token: +(\S+) +\(generated/.exec(server.banner)?.[1];
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect((await restCall(server.url, undefined, "view", { path: "." })).status).toBe(401);
      expect((await restCall(server.url, token, "view", { path: "." })).status).toBe(200);
    } finally {
      server.kill();
      dir.remove();
    }
  });

  test("TOOLWARDEN_TOKEN supplies the token", async () => {
    const dir = tempDir();
    const server = await startServe([dir.path, "--port", "0"], { env: { TOOLWARDEN_TOKEN: "from-the-env" } });
    try {
      expect(server.banner).toContain("token:  from-the-env  (from TOOLWARDEN_TOKEN)");
      expect((await restCall(server.url, "from-the-env", "view", { path: "." })).status).toBe(200);
    } finally {
      server.kill();
      dir.remove();
    }
  });

  test("--no-auth on loopback needs no token and the MCP configuration has no header", async () => {
    const dir = tempDir();
    const server = await startServe([dir.path, "--port", "0", "--no-auth"]);
    try {
      expect(printedMcpConfig(server.banner).mcpServers.toolwarden.headers).toBeUndefined();
      expect((await restCall(server.url, undefined, "view", { path: "." })).status).toBe(200);
    } finally {
      server.kill();
      dir.remove();
    }
  });

  test("--no-auth on a non-loopback host is refused with one line, exit 2, nothing served", async () => {
    const r = await runCli(["serve", ".", "--host", "0.0.0.0", "--no-auth", "--port", "0"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("--no-auth is refused on 0.0.0.0");
  });
});

describe("binding", () => {
  test("--host 127.0.0.2 serves there and accepts that Host header; a foreign Host is refused", async () => {
    const dir = tempDir();
    const server = await startServe([dir.path, "--port", "0", "--token", TOKEN, "--host", "127.0.0.2"]);
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
      expect((await restCall(server.url, TOKEN, "view", { path: "." })).status).toBe(200);
      const rebound = await fetch(`${server.url}/healthz`, { headers: { host: "attacker.example" } });
      expect(rebound.status).toBe(403);
    } finally {
      server.kill();
      dir.remove();
    }
  });
});

describe("the shell", () => {
  test("--allow-shell adds bash behind the guard, with the exec scope on the token", async () => {
    const dir = tempDir();
    writeFileSync(join(dir.path, "a.txt"), "x\n");
    const server = await startServe([dir.path, "--port", "0", "--token", TOKEN, "--allow-shell"]);
    try {
      expect(server.banner).toContain("scopes: read, write, exec\n");
      expect(server.banner).toMatch(/tools: +view, write, edit, batch_edit, bash\n/);
      const echo = await restCall(server.url, TOKEN, "bash", { command: "echo hi from $PWD" });
      expect(echo.body.isError).toBe(false);
      expect(echo.body.content[0].text).toContain(`hi from ${dir.path}`);
      // The shell guard sends file reads to view.
      const cat = await restCall(server.url, TOKEN, "bash", { command: "cat a.txt" });
      expect(cat.body.code).toBe("SHELL_FORBIDDEN");
    } finally {
      server.kill();
      dir.remove();
    }
  });

  test("without --allow-shell there is no bash", async () => {
    const dir = tempDir();
    const server = await startServe([dir.path, "--port", "0", "--token", TOKEN]);
    try {
      expect((await restCall(server.url, TOKEN, "bash", { command: "true" })).status).toBe(404);
    } finally {
      server.kill();
      dir.remove();
    }
  });
});

describe("command line mistakes", () => {
  test("an unknown flag prints one error line, the usage, and exits 2", async () => {
    const r = await runCli(["serve", "--prot", "8080"]);
    expect(r.code).toBe(2);
    const [first, second, third] = r.stderr.split("\n");
    expect(first).toBe("toolwarden: unknown option --prot (did you mean --port?)");
    expect(second).toBe("");
    expect(third).toBe("Usage: toolwarden serve [WORKSPACE] [options]");
  });

  test("a bad port value is named", async () => {
    const r = await runCli(["serve", "--port", "http"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toStartWith('toolwarden: --port must be a number from 0 to 65535 (got "http")\n');
  });

  test("a missing directory fails start-up with one line", async () => {
    const r = await runCli(["serve", "/nonexistent/tw-dir", "--port", "0"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("toolwarden: /nonexistent/tw-dir: no such directory\n");
  });

  test("--help and --version", async () => {
    const help = await runCli(["serve", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--allow-shell");
    const version = await runCli(["--version"]);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const none = await runCli([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("Usage: toolwarden <command>");
  });
});

describe("config file", () => {
  test("a field of the wrong shape fails start-up naming the field, exit 2", async () => {
    const dir = tempDir();
    try {
      const config = join(dir.path, "tw.json");
      writeFileSync(config, JSON.stringify({ tokens: [{ token: "t", scopes: ["read", "root"] }] }));
      const r = await runCli(["serve", dir.path, "--config", config]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`toolwarden: ${config}: tokens[0].scopes[1]: scopes entries must be one of read, write, exec, admin, audit (got "root")\n`);
    } finally {
      dir.remove();
    }
  });

  test("a broken rule fails start-up naming the rule id, exit 2", async () => {
    const dir = tempDir();
    try {
      const config = join(dir.path, "tw.json");
      writeFileSync(config, JSON.stringify({ rules: { rules: [{ id: "my-panic", pattern: "(unclosed", action: "error", message: "x" }] } }));
      const r = await runCli(["serve", dir.path, "--config", config]);
      expect(r.code).toBe(2);
      expect(r.stderr).toStartWith(`toolwarden: ${config}: rules: rule "my-panic": invalid pattern`);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
    } finally {
      dir.remove();
    }
  });

  test("port, limits and tokens come from the file; a flag overrides it", async () => {
    const dir = tempDir();
    const config = join(dir.path, "tw.json");
    writeFileSync(
      config,
      JSON.stringify({
        port: 1,
        tokens: [
          { tokenEnv: "TW_TEST_READER", scopes: ["read"], label: "reader" },
          { token: "writer-token", scopes: ["read", "write"] },
        ],
        limits: { maxBodyBytes: 200 },
      }),
    );
    writeFileSync(join(dir.path, "f.txt"), "one\n");
    const server = await startServe([dir.path, "--config", config, "--port", "0"], { env: { TW_TEST_READER: "reader-token" } });
    try {
      expect(new URL(server.url).port).not.toBe("1");
      expect(server.banner).toContain("tokens: 2 from the config file (not shown)");
      expect(server.banner).toContain('"Authorization": "Bearer <your token>"');
      expect((await restCall(server.url, "reader-token", "view", { path: "f.txt" })).body.isError).toBe(false);
      const write = await restCall(server.url, "reader-token", "write", { path: "g.txt", content: "x" });
      expect(write.body.code).toBe("FS_ACCESS_DENIED");
      expect((await restCall(server.url, "writer-token", "write", { path: "g.txt", content: "x" })).body.isError).toBe(false);
      const big = await restCall(server.url, "writer-token", "write", { path: "h.txt", content: "y".repeat(500) });
      expect(big.status).toBe(413);
      // Several tokens: the log line names who called.
      await server.waitForStderr(/ rest view ok \d+ms reader\n/);
    } finally {
      server.kill();
      dir.remove();
    }
  });

  test("the same token twice fails start-up, before anything listens", async () => {
    const dir = tempDir();
    try {
      const config = join(dir.path, "tw.json");
      writeFileSync(
        config,
        JSON.stringify({
          tokens: [
            { token: "same", scopes: ["read"] },
            { token: "same", scopes: ["write"] },
          ],
        }),
      );
      const r = await runCli(["serve", dir.path, "--config", config, "--port", "0"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`toolwarden: ${config}: token #2: the same token is configured twice\n`);
    } finally {
      dir.remove();
    }
  });

  test("a tokenEnv that is not set fails start-up naming the variable", async () => {
    const dir = tempDir();
    try {
      const config = join(dir.path, "tw.json");
      writeFileSync(config, JSON.stringify({ tokens: [{ tokenEnv: "TW_TEST_UNSET_VAR", scopes: ["read"] }] }));
      const r = await runCli(["serve", dir.path, "--config", config, "--port", "0"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`toolwarden: ${config}: tokens[0].tokenEnv: environment variable TW_TEST_UNSET_VAR is not set\n`);
    } finally {
      dir.remove();
    }
  });
});

describe("a view -> batch_edit cycle by line id", () => {
  test("ids from view prove the lines batch_edit replaces", async () => {
    const dir = tempDir();
    writeFileSync(join(dir.path, "a.ts"), "const a = 1;\nconst b = 2;\n");
    const server = await startServe([dir.path, "--port", "0", "--token", TOKEN]);
    try {
      const view = await restCall(server.url, TOKEN, "view", { path: "a.ts" }, "b");
      const id = lineId(view.body.content[0].text, "const b = 2;");
      const edit = await restCall(
        server.url,
        TOKEN,
        "batch_edit",
        { path: "a.ts", operations: [{ operation: "replace", start: id, content: "const b = 3;" }] },
        "b",
      );
      expect(edit.body.isError).toBe(false);
      expect(readFileSync(join(dir.path, "a.ts"), "utf8")).toBe("const a = 1;\nconst b = 3;\n");
    } finally {
      server.kill();
      dir.remove();
    }
  });
});
