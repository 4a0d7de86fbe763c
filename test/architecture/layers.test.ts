/**
 * The layer order is a test: a module may import its own layer or a lower
 * one, never a higher one (docs/ARCHITECTURE.md). Order, low to high:
 * hash < errors/result < text < storage < policy < rules < tools < pipeline
 * < http < config < cli/worker (and the entry files above them all).
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = join(import.meta.dir, "..", "..", "src");

const ORDER: readonly (readonly string[])[] = [
  ["hash"],
  ["errors.ts", "result.ts", "scopes.ts"],
  ["text"],
  ["storage"],
  ["policy", "history"],
  ["rules"],
  ["tools"],
  ["pipeline"],
  ["http"],
  ["config"],
  ["cli", "worker"],
  ["cli.ts", "deno.ts", "mod.ts"],
];

/** The rank of a path relative to src/ (its first segment), or undefined for an unknown part. */
function layerOf(rel: string): number | undefined {
  const top = rel.split("/")[0]!;
  const i = ORDER.findIndex((names) => names.includes(top));
  return i < 0 ? undefined : i;
}

function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) sources(p, out);
    else if (e.name.endsWith(".ts")) out.push(p);
  }
  return out;
}

/** Every relative import of a source text (static, re-export and dynamic). */
function importsOf(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)["'](\.{1,2}\/[^"']+)["']/g)) found.push(m[1]!);
  return found;
}

describe("layers", () => {
  test("the checker sees an import that runs up (a storage module importing a tool)", () => {
    const from = "storage/x.ts";
    const to = relative(SRC, resolve(SRC, dirname(from), importsOf('import { view } from "../tools/view/mod.ts";')[0]!));
    expect(layerOf(to)!).toBeGreaterThan(layerOf(from)!);
  });

  test("every module of src/ belongs to a layer", () => {
    const unknown = sources(SRC)
      .map((f) => relative(SRC, f))
      .filter((rel) => layerOf(rel) === undefined);
    expect(unknown).toEqual([]);
  });

  test("no module imports a higher layer", () => {
    const upward: string[] = [];
    for (const file of sources(SRC)) {
      const rel = relative(SRC, file);
      for (const spec of importsOf(readFileSync(file, "utf8"))) {
        const target = relative(SRC, resolve(dirname(file), spec));
        if (target.startsWith("..")) continue; // outside src/ (wasm/), checked by the bundlers
        if ((layerOf(target) ?? -1) > layerOf(rel)!) upward.push(`${rel} imports ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });
});
