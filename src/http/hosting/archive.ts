/**
 * Workspace archives: import a tar or tar.gz stream into a storage, and
 * export a storage as a tar.gz stream. Built on `modern-tar` (web streams,
 * no dependencies; runs on Workers, Bun and Deno) and the platform's
 * DecompressionStream / CompressionStream.
 *
 * An import is streamed: entries are written as they arrive, each with
 * create-if-absent, so nothing is ever overwritten. Hostile archives are
 * refused: names that are absolute, climb with `..`, or break the tools'
 * path rules; links, devices and fifos; duplicate names; more entries,
 * more bytes, or a higher compression ratio than the limits allow (a zip
 * bomb stops at the first chunk past a limit, not after expanding). The
 * caller removes what an import wrote when it fails (see ./registry.ts).
 */
import { createTarDecoder, createTarPacker, type TarHeader } from "modern-tar";
import { CodedError } from "../../errors.ts";
import { isCodedError } from "../../errors.ts";
import { RESERVED_SEGMENT } from "../../storage/guard.ts";
import { ancestorPaths, normalizeWorkspacePath } from "../../storage/path.ts";
import { Cond, type Storage } from "../../storage/types.ts";

/** Bounds of one import. */
export interface ImportLimits {
  /** Most entries (files, directories and refused entries alike). */
  readonly maxEntries: number;
  /** Most bytes of file content in total. */
  readonly maxBytes: number;
  /** Most bytes the gzip layer may expand to per compressed byte (checked past {@link RATIO_FLOOR_BYTES}). */
  readonly maxRatio: number;
  /** Largest single file (each is held in memory while written). Default 64 MiB. */
  readonly maxFileBytes?: number;
}

/** Defaults: 10 000 entries, 256 MiB, ratio 200, files up to 64 MiB. */
export const DEFAULT_IMPORT_LIMITS: ImportLimits = { maxEntries: 10_000, maxBytes: 256 * 1024 * 1024, maxRatio: 200, maxFileBytes: 64 * 1024 * 1024 };

/** Below this many expanded bytes the ratio is not checked (a tar's zero padding compresses extremely well). */
export const RATIO_FLOOR_BYTES = 1024 * 1024;

/** What an import did. */
export interface ImportReport {
  readonly files: number;
  readonly bytes: number;
  /** Directories that hold the imported files (storage keeps a directory only through its files). */
  readonly directories: number;
  /** What the archive held that a workspace does not keep, said rather than dropped silently. */
  readonly notKept?: {
    /** Directory entries with no file under them. */
    readonly emptyDirectories: number;
    /** Files whose archive mode had an execute bit (files are stored without modes). */
    readonly executableModes: number;
  };
}

/** Most problems listed in one refusal. */
const MAX_PROBLEMS = 20;

/** An archive refused for its content; `problems` lists each offending entry. */
export class ArchiveRefusedError extends CodedError {
  constructor(
    readonly problems: readonly string[],
    code: "INVALID_ARGUMENT" | "LIMIT_EXCEEDED" = "INVALID_ARGUMENT",
  ) {
    super(
      code,
      `The archive was refused and nothing of it was kept: ${problems.join("; ")}. ` +
        "Workspace archives hold regular files and directories with relative names inside the workspace; " +
        "fix the archive (e.g. tar --dereference, no absolute or '..' names) and PUT it again.",
    );
    this.name = "ArchiveRefusedError";
  }
}

