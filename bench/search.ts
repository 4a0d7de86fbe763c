/**
 * Content search against ripgrep, side by side in one run, on two copies of
 * this repository's node_modules (hard links, so the copy is instant): one
 * without files over 1 MB, one with them (the large binaries: workerd, deno,
 * bun, esbuild...). toolwarden searches with every file in reach ("hidden":
 * true, "gitignore": false) and ripgrep with `--no-ignore --hidden`; both
 * literal. Each round times both; the report prints medians, the ratio, and
 * whether both found the same matching lines.
 *
 *   bun bench/search.ts [--quick] [--rounds N] [--pattern TEXT] [--json out.json]
 *
 * ripgrep is the Debian package `ripgrep`: installed here when missing and
 * apt can, else the comparison column is skipped with a note.
 */
import { spawnSync } from "node:child_process";
import { linkSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expectOk, inProcess } from "./lib/inproc.ts";
import { ROOT } from "./lib/machine.ts";
import { tempDir } from "./lib/fixtures.ts";
import { row, type Row, type Section } from "./lib/report.ts";
import { summarise } from "./lib/stats.ts";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
}

const ROUNDS = Number(arg("--rounds") ?? (process.argv.includes("--quick") ? 3 : 7));
const PATTERN = arg("--pattern") ?? "createServer";
const BIG = 1_000_000;

/** Hard-link every regular file of `from` into `to`, keeping those `keep` accepts. Returns the file count. */
function linkTree(from: string, to: string, keep: (size: number) => boolean): number {
  let files = 0;
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const src = join(from, entry.name);
    const dst = join(to, entry.name);
    if (entry.isDirectory()) files += linkTree(src, dst, keep);
    else if (entry.isFile() && keep(statSync(src).size)) {
      linkSync(src, dst);
      files++;
    }
  }
  return files;
}

function ripgrep(): string | undefined {
  const found = spawnSync("sh", ["-c", "command -v rg"], { encoding: "utf8" }).stdout.trim();
  if (found) return found;
  spawnSync("sh", ["-c", "apt-get install -y -qq ripgrep >/dev/null 2>&1"], { stdio: "ignore" });
  return spawnSync("sh", ["-c", "command -v rg"], { encoding: "utf8" }).stdout.trim() || undefined;
}

/** Matching lines as `path:line`, from ripgrep. */
function rgMatches(rg: string, dir: string): { lines: Set<string>; ms: number } {
  const started = performance.now();
  const r = spawnSync(rg, ["-n", "--no-ignore", "--hidden", "-F", "--no-heading", "--with-filename", "--no-messages", PATTERN, "."], {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  const ms = performance.now() - started;
  const lines = new Set(
    r.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => {
        const m = /^\.\/(.*?):(\d+):/.exec(l);
        return m ? `${m[1]}:${m[2]}` : l;
      }),
  );
  return { lines, ms };
}

/** Matching lines as `path:line` from a toolwarden search result (its path lines and `N:hh|` rows). */
function ourMatches(text: string): Set<string> {
  const out = new Set<string>();
  let file = "";
  for (const line of text.split("\n")) {
    const header = /^(\S.*) \(\d+ matching lines?\)$/.exec(line);
    if (header) {
      file = header[1]!;
      continue;
    }
    const row = /^(?:> )?(\d+):[0-9a-f]{2}\|/.exec(line);
    if (row && file) out.add(`${file}:${row[1]}`);
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

async function main(): Promise<void> {
  const dir = tempDir("tw-bench-search-");
  const rows: Row[] = [];
  const notes: string[] = [];
  try {
    const small = join(dir.path, "small");
    const full = join(dir.path, "full");
    const source = join(ROOT, "node_modules");
    const smallFiles = linkTree(source, small, (size) => size <= BIG);
    const fullFiles = linkTree(source, full, () => true);
    const rg = ripgrep();
    console.log(`search "${PATTERN}": ${smallFiles} files (no file over 1 MB) and ${fullFiles} files (all); ${ROUNDS} rounds`);
    if (!rg) notes.push("ripgrep is not installed and could not be: its rows are skipped");
    notes.push(`pattern "${PATTERN}", literal; trees: ${smallFiles} files without those over 1 MB, ${fullFiles} with them (hard links of node_modules)`);
    for (const [key, name, tree] of [
      ["small", "without large files", small],
      ["full", "with large files", full],
    ] as const) {
      const tools = await inProcess(tree, { limits: { maxOutputBytes: 64 * 1024 * 1024 } });
      const args = { path: ".", content: PATTERN, hidden: true, gitignore: false };
      const ours: number[] = [];
      const theirs: number[] = [];
      let ourSet = new Set<string>();
      let theirSet = new Set<string>();
      let footer = "";
      for (let round = 0; round < ROUNDS; round++) {
        const started = performance.now();
        const text = expectOk(await tools.call("view", args), "search");
        ours.push(performance.now() - started);
        ourSet = ourMatches(text);
        footer = text.split("\n")[0]!;
        if (rg) {
          const r = rgMatches(rg, tree);
          theirs.push(r.ms);
          theirSet = r.lines;
        }
      }
      // The search shows at most 200 matching lines: those must all be ripgrep's, and its count must be ripgrep's.
      const counted = Number(/: (\d+) matching lines? in/.exec(footer)?.[1] ?? -1);
      const same = rg ? [...ourSet].every((l) => theirSet.has(l)) && counted === theirSet.size : undefined;
      const ratio = rg ? (median(ours) / median(theirs)).toFixed(2) : "-";
      console.log(
        `${name}: toolwarden ${median(ours).toFixed(0)} ms, ripgrep ${rg ? median(theirs).toFixed(0) : "-"} ms, ` +
          `ratio ${ratio}x; matching lines ${counted} vs ${rg ? theirSet.size : "-"}${same === undefined ? "" : same ? " (the same)" : " (DIFFERENT)"}`,
      );
      console.log(`  header: ${footer}`);
      rows.push(row(`search.${key}.toolwarden`, `search ${name}: toolwarden`, "ms", summarise(ours)));
      if (rg) {
        rows.push(row(`search.${key}.ripgrep`, `search ${name}: ripgrep`, "ms", summarise(theirs)));
        const ratios = ours.map((v, i) => v / theirs[i]!);
        rows.push(
          row(`search.${key}.ratio`, `search ${name}: toolwarden / ripgrep`, "x", summarise(ratios), {
            target: { kind: "max", value: 3 },
            note: same ? "same matching lines" : "DIFFERENT matching lines",
          }),
        );
      }
      if (same === false) {
        const missing = [...theirSet].filter((l) => !ourSet.has(l)).slice(0, 5);
        const extra = [...ourSet].filter((l) => !theirSet.has(l)).slice(0, 5);
        console.log(`  only ripgrep: ${missing.join(", ")}; only toolwarden: ${extra.join(", ")}`);
      }
    }
  } finally {
    dir.remove();
  }
  const jsonAt = process.argv.indexOf("--json");
  const section: Section = { name: "search", rows, notes };
  if (jsonAt !== -1) writeFileSync(process.argv[jsonAt + 1]!, JSON.stringify(section, null, 2));
}

if (import.meta.main) await main();
