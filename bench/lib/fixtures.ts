/**
 * Deterministic test data: source-like text of a chosen size, the files the
 * edit workloads toggle, and a wide directory tree for search and listing.
 * Same seed, same bytes, so runs on different days compare.
 */
import { mkdirSync, mkdtempSync, openSync, closeSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A small fast PRNG (mulberry32): deterministic from `seed`. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  "const",
  "value",
  "return",
  "if",
  "else",
  "for",
  "await",
  "result",
  "items",
  "index",
  "config",
  "options",
  "error",
  "count",
  "length",
  "push",
  "map",
  "filter",
  "string",
  "number",
  "export",
  "function",
  "import",
  "from",
];
const PUNCT = [" = ", "(", ")", ", ", ".", " + ", "; ", " => ", " { ", " }", "[", "]"];

/**
 * One line of code-like text: indentation, words and punctuation, 0 to ~100
 * bytes (mean ~50). About 1 line in 1000 carries non-ASCII text, as real
 * sources do in comments and strings; that matters, because it decides how
 * some runtimes store decoded strings.
 */
export function codeLine(rand: () => number, i: number): string {
  const r = rand();
  if (r < 0.08) return "";
  const indent = " ".repeat(2 * Math.floor(rand() * 5));
  const target = 10 + Math.floor(rand() * 80);
  let line = indent;
  while (line.length < target) {
    line += WORDS[Math.floor(rand() * WORDS.length)];
    line += PUNCT[Math.floor(rand() * PUNCT.length)];
  }
  if (i % 997 === 0) line += " // héllo wörld — 世界";
  return line;
}

/** `count` code lines joined with "\n" and a final newline. */
export function codeText(count: number, seed = 1): string {
  const rand = prng(seed);
  const lines = new Array<string>(count);
  for (let i = 0; i < count; i++) lines[i] = codeLine(rand, i);
  return `${lines.join("\n")}\n`;
}

/** A fresh temp directory and its remover. */
export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Shape of the search/listing tree. */
export interface TreeShape {
  readonly top: number;
  readonly sub: number;
  readonly files: number;
  readonly linesPerFile: number;
}

/**
 * 49 x 10 directories of 100 files (49,000 files of ~30 lines, ~50 MB,
 * 49,539 entries with the directories): as large as a directory search
 * walks in full (SEARCH_WALK_ENTRIES = 50,000).
 */
export const SEARCH_TREE: TreeShape = { top: 49, sub: 10, files: 100, linesPerFile: 30 };

/** The literal that occurs in one file of every {@link MARKER_EVERY}. */
export const MARKER = "needle_marker_token";
export const MARKER_EVERY = 1000;

/** Write the tree under `dir`; returns the file count. Files are cheap variations of one pool of lines. */
export function writeTree(dir: string, shape: TreeShape, seed = 7): number {
  const rand = prng(seed);
  const pool = Array.from({ length: 4096 }, (_, i) => codeLine(rand, i + 1));
  let n = 0;
  for (let t = 0; t < shape.top; t++) {
    for (let s = 0; s < shape.sub; s++) {
      const sub = join(dir, `pkg${t}`, `mod${s}`);
      mkdirSync(sub, { recursive: true });
      for (let f = 0; f < shape.files; f++) {
        const lines: string[] = [];
        const base = Math.floor(rand() * pool.length);
        for (let l = 0; l < shape.linesPerFile; l++) lines.push(pool[(base + l * 31) % pool.length]);
        if (n % MARKER_EVERY === 0) lines[shape.linesPerFile >> 1] = `  const hit = ${MARKER}(${n});`;
        writeFileSync(join(sub, `file${f}.ts`), `${lines.join("\n")}\n`);
        n++;
      }
    }
  }
  return n;
}

/** Write about `bytes` of code text to `path` in 1 MiB blocks without holding it in memory. */
export function writeLargeFile(path: string, bytes: number, seed = 3): number {
  const block = new TextEncoder().encode(codeText(20_000, seed));
  const fd = openSync(path, "w");
  let written = 0;
  try {
    while (written < bytes) {
      writeSync(fd, block);
      written += block.length;
    }
  } finally {
    closeSync(fd);
  }
  return written;
}
