#!/usr/bin/env node
/**
 * Compiles wasm/fnv.ts to the committed wasm/fnv.wasm (`npm run build:wasm`),
 * or to the path given as the first argument (the build test rebuilds into a
 * temp dir and compares bytes). The flags are fixed so the output is
 * byte-identical on every machine: -O3, no debug info, no source map, stub
 * runtime (raw memory, no GC), SIMD on, no assertions (the module has none
 * worth trapping on and `abort` would become an import).
 */
import asc from "assemblyscript/asc";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** The exact asc flags; changing them changes the committed binary. */
export const ASC_FLAGS = ["--optimizeLevel", "3", "--shrinkLevel", "0", "--noAssert", "--runtime", "stub", "--enable", "simd"];

/** Compile wasm/fnv.ts to `outFile`; throws with the compiler's output on failure. */
export async function buildWasm(outFile = resolve(here, "fnv.wasm")) {
  let log = "";
  const sink = {
    write: (chunk) => {
      log += String(chunk);
      return true;
    },
  };
  const { error } = await asc.main(["fnv.ts", "--baseDir", here, "--outFile", resolve(outFile), ...ASC_FLAGS], { stdout: sink, stderr: sink });
  if (error) throw new Error(`asc failed: ${error.message}\n${log}`);
  return outFile;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = await buildWasm(process.argv[2] ? resolve(process.argv[2]) : undefined);
  console.log(`wrote ${out}`);
}
