/**
 * A hostile local layout for the reliability suites: a workspace `ws` with
 * symlinks (to files and directories outside, to the parent, dangling, a
 * loop), a FIFO, and canary files outside it (`outside/`, the sibling
 * workspace `ws-evil/`, the parent itself) whose bytes and inodes prove that
 * nothing outside was read or written. Plus the real `toolwarden serve`
 * over it (a subprocess on a real port), and byte-exact tree snapshots.
 */
import type { Scope } from "../../../src/scopes.ts";
import { spawnSync } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { startServe, type ServeProcess } from "../cli.ts";
import { LOCAL_LINKS, WORKSPACE_FILES } from "./corpus-paths.ts";

/** The layout on disk. */
export interface LocalFixture {
  /** Real path of the temp directory holding everything. */
  readonly base: string;
  /** The served workspace. */
  readonly ws: string;
  /** The sibling workspace whose name starts with the served one's. */
  readonly wsEvil: string;
  /** Canary files outside `ws` (path relative to `base` -> content). Each content holds a unique marker. */
  readonly canaries: ReadonlyMap<string, string>;
  /** The unique markers inside the canaries: no response may ever contain one. */
  readonly markers: readonly string[];
  remove(): void;
}

function marker(name: string): string {
  return `CANARY-${name}-${crypto.randomUUID()}`;
}

/** Build the layout in a fresh temp directory (symlinks and a FIFO included). */
export function makeLocalFixture(): LocalFixture {
  // realpath: macOS-style /tmp symlinks would otherwise make "outside" ambiguous.
  const base = spawnSync("realpath", [mkdtempSync(join(tmpdir(), "tw-rel-"))], { encoding: "utf8" }).stdout.trim();
  const ws = join(base, "ws");
  const wsEvil = join(base, "ws-evil");
  const canaries = new Map<string, string>([
    ["secret.txt", `${marker("parent")}\n`],
    ["inside.txt", `${marker("parent-inside")}\n`],
    ["outside/secret.txt", `${marker("outside")}\n`],
    ["ws-evil/canary.txt", `${marker("ws-evil")}\n`],
    ["ws-evil/secret.txt", `${marker("ws-evil-secret")}\n`],
  ]);
  for (const [path, content] of canaries) {
    mkdirSync(dirname(join(base, path)), { recursive: true });
    writeFileSync(join(base, path), content);
  }
  for (const [path, content] of Object.entries(WORKSPACE_FILES)) {
    mkdirSync(dirname(join(ws, path)), { recursive: true });
    writeFileSync(join(ws, path), content);
  }
  for (const [path, target] of Object.entries(LOCAL_LINKS)) symlinkSync(target, join(ws, path));
  symlinkSync(join(base, "outside/secret.txt"), join(ws, "link-abs"));
  symlinkSync("inside.txt", join(ws, "link-inside"));
  const fifo = spawnSync("mkfifo", [join(ws, "fifo")]);
  if (fifo.status !== 0) throw new Error(`mkfifo failed: ${fifo.stderr}`);
  return {
    base,
    ws,
    wsEvil,
    canaries,
    markers: [...canaries.values()].map((c) => c.trim()),
    remove: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** Files larger than this are compared by metadata, not bytes (see {@link snapshotTree}). */
const BIG_FILE = 1 << 20;

/**
 * Every entry under `dir` (not following symlinks), as path -> a string that
 * changes when the entry's kind, bytes (over 1 MiB: ctime), inode or link target does. Paths are
 * relative to `dir`; names under `skip` (relative too) are left out.
 */
export function snapshotTree(dir: string, skip: readonly string[] = []): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const full = join(at, name);
      const rel = relative(dir, full);
      if (skip.includes(rel)) continue;
      const st = lstatSync(full);
      if (st.isSymbolicLink()) out.set(rel, `link:${readlinkSync(full)}`);
      else if (st.isDirectory()) {
        out.set(rel, `dir:${st.ino}`);
        walk(full);
      } else if (st.isFile()) {
        // Big files by inode and change time (any write updates ctime; a replacement changes the inode), small ones by bytes too.
        const bytes = st.size <= BIG_FILE ? `:${Bun.hash(readFileSync(full))}` : `:${st.ctimeMs}:${st.mtimeMs}`;
        out.set(rel, `file:${st.ino}:${st.size}${bytes}`);
      } else out.set(rel, `special:${st.ino}:${st.mode}`);
    }
  };
  walk(dir);
  return out;
}

/** Entries of `after` that are new, gone or changed compared to `before`. */
export function treeChanges(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
  const changes: string[] = [];
  for (const [path, sig] of after) {
    if (!before.has(path)) changes.push(`+ ${path}`);
    else if (before.get(path) !== sig) changes.push(`~ ${path}`);
  }
  for (const path of before.keys()) if (!after.has(path)) changes.push(`- ${path}`);
  return changes.sort();
}

/** A token of the served config. */
export interface ServeToken {
  readonly token: string;
  readonly scopes: readonly Scope[];
  /** Directory relative to the fixture base (default "ws"). */
  readonly workspace?: string;
  readonly label: string;
}

/** Options of {@link serveFixture}. */
export interface ServeFixtureOptions {
  readonly tokens: readonly ServeToken[];
  readonly shell?: boolean;
  readonly limits?: Record<string, number>;
}

/**
 * Start the real `toolwarden serve` on `ws` with a config file naming the
 * tokens. The config sits in the fixture base, outside the workspace: it is
 * one more canary (it holds every token, and no response may show one).
 */
export async function serveFixture(fixture: LocalFixture, options: ServeFixtureOptions): Promise<ServeProcess> {
  const config = {
    tokens: options.tokens.map((t) => ({
      token: t.token,
      scopes: t.scopes,
      workspace: join(fixture.base, t.workspace ?? "ws"),
      label: t.label,
    })),
    shell: { enabled: options.shell ?? false },
    ...(options.limits ? { limits: options.limits } : {}),
  };
  const file = join(fixture.base, "toolwarden.json");
  writeFileSync(file, JSON.stringify(config));
  return startServe([fixture.ws, "--port", "0", "--config", file, "--quiet"]);
}
