import { expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

test("wasm/fnv.wasm is exactly what `npm run build:wasm` produces from wasm/fnv.ts", () => {
  const dir = mkdtempSync(join(tmpdir(), "toolwarden-wasm-"));
  try {
    const out = join(dir, "fnv.wasm");
    execFileSync("node", [join(root, "wasm", "build.mjs"), out], { cwd: dir, stdio: "pipe" });
    const rebuilt = readFileSync(out);
    const committed = readFileSync(join(root, "wasm", "fnv.wasm"));
    // if this fails: run `npm run build:wasm` and commit wasm/fnv.wasm
    expect(rebuilt.equals(committed)).toBe(true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
