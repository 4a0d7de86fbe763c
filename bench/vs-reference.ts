/**
 * Side by side with the reference MCP filesystem server
 * (@modelcontextprotocol/server-filesystem, stdio, on Node), both driven by
 * the same MCP client (@modelcontextprotocol/sdk Client; for stdio with our
 * own transport, see ./lib/stdio-transport.ts for why) over the same files:
 * ours is `toolwarden serve` on Bun over Streamable HTTP, the way a remote
 * agent reaches it, so our numbers include HTTP and the reference's only a
 * pipe; the small edits are also run against `toolwarden mcp` on Bun over
 * stdio, the way a local agent launches it, the reference's own transport.
 *
 *   bun bench/vs-reference.ts [--quick] [--no-history] [--json out.json]
 *
 * Workloads (ours vs theirs):
 *   - read a 10 MB file: view with the output bounds lifted (every line
 *     rendered with its id) vs read_text_file;
 *   - 200 sequential single edits of a 1k-line file: edit vs edit_file;
 *   - 200 sequential 3-line edits: batch_edit (3 replaces by id) vs
 *     edit_file with 3 edits;
 *   - beside both edit loops, the write floor: 200 flushed atomic writes of
 *     the same 1k-line bytes (temp write, fdatasync, rename), so the best
 *     ratio any flushed edit could reach is printed next to ours;
 *   - the same two edit loops with ours over stdio (audit log on, as
 *     `toolwarden mcp` runs), alternating with the reference and the floor;
 *     the single edits also with a minimal flushed edit server (read,
 *     replace, flushed write, no checks: ./lib/minimal-edit-server.mjs), the
 *     best ratio any flushed server reaches with this client and transport;
 *   - single edits of a 100k-line (4.9 MB) file: edit vs edit_file;
 *   - listing a 5,000-file tree: view with depth 20 (bounded: 500 entries
 *     shown, line counts read for them) vs directory_tree (every entry);
 *     and one directory of 250 entries: view vs list_directory.
 * Contenders alternate block by block; a ratio is theirs/ours per block.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { formatHash, lineHash } from "../src/hash/fnv.ts";
import type { ToolResult } from "../src/result.ts";
import { codeText, tempDir, writeTree } from "./lib/fixtures.ts";
import { ROOT } from "./lib/machine.ts";
import { floorWrite } from "./lib/floor.ts";
import { alternate, settleDisk } from "./lib/measure.ts";
import { row, type Row, type Section, renderTable } from "./lib/report.ts";
import { startServer } from "./lib/server.ts";
import { BunStdioTransport } from "./lib/stdio-transport.ts";
import { ratios, summarise } from "./lib/stats.ts";
import type { SectionOptions } from "./tools.ts";
import { UNBOUNDED } from "./tools.ts";
import { type EditFile, writeEditFile } from "./lib/workloads.ts";

const MINIMAL = join(ROOT, "bench", "lib", "minimal-edit-server.mjs");
const REFERENCE = join(ROOT, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js");
const EDITS = 200;
/**
 * Untimed edits of each server before its edit loops are timed: a fresh Bun process takes ~1,000 edits
 * to reach its steady speed (JIT tiers: 2.6 ms per edit over stdio for the first 100, ~1.0 ms from the
 * 1,000th), the reference about as many; an edit loop's steady state is what the targets are about.
 */
const STEADY_EDITS = 1000;

type Call = (name: string, args: Record<string, unknown>) => Promise<ToolResult>;

async function connect(transport: BunStdioTransport | StreamableHTTPClientTransport): Promise<{ call: Call; close(): Promise<void> }> {
  const client = new Client({ name: "toolwarden-bench", version: "1" });
  await client.connect(transport);
  return {
    async call(name, args) {
      const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 300_000 })) as ToolResult;
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content).slice(0, 300)}`);
      return result;
    },
    close: () => client.close(),
  };
}

function toggle(k: number, state: number): string {
  return `    let toggle${k} = ${state}; // edited by the benchmark`;
}

/** Calls that flip the edit line of `file` (ours: edit; theirs: edit_file with one edit). */
function singleEdits(file: EditFile, call: Call, ours: boolean, abs: string) {
  let state = 0;
  return async () => {
    const [from, to] = [toggle(9, state), toggle(9, 1 - state)];
    if (ours) await call("edit", { path: file.path, old_string: from, new_string: to });
    else await call("edit_file", { path: join(abs, file.path), edits: [{ oldText: from, newText: to }] });
    state = 1 - state;
  };
}

/** Calls that flip the three batch lines (ours: batch_edit by id; theirs: edit_file with three edits). */
function tripleEdits(file: EditFile, call: Call, ours: boolean, abs: string) {
  let state = 0;
  return async () => {
    if (ours) {
      const operations = file.targets.map((line, k) => ({
        operation: "replace",
        start: `${line}:${formatHash(lineHash(toggle(k, state)))}`,
        content: toggle(k, 1 - state),
      }));
      await call("batch_edit", { path: file.path, operations });
    } else {
      const edits = file.targets.map((_, k) => ({ oldText: toggle(k, state), newText: toggle(k, 1 - state) }));
      await call("edit_file", { path: join(abs, file.path), edits });
    }
    state = 1 - state;
  };
}

