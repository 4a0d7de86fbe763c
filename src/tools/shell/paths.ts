/**
 * Which paths in a command are project files. Pure: judged from the text
 * and the project root alone, never the file system.
 *
 * `/proc/self/cwd/x` (and `/proc/<pid>/cwd`, `/proc/thread-self/cwd`) is the
 * working directory, which for the `bash` tool is the project; `/proc/self/
 * root/p` is `/p`. Absolute paths are normalised lexically (`//`, `.`, `..`)
 * before they are compared with the root, so `/tmp/../srv/project/x` is
 * inside `/srv/project`.
 */
import type { ShellWord } from "./lex.ts";

/** Absolute paths under these are system files, not project files, when the project root is unknown. */
const SYSTEM_DIRS = ["/dev", "/proc", "/sys", "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/boot", "/run", "/var/log"];

const PROC_CWD = /^\/proc\/(?:self|thread-self|\d+)\/cwd(?=\/|$)/;
const PROC_ROOT = /^\/proc\/(?:self|thread-self|\d+)\/root(?=\/|$)/;
/** Streams, not files: reading them reads whatever the shell connected (judged by the redirections instead). */
const STREAM = /^\/(?:dev\/(?:stdin|fd\/\d+)|proc\/(?:self|thread-self|\d+)\/fd\/\d+)$/;

/** `/a//b/./c/../d` -> `/a/b/d`; `..` never climbs above `/`. */
export function normalizeAbsolute(path: string): string {
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return `/${parts.join("/")}`;
}

/** `./src/../src/x` -> `src/x`; a leading `..` that climbs out is kept. */
function normalizeRelative(path: string): string {
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === ".." && parts.length > 0 && parts[parts.length - 1] !== "..") parts.pop();
    else parts.push(part);
  }
  return parts.length === 0 ? "." : parts.join("/");
}

/** `//` and `/./` collapsed, `..` kept: a `..` after `/proc/self/cwd` climbs from the project, not from `/proc/self`. */
function collapseSlashes(path: string): string {
  return `/${path
    .split("/")
    .filter((part) => part !== "" && part !== ".")
    .join("/")}`;
}

/**
 * Where an absolute path really points, as text: `/proc/self/root` taken
 * off (repeatedly), then normalised; a `/proc/.../cwd` path becomes
 * relative (`./x`, `./../x`), since the working directory is the project.
 */
export function resolveProcPath(text: string): string {
  let path = collapseSlashes(text);
  for (let i = 0; i < 8 && PROC_ROOT.test(path); i++) path = collapseSlashes(normalizeAbsolute(path.replace(PROC_ROOT, "") || "/"));
  const cwd = PROC_CWD.exec(path);
  if (cwd !== null) return `.${path.slice(cwd[0].length)}`;
  return normalizeAbsolute(path);
}

/** True for `/dev/stdin`, `/dev/fd/N`, `/proc/self/fd/N`: a descriptor the shell opened, not a named file. */
export function isStreamPath(word: ShellWord): boolean {
  return !word.dynamic && STREAM.test(word.text.startsWith("/") ? normalizeAbsolute(word.text) : word.text);
}

/**
 * True for a path the file tools cannot serve: the home directory, and an
 * absolute path outside `projectRoot` (or, with no root given, the root
 * directory itself and paths under well-known system directories).
 */
export function isOutsideProject(word: ShellWord, projectRoot?: string): boolean {
  if (word.dynamic) return false;
  const raw = word.text;
  if (raw === "~" || raw.startsWith("~/") || raw === "$HOME" || raw.startsWith("$HOME/") || raw.startsWith("${HOME}")) return true;
  if (!raw.startsWith("/")) return false;
  if (isStreamPath(word)) return true;
  const text = resolveProcPath(raw);
  if (!text.startsWith("/")) return false; // through /proc/.../cwd: the project itself
  if (text === "/") return true;
  const within = (dir: string): boolean => text === dir || text.startsWith(`${dir}/`);
  if (projectRoot !== undefined) return !within(normalizeAbsolute(projectRoot));
  return SYSTEM_DIRS.some(within);
}

/**
 * The word as a path the file tools take: `/proc/self/cwd/src/x.ts` and
 * `<root>/src/x.ts` become `src/x.ts`, so a refusal's example call names a
 * path that works. Other words are returned unchanged.
 */
export function toProjectPath(word: ShellWord, projectRoot?: string): ShellWord {
  if (word.dynamic || !word.text.startsWith("/")) return word;
  let text = resolveProcPath(word.text);
  if (text.startsWith("/") && projectRoot !== undefined) {
    const root = normalizeAbsolute(projectRoot);
    if (text === root) text = ".";
    else if (text.startsWith(`${root}/`)) text = text.slice(root.length + 1);
    else return word;
  } else if (text.startsWith("/")) {
    return word;
  }
  if (!text.startsWith("/")) text = normalizeRelative(text);
  return { ...word, text, plainPrefix: Math.min(word.plainPrefix, text.length) };
}
