/** The hosting flow under Deno (`deno task serve --workspaces DIR`): the tar library and gzip streams on Deno's web streams. */
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { mintToken, secretBytes } from "../../src/cli/mint.ts";
import { ROOT, startServe, tempDir } from "../helpers/cli.ts";
import { runHostingFlow } from "../helpers/hosting-flow.ts";

const deno = join(ROOT, "node_modules", ".bin", "deno");
const SECRET = "deno-hosting-secret-0123456789abcdef-0123456789";
const key = { alg: "HS256" as const, secret: secretBytes(SECRET) };

test.skipIf(!existsSync(deno))(
  "deno task serve --workspaces: the seven steps",
  async () => {
    const dir = tempDir("tw-deno-hosting-");
    const server = await startServe(["--workspaces", dir.path, "--jwt-secret-env", "TW_JWT", "--port", "0", "--quiet"], {
      command: [deno, "task", "serve"],
      detached: true,
      env: { TW_JWT: SECRET },
    });
    try {
      const now = Math.floor(Date.now() / 1000);
      await runHostingFlow(
        {
          url: server.url,
          admin: await mintToken(key, { workspace: "*", scopes: ["admin"], ttlSeconds: 3600 }),
          agent: (ws) => mintToken(key, { workspace: ws, scopes: ["read", "write"], ttlSeconds: 3600 }),
          expired: (ws) => mintToken(key, { workspace: ws, scopes: ["read"], ttlSeconds: 60, now: now - 3600 }),
        },
        "wsd",
      );
      expect(existsSync(join(dir.path, "wsd"))).toBe(false);
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
