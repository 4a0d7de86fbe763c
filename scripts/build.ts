/**
 * Build what the npm package and the single executables run, with Bun's bundler:
 *
 *   bun scripts/build.ts                        dist/bin/toolwarden.js (Node >= 20, Bun, Deno)
 *   bun scripts/build.ts --compile [TARGET...]  dist/toolwarden-TARGET executables (default bun-linux-x64)
 *
 * The bundle holds every dependency, so the installed package needs none. It
 * sits two levels below the package root, like the sources, so the path
 * src/hash/wasm-file.ts reads the WASM from holds for both. An executable
 * embeds wasm/fnv.wasm as a file. `npm pack` runs the first form (prepack).
 */
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
const define = `TOOLWARDEN_VERSION=${JSON.stringify(version)}`;

function bun(args: string[]): void {
  const run = Bun.spawnSync([process.execPath, "build", ...args, "--define", define], { cwd: root, stdout: "inherit", stderr: "inherit" });
  if (run.exitCode !== 0) throw new Error(`bun build ${args.join(" ")} failed (exit ${run.exitCode})`);
}

const [mode, ...targets] = process.argv.slice(2);
if (mode === "--compile") {
  for (const target of targets.length ? targets : ["bun-linux-x64"]) {
    const outfile = `dist/toolwarden-${target.replace(/^bun-/, "")}`;
    bun(["--compile", `--target=${target}`, "src/cli.ts", "wasm/fnv.wasm", "--asset-naming=[name].[ext]", "--outfile", outfile]);
  }
} else if (mode === undefined) {
  const outfile = join(root, "dist/bin/toolwarden.js");
  bun(["--target=node", "src/cli.ts", "--outfile", outfile]);
  // The source's `#!/usr/bin/env bun` (and Bun's "// @bun" marker) would make npx need Bun.
  const text = readFileSync(outfile, "utf8").replace(/^#!.*\n(\/\/ @bun.*\n)?/, "");
  writeFileSync(outfile, `#!/usr/bin/env node\n${text}`);
  chmodSync(outfile, 0o755);
} else {
  throw new Error(`unknown option ${mode}; usage: bun scripts/build.ts [--compile [TARGET...]]`);
}
