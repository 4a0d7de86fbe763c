/**
 * `toolwarden token mint` and who its tokens are: without `--label` each
 * token gets a random `sub` of its own (named on stderr, stdout stays the
 * token alone), so two unlabelled tokens are never one principal; the same
 * label, scopes and workspace are one principal across tokens.
 */
import { describe, expect, test } from "bun:test";
import { UsageError } from "../../src/cli/args.ts";
import type { CliIO } from "../../src/cli/io.ts";
import { runToken, secretBytes } from "../../src/cli/mint.ts";
import { createAuthenticator, type Principal } from "../../src/http/auth.ts";

const SECRET = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";
const auth = createAuthenticator({ mode: "bearer", tokens: [], jwt: { keys: [{ alg: "HS256", secret: secretBytes(SECRET) }] } });

/** Run `token mint ARGS` in process; what it printed. */
async function mint(args: string[]): Promise<{ token: string; stderr: string; principal: Principal; sub: unknown }> {
  let stdout = "";
  let stderr = "";
  const io: CliIO = {
    out: (text) => void (stdout += text),
    err: (text) => void (stderr += text),
    env: { TW_JWT: SECRET },
    cwd: "/",
    onStopSignal: () => () => {},
    readStdin: () => Promise.resolve(""),
    flush: () => Promise.resolve(),
  };
  expect(await runToken(["mint", "--key-env", "TW_JWT", "--workspace", "ws1", ...args], io)).toBe(0);
  expect(stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
  const token = stdout.trim();
  const outcome = await auth.authenticate(`Bearer ${token}`);
  if (!outcome.ok) throw new Error(`refused: ${outcome.failure}`);
  const payload = JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))) as { sub?: unknown };
  return { token, stderr, principal: outcome.principal, sub: payload.sub };
}

describe("token mint and principals", () => {
  test("without --label: a random sub per token, named on stderr; two tokens are two principals", async () => {
    const a = await mint(["--scopes", "read,write", "--ttl", "1h"]);
    const b = await mint(["--scopes", "read,write", "--ttl", "1h"]);
    expect(a.sub).toMatch(/^anon-[0-9a-f]{32}$/);
    expect(a.stderr).toBe(`toolwarden: no --label: this token's sub is ${a.sub} (a principal of its own; --label gives an agent a stable one)\n`);
    expect(a.principal.label).toBe(a.sub as string);
    expect(b.sub).not.toBe(a.sub);
    expect(b.principal.id).not.toBe(a.principal.id);
  });

  test("with --label: the label is the sub, nothing on stderr, and the same label, scopes and workspace are one principal", async () => {
    const first = await mint(["--scopes", "read,write", "--ttl", "1h", "--label", "agent-1"]);
    const again = await mint(["--scopes", "write,read", "--ttl", "30m", "--label", "agent-1"]);
    expect(first.stderr).toBe("");
    expect(first.sub).toBe("agent-1");
    expect(again.principal.id).toBe(first.principal.id);
    // Other scopes, same label: another principal (its own sessions), logged under the same label.
    const reader = await mint(["--scopes", "read", "--ttl", "1h", "--label", "agent-1"]);
    expect(reader.principal.id).not.toBe(first.principal.id);
    expect(reader.principal.label).toBe("agent-1");
  });

  test("a label the server would refuse as sub is a usage error", async () => {
    for (const label of ["", "x".repeat(129)]) {
      await expect(mint(["--scopes", "read", "--ttl", "1h", "--label", label])).rejects.toThrow(UsageError);
    }
    expect((await mint(["--scopes", "read", "--ttl", "1h", "--label", "x".repeat(128)])).sub).toBe("x".repeat(128));
  });
});
