import { expect, test } from "bun:test";
import { FsError } from "../../src/storage/errors.ts";
import { fsErrorFromNode } from "../../src/storage/local/node-errors.ts";

function nodeError(code: string): Error {
  return Object.assign(new Error(`${code}: something, open '/home/user/secret/ws/a.txt'`), { code });
}

test("node error codes map to storage codes, with the original chained", () => {
  const table: Array<[string, string]> = [
    ["ENOENT", "FS_NOT_FOUND"],
    ["ENOTDIR", "FS_NOT_DIRECTORY"],
    ["EISDIR", "FS_IS_DIRECTORY"],
    ["EACCES", "FS_ACCESS_DENIED"],
    ["EPERM", "FS_ACCESS_DENIED"],
    ["ELOOP", "FS_ACCESS_DENIED"],
    ["ENAMETOOLONG", "FS_INVALID_PATH"],
    ["EIO", "FS_IO_ERROR"],
    ["ENOSPC", "FS_IO_ERROR"],
  ];
  for (const [nodeCode, code] of table) {
    const original = nodeError(nodeCode);
    const mapped = fsErrorFromNode(original, "open", "a.txt");
    expect({ nodeCode, code: mapped.code as string }).toEqual({ nodeCode, code });
    expect(mapped.cause).toBe(original);
    expect(mapped.path).toBe("a.txt");
    // The message names the workspace path only, never the host's absolute path; a refusal by
    // file permissions says so (it is not the workspace boundary).
    const permission = nodeCode === "EACCES" || nodeCode === "EPERM";
    expect(mapped.message).toBe(permission ? `permission denied (open, ${nodeCode}): a.txt` : `open failed (${nodeCode}): a.txt`);
    expect(mapped.permission).toBe(permission ? true : undefined);
  }
});

test("an error without a code is an I/O error; an FsError passes through", () => {
  expect(fsErrorFromNode(new Error("odd"), "read", "f").code).toBe("FS_IO_ERROR");
  const already = new FsError("FS_STALE_VERSION", "version mismatch: f");
  expect(fsErrorFromNode(already, "read", "f")).toBe(already);
});
