/**
 * The directory-swap race against the real server (issue 13, item 1). A
 * local process exchanges the workspace directory `race/` with a symlink to
 * a directory outside the workspace (renameat2 RENAME_EXCHANGE, every
 * 0.3 ms) while a client views and overwrites `race/f.txt` and creates new
 * files (and new directories) under `race/`, thousands of times. Whatever
 * the timing, nothing outside may change: 0 bytes changed, 0 files created
 * (temp files included). Rounds are counted; in CI the race also runs for
 * at least 30 s (TW_SWAP_RACE_SECONDS overrides), bounded by a round cap.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServe, type ServeProcess } from "../helpers/cli.ts";
import { snapshotTree, treeChanges } from "../helpers/reliability/fixture-local.ts";
import { callTool, codeOf, textOf, toolResult } from "../helpers/reliability/http.ts";

const MIN_ROUNDS = 2000;
const MAX_ROUNDS = 200_000;
const MIN_SECONDS = Number(process.env.TW_SWAP_RACE_SECONDS ?? (process.env.CI ? 30 : 5));
const SWAPPER = join(import.meta.dir, "..", "helpers", "reliability", "swap-dirs.py");

let base: string;
let ws: string;
let outside: string;
let server: ServeProcess;

beforeAll(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "tw-swap-")));
  ws = join(base, "ws");
  outside = join(base, "outside");
  mkdirSync(join(ws, "race"), { recursive: true });
  mkdirSync(outside);
  // The outside directory holds what the race aims at: the same names as inside.
  writeFileSync(join(outside, "f.txt"), "OUTSIDE canary: must never change\n");
  writeFileSync(join(outside, "keep.txt"), "another outside file\n");
  writeFileSync(join(ws, "race", "f.txt"), "inside 0\n");
  symlinkSync(outside, join(ws, "race-swap"));
  server = await startServe([ws, "--port", "0", "--no-auth", "--quiet"]);
});

// Removing the thousands of files the race created took over the 5 s default once on a loaded machine.
afterAll(
  () => {
    server?.kill();
    rmSync(base, { recursive: true, force: true });
  },
  { timeout: 60_000 },
);

/** Every temp file name (`.<name>.tw-<random>.tmp`) under `dir`, not following symlinks. */
function tempFiles(dir: string): string[] {
  return [...snapshotTree(dir).keys()].filter((p) => /\.tw-[0-9a-z]{12}\.tmp$/.test(p));
}

test(
  "a directory swapped for a symlink to outside, in a loop, never lets a view+write, a create or a search out of the root",
  async () => {
    const before = snapshotTree(outside);
    const baseBefore = [...readdirSync(base)].sort();
    const stop = join(base, "stop");
    const swapper = spawn("python3", [SWAPPER, join(ws, "race"), join(ws, "race-swap"), stop, "100000000", "0.0003"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let swapOut = "";
    let swapErr = "";
    swapper.stdout!.setEncoding("utf8").on("data", (d: string) => (swapOut += d));
    swapper.stderr!.setEncoding("utf8").on("data", (d: string) => (swapErr += d));
    const swapperDone = new Promise<number | null>((resolve) => swapper.on("close", resolve));

    const url = server.url;
    const session = "swap-race";
    const tally = { leaks: 0, viewOk: 0, writeOk: 0, createOk: 0, searches: 0, refused: new Map<string, number>() };
    const note = (code: string) => tally.refused.set(code, (tally.refused.get(code) ?? 0) + 1);
    const started = performance.now();
    let rounds = 0;
    try {
      while (rounds < MAX_ROUNDS && (rounds < MIN_ROUNDS || performance.now() - started < MIN_SECONDS * 1000)) {
        rounds++;
        // view + overwrite: the write's checks and its rename straddle the swaps.
        const view = toolResult(await callTool(url, "view", { path: "race/f.txt" }, { session }));
        if (!view.isError) {
          tally.viewOk++;
          // Reads are proven too: a view never shows the outside file.
          if (textOf(view).includes("OUTSIDE")) tally.leaks++;
          const write = toolResult(await callTool(url, "write", { path: "race/f.txt", content: `inside ${rounds}\n` }, { session }));
          if (write.isError) note(codeOf(write));
          else tally.writeOk++;
        } else note(codeOf(view));
        if (rounds % 50 === 0) {
          // A directory search walks and reads through the swaps (of the root, and of race/ itself):
          // the outside files' text may never be a matching row.
          for (const path of [".", "race"]) {
            const found = toolResult(await callTool(url, "view", { path, content: "must never change", hidden: true, gitignore: false }, { session }));
            tally.searches++;
            if (/^\d+:[0-9a-f]{2}\|/m.test(textOf(found))) tally.leaks++;
          }
        }
        // create: a new file, every other round in a new directory (the parent-creation step races too).
        const path = rounds % 2 === 0 ? `race/new-${rounds}.txt` : `race/d-${rounds}/new.txt`;
        const create = toolResult(await callTool(url, "write", { path, content: `created ${rounds}\n` }, { session }));
        if (create.isError) {
          note(codeOf(create));
          // Refusals must be loud and honest: a code and a text, never a success that did nothing.
          expect(textOf(create).length).toBeGreaterThan(0);
        } else tally.createOk++;
      }
    } finally {
      writeFileSync(stop, "");
      await swapperDone;
      rmSync(stop, { force: true });
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `swap race: ${rounds} rounds in ${seconds.toFixed(1)} s, ${swapOut.trim()} swaps; ` +
        `view ok ${tally.viewOk}, write ok ${tally.writeOk}, create ok ${tally.createOk}, searches ${tally.searches}, ` +
        `refused ${JSON.stringify(Object.fromEntries(tally.refused))}`,
    );
    expect(swapErr).toBe("");
    expect(tally.leaks).toBe(0);
    expect(Number(swapOut.trim())).toBeGreaterThan(0);
    // Outside: 0 bytes changed, 0 files created (temp files included), nothing new beside the workspace.
    expect(treeChanges(before, snapshotTree(outside))).toEqual([]);
    expect(tempFiles(outside)).toEqual([]);
    expect([...readdirSync(base)].sort()).toEqual(baseBefore);
    // Inside: no temp file left behind either, and the race did let writes through (it was a race).
    expect(tempFiles(ws)).toEqual([]);
    expect(tally.writeOk + tally.createOk).toBeGreaterThan(0);
    expect(rounds).toBeGreaterThanOrEqual(MIN_ROUNDS);
  },
  { timeout: (MIN_SECONDS + 600) * 1000 },
);
