/**
 * The hot paths' stat (src/storage/local/stat.ts) says what node:fs says,
 * on the runtime running the tests and on Deno, where it takes Deno's own
 * calls: kind, size, mode, owner, inode, links (0 once unlinked, which the
 * audit log's append checks) and mtime; and a miss throws a Node-style
 * error with its code.
 */
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, tempDir } from "../helpers/cli.ts";

const deno = join(ROOT, "node_modules", ".bin", "deno");

// Run by both runtimes: compares stat.ts with node:fs on the same objects and prints the differences.
const PROBE = `
import * as fs from "node:fs";
import { fstatFd, lstatPath } from ${JSON.stringify(join(ROOT, "src", "storage", "local", "stat.ts"))};
const dir = process.argv[process.argv.length - 1];
const fields = ["size", "mtimeMs", "mode", "uid", "gid", "ino", "dev", "nlink"];
const out = [];
const same = (what, a, b) => {
  for (const f of fields) if (Number(a[f]) !== Number(b[f])) out.push(what + " " + f + ": " + a[f] + " vs " + b[f]);
  if (a.isFile() !== b.isFile()) out.push(what + " isFile");
  if (a.isDirectory() !== b.isDirectory()) out.push(what + " isDirectory");
};
fs.writeFileSync(dir + "/f.txt", "hello\\n", { mode: 0o640 });
fs.mkdirSync(dir + "/d");
fs.symlinkSync("f.txt", dir + "/link");
const fd = fs.openSync(dir + "/f.txt", "a");
same("fstat file", fstatFd(fd), fs.fstatSync(fd));
same("lstat file", lstatPath(dir + "/f.txt"), fs.lstatSync(dir + "/f.txt"));
same("lstat dir", lstatPath(dir + "/d"), fs.lstatSync(dir + "/d"));
same("lstat link", lstatPath(dir + "/link"), fs.lstatSync(dir + "/link"));
if (lstatPath(dir + "/link").isFile()) out.push("a symlink is not a file");
fs.unlinkSync(dir + "/f.txt");
if (fstatFd(fd).nlink !== 0) out.push("unlinked file nlink " + fstatFd(fd).nlink);
try { lstatPath(dir + "/missing"); out.push("missing: no error"); } catch (e) { if (e.code !== "ENOENT") out.push("missing: code " + e.code); }
fs.closeSync(fd);
try { fstatFd(fd); out.push("closed fd: no error"); } catch (e) { if (e.code !== "EBADF") out.push("closed fd: code " + e.code); }
console.log(JSON.stringify({ deno: typeof Deno !== "undefined", out }));
`;

function probe(command: string[]): { deno: boolean; out: string[] } {
  const dir = tempDir();
  try {
    const script = join(dir.path, "probe.mjs");
    writeFileSync(script, PROBE);
    const work = join(dir.path, "w");
    mkdirSync(work);
    const run = spawnSync(command[0], [...command.slice(1), script, work], { encoding: "utf8", cwd: ROOT });
    expect(run.stderr).toBe("");
    return JSON.parse(run.stdout);
  } finally {
    dir.remove();
  }
}

test("the hot paths' stat agrees with node:fs on this runtime", () => {
  expect(probe([process.execPath])).toEqual({ deno: false, out: [] });
});

test.skipIf(!existsSync(deno))("on Deno, where it takes Deno's own calls, it agrees with node:fs too", () => {
  expect(probe([deno, "run", "--quiet", "--allow-all", "--no-config"])).toEqual({ deno: true, out: [] });
});