/** The tools' path rule for one archive name, plus the archive-only refusals; returns the path or a problem. */
export function archivePath(name: string): { path: string } | { problem: string } {
  const shown = JSON.stringify(name.length > 200 ? `${name.slice(0, 200)}...` : name);
  if (name.startsWith("/")) return { problem: `${shown} is an absolute name` };
  if (name.split("/").includes("..")) return { problem: `${shown} climbs with '..'` };
  try {
    const path = normalizeWorkspacePath(name);
    if (path === RESERVED_SEGMENT || path.startsWith(`${RESERVED_SEGMENT}/`))
      return { problem: `${shown} is under ${RESERVED_SEGMENT}/, which is reserved for the workspace's history` };
    return { path };
  } catch (error) {
    return { problem: `${shown}: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** Counts bytes through a stream, calling `check` with the running total (it throws to stop). */
function counter(check: (total: number) => void): TransformStream<Uint8Array, Uint8Array> {
  let total = 0;
  return new TransformStream({
    transform(chunk, controller) {
      total += chunk.byteLength;
      check(total);
      controller.enqueue(chunk);
    },
  });
}

/**
 * Read one entry body into memory (its header's size was checked against
 * the limits). Chunks are gathered as they arrive rather than into a buffer
 * of the declared size, so a header that lies costs no memory up front.
 */
async function readBody(body: ReadableStream<Uint8Array>, size: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let at = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    at += value.byteLength;
    if (at > size) throw new ArchiveRefusedError(["an entry's body is longer than its header says"]);
    chunks.push(value);
  }
  if (at !== size) throw new ArchiveRefusedError(["the archive ends inside an entry (truncated)"]);
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/**
 * Import `body` (tar, or tar.gz when `gzip`) into `target`. Resolves with
 * what was written; rejects with {@link ArchiveRefusedError} (or the
 * storage's own coded error, e.g. LIMIT_EXCEEDED from a quota) and leaves
 * the files written so far for the caller to remove.
 */
export async function importArchive(
  body: ReadableStream<Uint8Array>,
  gzip: boolean,
  target: Storage,
  limits: ImportLimits = DEFAULT_IMPORT_LIMITS,
): Promise<ImportReport> {
  let compressed = 0;
  let tarStream = body;
  if (gzip) {
    tarStream = body
      .pipeThrough(counter((n) => (compressed = n)))
      .pipeThrough(new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>)
      .pipeThrough(
        counter((expanded) => {
          if (expanded > RATIO_FLOOR_BYTES && expanded > limits.maxRatio * Math.max(compressed, 1)) {
            throw new ArchiveRefusedError(
              [`the gzip layer expands more than ${limits.maxRatio} times (${expanded} bytes from ${compressed} so far): refused as a compression bomb`],
              "LIMIT_EXCEEDED",
            );
          }
        }),
      );
  }
  const decoder = createTarDecoder({ strict: true });
  const piped = tarStream.pipeTo(decoder.writable).catch((error: unknown) => error);
  const reader = decoder.readable.getReader();

  const writes = writeQueue(target);
  const seen = seenNames();
  const problems: string[] = [];
  const report = { files: 0, bytes: 0 };
  const declared = new Set<string>(); // directory entries
  const holding = new Set<string>(); // directories with a file under them
  let executables = 0;
  let entries = 0;
  try {
    for (;;) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (error) {
        throw streamFailure(await piped, error);
      }
      if (next.done) break;
      const { header, body: entryBody } = next.value;
      if (++entries > limits.maxEntries) {
        throw new ArchiveRefusedError([`more than ${limits.maxEntries} entries`], "LIMIT_EXCEEDED");
      }
      const problem = entryProblem(header, seen, report.bytes, limits);
      if (problem) {
        await entryBody.cancel().catch(() => undefined);
        if (problem.limit) throw new ArchiveRefusedError([...problems, problem.text], "LIMIT_EXCEEDED");
        problems.push(problem.text);
        // Keep reading to report every refused entry (up to a bound), writing nothing more.
        if (problems.length >= MAX_PROBLEMS) break;
        continue;
      }
      const path = (archivePath(header.name) as { path: string }).path;
      if (header.type === "directory" || path === "") {
        await entryBody.cancel().catch(() => undefined);
        if (path !== "") declared.add(path);
        continue;
      }
      let bytes: Uint8Array;
      try {
        bytes = await readBody(entryBody, header.size);
      } catch (error) {
        // The decoder fails an entry's body when the archive stops inside it: a refusal, not a fault.
        throw error instanceof ArchiveRefusedError ? error : streamFailure(error, error);
      }
      if (problems.length > 0) continue;
      await writes.add(header.name, path, bytes);
      report.files++;
      report.bytes += bytes.length;
      for (let at = path.lastIndexOf("/"); at > 0; at = path.lastIndexOf("/", at - 1)) holding.add(path.slice(0, at));
      if (((header.mode ?? 0) & 0o111) !== 0) executables++;
    }
    await writes.settle();
    if (problems.length > 0) throw new ArchiveRefusedError(problems);
    const failure = await piped;
    if (failure !== undefined) throw streamFailure(failure, failure);
    const emptyDirectories = [...declared].filter((dir) => !holding.has(dir)).length;
    const notKept = emptyDirectories > 0 || executables > 0 ? { notKept: { emptyDirectories, executableModes: executables } } : {};
    return { ...report, directories: holding.size, ...notKept };
  } catch (error) {
    await reader.cancel().catch(() => undefined);
    await body.cancel().catch(() => undefined);
    // Writes still in flight must land (or fail) before the caller removes what was written.
    await writes.settle().catch(() => undefined);
    throw error;
  }
}

/** Writes of one import in flight at once, and bytes held for them: a local write waits on fdatasync. */
const WRITES_IN_FLIGHT = 8;
const BYTES_IN_FLIGHT = 32 * 1024 * 1024;

/**
 * Overlapping create-if-absent writes (entries arrive one after another, but
 * each write may wait on the disk or the network). `add` waits while the
 * queue is full and rejects with the first failure; `settle` waits for all.
 */
function writeQueue(target: Storage) {
  const pending = new Set<Promise<void>>();
  let held = 0;
  let failure: unknown;
  const check = () => {
    if (failure !== undefined) throw failure;
  };
  return {
    async add(name: string, path: string, bytes: Uint8Array): Promise<void> {
      while (pending.size >= WRITES_IN_FLIGHT || (pending.size > 0 && held + bytes.length > BYTES_IN_FLIGHT)) {
        await Promise.race(pending);
        check();
      }
      check();
      held += bytes.length;
      const write = target
        .write(path, bytes, Cond.ifAbsent)
        .then(
          () => undefined,
          (error: unknown) => {
            const refused = isCodedError(error) && error.code.startsWith("FS_");
            failure ??= refused ? new ArchiveRefusedError([`${JSON.stringify(name)} cannot be written (${error.code}: ${error.message})`]) : error;
          },
        )
        .finally(() => {
          held -= bytes.length;
          pending.delete(write);
        });
      pending.add(write);
    },
    async settle(): Promise<void> {
      while (pending.size > 0) await Promise.race(pending);
      check();
    },
  };
}

/** Why an entry is refused, or undefined when it may be written. */
/** The names an import has seen so far: every path, the files, and the directories (declared, or holding an entry). */
interface SeenNames {
  readonly paths: Set<string>;
  readonly files: Set<string>;
  readonly dirs: Set<string>;
}

function seenNames(): SeenNames {
  return { paths: new Set(), files: new Set(), dirs: new Set() };
}

/** Why `path` (a file when `file`) cannot sit beside what the archive already named: a file where a directory must be, or under one. */
function shapeProblem(path: string, file: boolean, seen: SeenNames): string | undefined {
  const parents = ancestorPaths(path);
  const asFile = parents.find((dir) => seen.files.has(dir));
  if (asFile !== undefined)
    return `${JSON.stringify(path)} needs ${JSON.stringify(asFile)} to be a directory, but the archive has ${JSON.stringify(asFile)} as a file`;
  if (file && seen.dirs.has(path)) return `${JSON.stringify(path)} is a file, but the archive also has entries under ${JSON.stringify(`${path}/`)}`;
  if (file) seen.files.add(path);
  else seen.dirs.add(path);
  for (const dir of parents) seen.dirs.add(dir);
  return undefined;
}

function entryProblem(header: TarHeader, seen: SeenNames, bytesSoFar: number, limits: ImportLimits): { text: string; limit?: boolean } | undefined {
  const name = JSON.stringify(header.name);
  const type = header.type ?? "file";
  if (type === "pax-global-header") return undefined;
  if (type === "symlink" || type === "link") {
    return { text: `${name} is a ${type === "link" ? "hard link" : "symbolic link"} (to ${JSON.stringify(header.linkname ?? "")}); links are not imported` };
  }
  if (type !== "file" && type !== "directory") return { text: `${name} is a ${type}; only files and directories are imported` };
  const checked = archivePath(header.name);
  if ("problem" in checked) return { text: checked.problem };
  if (checked.path !== "") {
    if (seen.paths.has(checked.path)) return { text: `${name} appears twice (duplicate names would overwrite each other)` };
    seen.paths.add(checked.path);
    const shape = shapeProblem(checked.path, type === "file", seen);
    if (shape) return { text: shape };
  }
  const maxFile = limits.maxFileBytes ?? DEFAULT_IMPORT_LIMITS.maxFileBytes!;
  if (type === "file" && header.size > maxFile) {
    return { text: `${name} (${header.size} bytes) is larger than the ${maxFile}-byte limit for one file`, limit: true };
  }
  if (type === "file" && bytesSoFar + header.size > limits.maxBytes) {
    return { text: `${name} (${header.size} bytes) takes the archive past its limit of ${limits.maxBytes} bytes of content`, limit: true };
  }
  return undefined;
}

/** The error to report when the byte stream itself failed (bad gzip, bad tar, a limit in a counter). */
function streamFailure(pipeError: unknown, readError: unknown): unknown {
  for (const error of [pipeError, readError]) if (error instanceof ArchiveRefusedError) return error;
  const why = pipeError instanceof Error ? pipeError.message : readError instanceof Error ? readError.message : String(readError);
  return new ArchiveRefusedError([`the body is not a valid archive (${why})`]);
}

/**
 * Every file of `source` as a tar.gz stream, in path order. Files are read
 * whole one at a time, so each entry's size is exact even if the file is
 * rewritten meanwhile; memory holds one file at a time.
 */
export function exportArchive(source: Storage): ReadableStream<Uint8Array> {
  const { readable, controller } = createTarPacker();
  void (async () => {
    try {
      const listing = await source.list("", { recursive: true });
      for (const entry of listing.entries) {
        if (entry.kind !== "file") continue;
        const { bytes } = await source.read(entry.path);
        const sink = controller.add({ name: entry.path, size: bytes.length, type: "file", mode: 0o644 });
        const writer = sink.getWriter();
        if (bytes.length > 0) await writer.write(bytes);
        await writer.close();
      }
      controller.finalize();
    } catch (error) {
      controller.error(error);
    }
  })();
  return readable.pipeThrough(new CompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>);
}
