/**
 * Deterministic source-like text for the hashing benchmark. Pure: runs the
 * same in Bun, Deno, Node and inside a workerd isolate, so every runtime
 * hashes the same bytes for the same (size, seed).
 */

/** mulberry32: a tiny seeded PRNG; quality is ample for picking line shapes. */
function prng(seed: number): () => number {
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
  "let",
  "return",
  "if",
  "else",
  "for",
  "while",
  "function",
  "import",
  "export",
  "from",
  "await",
  "async",
  "new",
  "this",
  "value",
  "result",
  "index",
  "count",
  "bytes",
  "line",
  "lines",
  "hash",
  "options",
  "error",
  "start",
  "end",
  "length",
  "push",
  "map",
  "filter",
  "true",
  "false",
  "null",
  "undefined",
  "string",
  "number",
  "Uint8Array",
  "TextDecoder",
  "decode",
  "encode",
  "=",
  "===",
  "!==",
  "+",
  "-",
  "*",
  "&&",
  "||",
  "=>",
  "(",
  ")",
  "{",
  "}",
  "[",
  "]",
  ";",
  ",",
  ".",
  "0",
  "1",
  "42",
  "0xff",
  '"ok"',
  "'é'",
  '"世界"',
  "// note:",
  "/*",
  "*/",
];

/** One line of code-ish text whose length follows a source-code-like mix. */
function makeLine(rand: () => number): string {
  const r = rand();
  // ~12% empty, ~55% short, ~28% medium, ~5% long (comments, strings, data)
  const target = r < 0.12 ? 0 : r < 0.67 ? 4 + rand() * 40 : r < 0.95 ? 44 + rand() * 76 : 120 + rand() * 280;
  if (target === 0) return "";
  let line = " ".repeat(2 * Math.floor(rand() * 6));
  while (line.length < target) line += WORDS[Math.floor(rand() * WORDS.length)] + (rand() < 0.7 ? " " : "");
  return line.trimEnd();
}

/**
 * `size` bytes of UTF-8 source-like text ("\n" line endings, mixed line
 * lengths averaging ~53 bytes, some non-ASCII), identical for a given seed.
 * Lines come from a seeded pool of 4096 so 100 MB builds in well under a
 * second; the hashers do the same work on repeated lines as on unique ones.
 */
export function sourceLikeText(size: number, seed = 20260501): Uint8Array {
  const rand = prng(seed);
  const encoder = new TextEncoder();
  const pool = Array.from({ length: 4096 }, () => encoder.encode(`${makeLine(rand)}\n`));
  const out = new Uint8Array(size);
  let at = 0;
  while (at < size) {
    const line = pool[Math.floor(rand() * pool.length)];
    const n = Math.min(line.length, size - at);
    out.set(n === line.length ? line : line.subarray(0, n), at);
    at += n;
  }
  return out;
}
