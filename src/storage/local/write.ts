/**
 * Writing for local storage: a temp file with a random name next to the
 * target, proven to have landed inside the root, then renamed (or linked)
 * into place.
 */
import * as fsSync from "node:fs";
import { constants } from "node:fs";
import { basename, dirname, sep } from "node:path";
import { isInside } from "../containment.ts";
import { FsError } from "../errors.ts";
import { baseName } from "../path.ts";
import type { Version, WriteCondition, WriteResult } from "../types.ts";
import { dataSync, writeAll } from "./io.ts";
import { fsErrorFromNode, nodeErrorCode } from "./node-errors.ts";
import { openFilePath } from "./proc-fd.ts";
import { joinReal, type LocalContext, type Resolved, step } from "./resolve.ts";
import { tempNameFor } from "./temp-name.ts";

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW;

/** Remove a temp file if it is there; a failure leaves it for `cleanTempFiles`. */
function removeQuietly(path: string): void {
  try {
    fsSync.rmSync(path, { force: true });
  } catch {
    // Swept at the next start-up.
  }
}

/** Create the missing parent directories one at a time, each checked to be inside. */
function makeParents(ctx: LocalContext, resolved: Resolved, path: string): string {
  let dir = resolved.parent;
  for (const name of resolved.missingDirs) {
    const next = joinReal(dir, name);
    try {
      fsSync.mkdirSync(next);
      dir = next;
    } catch (error) {
      if (nodeErrorCode(error) !== "EEXIST") throw fsErrorFromNode(error, "mkdir", path);
      // A concurrent creator won: accept it only if it is a directory inside.
      const found = step(ctx, dir, name, path);
      if (!found?.stats.isDirectory()) throw new FsError("FS_NOT_DIRECTORY", `not a directory: ${path}`, { path });
      dir = found.real;
    }
  }
  return dir;
}

/** Write `bytes` to a fresh temp file in `dir` and prove it landed inside the root. */
async function writeTemp(
  ctx: LocalContext,
  dir: string,
  name: string,
  bytes: Uint8Array,
  mode: number | undefined,
  path: string,
): Promise<string> {
  const tempName = tempNameFor(name);
  const temp = joinReal(dir, tempName);
  let fd: number;
  try {
    fd = fsSync.openSync(temp, TEMP_FLAGS, mode ?? 0o666);
  } catch (error) {
    throw fsErrorFromNode(error, "open", path);
  }
  try {
    await writeAll(fd, bytes);
    // open() applied the umask; an overwrite keeps the old file's exact mode.
    if (mode !== undefined) fsSync.fchmodSync(fd, mode);
    if (ctx.fsync) await dataSync(fd);
    // The kernel's name for the temp file, when it is exactly where it was created (`dir` is a real
    // path inside the root), proves it in one call; otherwise check the directory the long way.
    if (openFilePath(fd) !== temp) {
      const held = fsSync.fstatSync(fd);
      const realDir = fsSync.realpathSync(dir);
      const there = fsSync.lstatSync(joinReal(realDir, tempName));
      if (!isInside(ctx.realRoot, realDir, sep) || there.dev !== held.dev || there.ino !== held.ino) {
        throw new FsError("FS_ACCESS_DENIED", `directory changed during the write: ${path}`, { path });
      }
    }
  } catch (error) {
    fsSync.closeSync(fd);
    removeQuietly(temp);
    throw fsErrorFromNode(error, "write", path);
  }
  fsSync.closeSync(fd);
  return temp;
}

/**
 * Put `bytes` in place of the resolved target (under its lock, condition
 * already checked): temp file, then rename over it or link it into place.
 */
export async function replaceTarget(
  ctx: LocalContext,
  path: string,
  bytes: Uint8Array,
  condition: WriteCondition,
  resolved: Resolved,
  version: Version,
): Promise<WriteResult> {
  const existing = resolved.stats;
  if (existing) {
    // A read-only file stays read-only: the rename below would not ask permission.
    try {
      fsSync.accessSync(resolved.real, constants.W_OK);
    } catch (error) {
      throw fsErrorFromNode(error, "access", path);
    }
  }
  const dir = existing ? dirname(resolved.real) : makeParents(ctx, resolved, path);
  const target = existing ? resolved.real : joinReal(dir, baseName(path));
  const mode = existing ? existing.mode & 0o7777 : undefined;
  const temp = await writeTemp(ctx, dir, basename(target), bytes, mode, path);
  try {
    if (condition.kind === "ifAbsent") {
      // link() never replaces: it fails with EEXIST if anyone, in any process, created the target.
      fsSync.linkSync(temp, target);
    } else {
      fsSync.renameSync(temp, target);
    }
  } catch (error) {
    if (nodeErrorCode(error) === "EEXIST") {
      throw new FsError("FS_ALREADY_EXISTS", `already exists: ${path}`, { cause: error, path });
    }
    throw fsErrorFromNode(error, condition.kind === "ifAbsent" ? "link" : "rename", path);
  } finally {
    if (condition.kind === "ifAbsent") removeQuietly(temp);
  }
  return { version, created: !existing };
}
