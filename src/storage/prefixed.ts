/**
 * A storage seen through a folder of another: `prefixedStorage(s, "a/b")`
 * reads and writes `a/b/<path>` of `s`, and lists with paths relative to
 * `a/b`. For toolwarden's own state kept inside a workspace's storage
 * (under the reserved segment the guard refuses to tools).
 */
import type { ListOptions, ReadOptions, ScanFileOptions, Storage, Version, WriteCondition } from "./types.ts";

export function prefixedStorage(inner: Storage, prefix: string): Storage {
  const base = prefix.replace(/\/+$/, "");
  const at = (path: string) => (path === "" ? base : `${base}/${path}`);
  const strip = (path: string) => (path === base ? "" : path.slice(base.length + 1));
  return {
    kind: inner.kind,
    ...(inner.root === undefined ? {} : { root: base === "" ? inner.root : `${inner.root.replace(/\/+$/, "")}/${base}` }),
    ...(inner.readStream ? { readStream: (path: string) => inner.readStream!(at(path)) } : {}),
    ...(inner.scanFile ? { scanFile: <T>(path: string, options: ScanFileOptions<T>) => inner.scanFile!(at(path), options) } : {}),
    ...(inner.endScan ? { endScan: () => inner.endScan!() } : {}),
    ...(inner.scanAhead ? { scanAhead: (paths: readonly string[]) => inner.scanAhead!(paths.map(at)) } : {}),
    async stat(path: string) {
      const s = await inner.stat(at(path));
      return s && { ...s, path: strip(s.path) };
    },
    read: (path: string, options?: ReadOptions) => inner.read(at(path), options),
    write: (path: string, bytes: Uint8Array, condition?: WriteCondition) => inner.write(at(path), bytes, condition),
    async list(path: string, options?: ListOptions) {
      const listing = await inner.list(at(path), options);
      return { ...listing, entries: listing.entries.map((e) => ({ ...e, path: strip(e.path) })) };
    },
    delete: (path: string, options?: { ifVersion?: Version }) => inner.delete(at(path), options),
  };
}
