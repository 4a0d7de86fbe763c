import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..", "..", "..");
const deno = join(root, "node_modules", ".bin", "deno");

// Deno's node:child_process must support process groups (detached + kill(-pid)) for the shell engine to be safe there.
test.skipIf(!existsSync(deno))(
  "the shell engine runs under Deno: markers, group kill, signals, capping",
  () => {
    const r = spawnSync(deno, ["run", "-A", "--quiet", join(root, "test", "helpers", "shell-deno-smoke.ts")], { cwd: root, encoding: "utf8", timeout: 60_000 });
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe("deno shell smoke: ok");
    expect(r.status).toBe(0);
  },
  60_000,
);