/** Run the reference comparison section. */
export async function runReference(options: SectionOptions): Promise<Section> {
  const dir = tempDir("tw-bench-ref-");
  const rows: Row[] = [];
  const notes: string[] = [];
  const work = join(dir.path, "ws");
  mkdirSync(work, { recursive: true });
  await Bun.write(join(work, "big.txt"), codeText(200_000));
  const bigMB = Bun.file(join(work, "big.txt")).size / 1e6;
  const files = {
    ours: writeEditFile(work, "ours-1k.txt", 1_000),
    oursStdio: writeEditFile(work, "ours-stdio-1k.txt", 1_000),
    theirs: writeEditFile(work, "theirs-1k.txt", 1_000),
    minimal: writeEditFile(work, "minimal-1k.txt", 1_000),
    oursBig: writeEditFile(work, "ours-100k.txt", 100_000),
    theirsBig: writeEditFile(work, "theirs-100k.txt", 100_000),
  };
  writeTree(join(work, "tree"), { top: 20, sub: 10, files: 25, linesPerFile: 30 });

  // `--no-history` shows what the audit log costs; by default ours records every call, as `serve` does.
  const noHistory = process.argv.includes("--no-history");
  const server = await startServer("bun", work, UNBOUNDED, noHistory ? ["--no-history"] : []);
  if (noHistory) notes.push("ours ran with --no-history: no audit log");
  const ours = await connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
  const theirs = await connect(new BunStdioTransport(["node", REFERENCE, work]));
  const stdioState = noHistory ? ["--no-history"] : ["--state", join(dir.path, "stdio-state")];
  const oursStdio = await connect(new BunStdioTransport([process.execPath, join(ROOT, "src", "cli.ts"), "mcp", work, "--quiet", ...stdioState]));
  const minimal = await connect(new BunStdioTransport([process.execPath, MINIMAL, work]));
  try {
    // Our edits need the file seen in the session first (the reference has no such guard).
    await ours.call("view", { path: files.ours.path, start: 1, end: 1 });
    await oursStdio.call("view", { path: files.oursStdio.path, start: 1, end: 1 });
    type Run = () => Promise<unknown>;
    const compare = async (
      id: string,
      label: string,
      run: { ours: Run; theirs: Run; floor?: Run; minimal?: Run },
      rounds: number,
      perCall = 1,
      over = "HTTP",
    ) => {
      const samples = await alternate(
        [
          { name: "ours", run: run.ours },
          { name: "theirs", run: run.theirs },
          ...(run.floor ? [{ name: "floor", run: run.floor }] : []),
          ...(run.minimal ? [{ name: "minimal", run: run.minimal }] : []),
        ],
        // Every sample starts with the disk written back: the reference writes without flushing, and its
        // writes would otherwise be flushed inside our next fdatasync (or the floor's), and timed there.
        // The edit loops are timed in their steady state: STEADY_EDITS untimed edits of each server first.
        { rounds, warmup: perCall > 1 ? Math.ceil(STEADY_EDITS / perCall) : 1, settle: settleDisk },
      );
      const per = (xs: number[]) => xs.map((ms) => ms / perCall);
      rows.push(row(`${id}.ours`, `${label}: toolwarden (MCP over ${over}, Bun)`, "ms", summarise(per(samples.ours))));
      rows.push(row(`${id}.theirs`, `${label}: reference (MCP over stdio, Node)`, "ms", summarise(per(samples.theirs))));
      if (run.floor) {
        rows.push(row(`${id}.floor`, `${label}: the write floor alone (temp write + fdatasync + rename)`, "ms", summarise(per(samples.floor))));
        rows.push(
          row(
            `${id}.ceiling`,
            "  the best ratio a flushed edit could reach: reference time / floor time",
            "x",
            summarise(ratios(samples.theirs, samples.floor)),
            {
              note: "an edit that flushes cannot take less than the floor",
            },
          ),
        );
      }
      if (run.minimal) {
        rows.push(row(`${id}.minimal`, `${label}: a minimal flushed edit server (no checks, MCP over stdio, Bun)`, "ms", summarise(per(samples.minimal))));
        rows.push(
          row(
            `${id}.minimal-ceiling`,
            "  the ratio a server with no checks reaches: reference time / minimal time",
            "x",
            summarise(ratios(samples.theirs, samples.minimal)),
            {
              note: "read, replace, flushed write and nothing else (bench/lib/minimal-edit-server.mjs)",
            },
          ),
        );
      }
      return ratios(samples.theirs, samples.ours);
    };

    const read = await compare(
      "ref.read",
      `read a ${bigMB.toFixed(1)} MB file`,
      {
        ours: () => ours.call("view", { path: "big.txt" }),
        theirs: () => theirs.call("read_text_file", { path: join(work, "big.txt") }),
      },
      options.quick ? 3 : 9,
    );
    rows.push(
      row("ref.read.ratio", "whole-file read, our time / reference time", "x", summarise(read.map((r) => 1 / r)), {
        target: { kind: "max", value: 1.3 },
        note: "ours renders every line with its id",
      }),
    );

    // 200 sequential edits as blocks that alternate between the servers.
    const blocks = options.quick ? 2 : 4;
    const perBlock = EDITS / blocks;
    const block = (f: () => unknown) => async () => {
      for (let i = 0; i < perBlock; i++) await f();
    };
    const floorDir = join(dir.path, "floor");
    mkdirSync(floorDir);
    const floor = block(floorWrite(floorDir, new Uint8Array(readFileSync(join(work, files.ours.path)))));
    // Issue 20: at least 2x the reference's edit throughput with every write flushed. Ours over HTTP (a
    // remote agent), then over stdio: the reference's own transport, as a local agent launches either.
    // Beside the stdio single edits: a server with no checks at all, the transport and the disk left.
    const minimalEdits = block(singleEdits(files.minimal, minimal.call, true, work));
    const loops = [
      { over: "HTTP", id: "", file: files.ours, call: ours.call, both: "", minimal: undefined },
      { over: "stdio", id: "-stdio", file: files.oursStdio, call: oursStdio.call, both: ", both over stdio", minimal: minimalEdits },
    ];
    for (const { over, id, file, call, both, minimal: bare } of loops) {
      for (const [kind, edits, what] of [
        ["edit", singleEdits, "single edits"],
        ["batch", tripleEdits, "three-line edits (batch_edit vs edit_file)"],
      ] as const) {
        const ratio = await compare(
          `ref.${kind}${id}`,
          `${EDITS} ${kind === "edit" ? "single" : "three-line"} edits of a 1k-line file, per edit`,
          {
            ours: block(edits(file, call, true, work)),
            theirs: block(edits(files.theirs, theirs.call, false, work)),
            floor,
            minimal: kind === "edit" ? bare : undefined,
          },
          blocks,
          perBlock,
          over,
        );
        rows.push(row(`ref.${kind}${id}.ratio`, `${what}${both}: our throughput / reference`, "x", summarise(ratio), { target: { kind: "min", value: 2 } }));
      }
    }

    // Issue 20: an edit of a 100k-line file at least 5x the reference's throughput.
    await ours.call("view", { path: files.oursBig.path, start: 1, end: 1 });
    const big = await compare(
      "ref.edit-big",
      `single edits of a ${(Bun.file(join(work, files.oursBig.path)).size / 1e6).toFixed(1)} MB (100k-line) file, per edit`,
      {
        ours: singleEdits(files.oursBig, ours.call, true, work),
        theirs: singleEdits(files.theirsBig, theirs.call, false, work),
      },
      options.quick ? 4 : 12,
    );
    rows.push(row("ref.edit-big.ratio", "100k-line edits, our throughput / reference throughput", "x", summarise(big), { target: { kind: "min", value: 5 } }));

    const tree = await compare(
      "ref.tree",
      "list a 5,000-file tree recursively",
      {
        ours: () => ours.call("view", { path: "tree", depth: 20 }),
        theirs: () => theirs.call("directory_tree", { path: join(work, "tree") }),
      },
      options.quick ? 3 : 9,
    );
    rows.push(row("ref.tree.ratio", "recursive listing, our throughput / reference", "x", summarise(tree)));
    const flat = await compare(
      "ref.list",
      "list one directory of 250 entries",
      {
        ours: () => ours.call("view", { path: "tree/pkg0" }),
        theirs: () => theirs.call("list_directory", { path: join(work, "tree", "pkg0") }),
      },
      options.quick ? 5 : 15,
    );
    rows.push(row("ref.list.ratio", "one-directory listing, our throughput / reference", "x", summarise(flat)));
  } finally {
    await ours.close().catch(() => {});
    await oursStdio.close().catch(() => {});
    await minimal.close().catch(() => {});
    await theirs.close().catch(() => {});
    await server.stop();
    dir.remove();
  }
  notes.push("ratio rows: throughput ratios are reference time / our time per block (>1: we are faster); the read row is our time / theirs");
  notes.push(
    "ours: local storage with SHA-256 versions, edits are compare-and-swap writes with fsync and return a diff with fresh ids; the reference writes in place without fsync",
  );
  notes.push("each sample starts after `sync`: no contender's unflushed writes are flushed, and timed, inside another's fsync");
  notes.push("tree listing: ours walks every entry but shows 500 and reads those files to count lines; the reference returns every entry as JSON");
  return { name: "reference", rows, notes };
}

if (import.meta.main) {
  const quick = process.argv.includes("--quick");
  const jsonAt = process.argv.indexOf("--json");
  const section = await runReference({ quick });
  console.log(renderTable([section]));
  if (jsonAt !== -1) writeFileSync(process.argv[jsonAt + 1], JSON.stringify(section, null, 2));
}
