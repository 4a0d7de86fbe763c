// Smoke test of an installed toolwarden: `node scripts/pack-smoke.mjs LAUNCHER...`, where LAUNCHER is
// the command that runs the installed bin (e.g. `/tmp/app/node_modules/.bin/toolwarden`, or
// `deno run -A .../dist/bin/toolwarden.js`). Plain JavaScript so Node alone runs it; the MCP client is
// the official SDK from this checkout. Checks: --version; `serve` called over REST (a view, a write
// checked on disk, a clean stop); `mcp` over stdio with the SDK's StdioClientTransport (tools/list, a
// view, an edit checked on disk, WASM hasher loaded). Prints one line per check; exits 1 on the first failure.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const launcher = process.argv.slice(2);
if (launcher.length === 0) {
  console.error("usage: node scripts/pack-smoke.mjs COMMAND [ARGS...]  (the command that runs toolwarden)");
  process.exit(2);
}
const [command, ...prefix] = launcher;
const label = launcher.map((w) => w.split("/").slice(-3).join("/")).join(" ");

function check(what, ok, detail = "") {
  if (!ok) {
    console.error(`FAIL ${label}: ${what}${detail ? `\n${detail}` : ""}`);
    process.exit(1);
  }
  console.log(`ok   ${label}: ${what}`);
}

function run(args, timeoutMs = 60_000) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...prefix, ...args], { stdio: ["ignore", "pipe", "pipe"], env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

// The audit log and history go to a throwaway state directory, not the user's.
const stateDir = mkdtempSync(join(tmpdir(), "tw-smoke-state-"));
const env = { ...process.env, TOOLWARDEN_STATE: stateDir };

const text = (result) => result.content.map((b) => b.text).join("\n");
const idOf = (view, line) => {
  const found = view.split("\n").find((l) => l.endsWith(`|${line}`));
  return found?.slice(0, found.indexOf("|"));
};

async function version() {
  const out = await run(["--version"]);
  check("--version prints the version", out.code === 0 && /^\d+\.\d+\.\d+\S*\n$/.test(out.stdout), JSON.stringify(out));
}

async function serve(dir) {
  const token = "smoke-token-0123456789";
  const child = spawn(command, [...prefix, "serve", dir, "--port", "0", "--token", token], { stdio: ["ignore", "pipe", "pipe"], env });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise((resolve) => child.on("close", resolve));
  try {
    const url = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no banner within 60 s\nstdout: ${stdout}\nstderr: ${stderr}`)), 60_000);
      child.stdout.on("data", (d) => {
        stdout += d;
        const m = /url: +(http:\/\/\S+)/.exec(stdout);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      child.on("close", (code) => reject(new Error(`serve exited ${code}\nstdout: ${stdout}\nstderr: ${stderr}`)));
    });
    const call = async (tool, args) => {
      const res = await fetch(`${url}/v1/tools/${tool}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(args),
      });
      return { status: res.status, body: await res.json() };
    };
    const view = await call("view", { path: "notes.txt" });
    check(
      "serve: REST view answers with line ids",
      view.status === 200 && view.body.isError === false && idOf(text(view.body), "beta") !== undefined,
      JSON.stringify(view),
    );
    const write = await call("write", { path: "new.txt", content: "written over REST\n" });
    check(
      "serve: REST write lands on disk",
      write.body.isError === false && readFileSync(join(dir, "new.txt"), "utf8") === "written over REST\n",
      JSON.stringify(write),
    );
    child.kill("SIGTERM");
    check("serve: SIGTERM stops it with exit 0", (await exited) === 0, stderr);
  } finally {
    child.kill("SIGKILL");
  }
}

async function mcp(dir) {
  let stderr = "";
  const transport = new StdioClientTransport({ command, args: [...prefix, "mcp", dir], env, stderr: "pipe" });
  transport.stderr.on("data", (d) => (stderr += d));
  const client = new Client({ name: "pack-smoke", version: "1.0.0" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    check("mcp: tools/list over stdio", tools.map((t) => t.name).join(",") === "view,write,edit,batch_edit", JSON.stringify(tools.map((t) => t.name)));
    const view = await client.callTool({ name: "view", arguments: { path: "notes.txt" } });
    check("mcp: view", view.isError === false && idOf(text(view), "gamma") !== undefined, text(view));
    const edit = await client.callTool({ name: "edit", arguments: { path: "notes.txt", old_string: "gamma", new_string: "GAMMA" } });
    check("mcp: edit lands on disk", edit.isError === false && readFileSync(join(dir, "notes.txt"), "utf8") === "alpha\nbeta\nGAMMA\n", text(edit));
    check("mcp: the WASM hasher loaded", /hasher: wasm/.test(stderr), stderr);
  } finally {
    await client.close();
  }
}

const dir = mkdtempSync(join(tmpdir(), "tw-smoke-"));
try {
  writeFileSync(join(dir, "notes.txt"), "alpha\nbeta\ngamma\n");
  await version();
  await serve(dir);
  await mcp(dir);
} finally {
  rmSync(dir, { recursive: true, force: true });
  rmSync(stateDir, { recursive: true, force: true });
}
