/**
 * The durable-write floor: a temp file with the same bytes, `fdatasync`,
 * rename over the target. Any flushed atomic write of those bytes costs at
 * least this on the disk at hand; an edit is measured against it.
 */
import { closeSync, fdatasyncSync, openSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";

/** One floor write per call, in `dir`. */
export function floorWrite(dir: string, bytes: Uint8Array): () => void {
  const target = join(dir, "floor.txt");
  const temp = join(dir, ".floor.tmp");
  return () => {
    const fd = openSync(temp, "w", 0o644);
    try {
      writeSync(fd, bytes);
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, target);
  };
}
