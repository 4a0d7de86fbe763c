/**
 * The hostile-path corpus: attempts to leave a workspace, or to reach what it
 * must not, each with the outcome every tool must produce on local storage
 * (a real directory with symlinks, see ./fixture-local.ts) and on R2 (key
 * prefixes, no symlinks, see ./fixture-r2.ts).
 *
 * Outcomes:
 * - `refused`: the tool answers FS_INVALID_PATH (the path string itself is
 *   refused before storage is asked) or FS_ACCESS_DENIED (the path is well
 *   formed but leads outside: a symlink, a FIFO).
 * - `inside`: the string is an ordinary name inside the workspace (encoded
 *   dots, look-alike characters; on R2 a leading "/"), landing on `landsOn`. It is
 *   harmless: `view` finds nothing there (or the workspace's own file), a
 *   `write` creates exactly `landsOn` inside the workspace, `edit` and
 *   `batch_edit` find nothing to edit (or refuse an unseen file). Nothing
 *   outside is read or written either way. A path ending in "/" names a
 *   directory, so write, edit and batch_edit refuse it (FS_INVALID_PATH)
 *   and only view reaches `landsOn`.
 *
 * - `unexpanded`: a leading `~` or `$VAR` that names nothing in the
 *   workspace. It is never expanded: `view` finds nothing (FS_NOT_FOUND)
 *   and the tools that change files refuse it (FS_INVALID_PATH), offering
 *   the path without the prefix; nothing is created.
 *
 * A `file://` URL is read as the absolute path it names.
 * On local storage an absolute path means what it says: inside the
 * workspace root it is that file, anywhere else (every absolute path here)
 * it is refused with FS_INVALID_PATH. On R2 there is no real root, and a
 * leading "/" is the workspace root.
 */
import { HOSTILE_PATHS, LOOKALIKE_PATHS } from "../storage-conformance.ts";

/** What every tool must do with one attempt. */
export type PathOutcome =
  | { readonly kind: "refused"; readonly code: "FS_INVALID_PATH" | "FS_ACCESS_DENIED" }
  | { readonly kind: "inside"; readonly landsOn: string; readonly exists: boolean }
  | { readonly kind: "unexpanded" };

/** One attempt and its outcome per backend. */
export interface PathAttempt {
  readonly path: string;
  /** What the attempt tries. */
  readonly why: string;
  readonly local: PathOutcome;
  readonly r2: PathOutcome;
}

const invalid: PathOutcome = { kind: "refused", code: "FS_INVALID_PATH" };
const denied: PathOutcome = { kind: "refused", code: "FS_ACCESS_DENIED" };
const inside = (landsOn: string, exists = false): PathOutcome => ({ kind: "inside", landsOn, exists });

/** Refused everywhere: the string never reaches a provider. */
function everywhereInvalid(path: string, why: string): PathAttempt {
  return { path, why, local: invalid, r2: invalid };
}

/** An ordinary name everywhere, landing on `landsOn`. */
function everywhereInside(path: string, landsOn: string, why: string, exists = false): PathAttempt {
  return { path, why, local: inside(landsOn, exists), r2: inside(landsOn, exists) };
}

/** A shell prefix (`~`, `$HOME`) that names nothing in the workspace, on every backend. */
function unexpanded(path: string, why: string): PathAttempt {
  return { path, why, local: { kind: "unexpanded" }, r2: { kind: "unexpanded" } };
}

/** An absolute path outside the local root: refused there; on R2 the workspace root is "/", so it lands inside. */
function absolute(path: string, landsOn: string, why: string): PathAttempt {
  return { path, why, local: invalid, r2: inside(landsOn) };
}

/**
 * A name that the local fixture makes a symlink (or FIFO) leading outside:
 * refused there; on R2, which has no symlinks, it is just a missing key.
 */
function localLink(path: string, why: string, landsOn = path): PathAttempt {
  return { path, why, local: denied, r2: inside(landsOn) };
}

/**
 * The names the local fixture creates in the workspace (./fixture-local.ts
 * builds exactly these). Kept here so the corpus and the fixture agree.
 */
export const LOCAL_LINKS = {
  "link-file": "../outside/secret.txt",
  "link-dir": "../outside",
  "link-up": "..",
  "link-evil": "../ws-evil",
  "link-chain": "link-file",
  "sub/deep-link": "../../outside/secret.txt",
  dangling: "../outside/created-by-dangling.txt",
  "dangling-dir": "../outside/created-dir",
  loop: "loop",
  "link-etc": "/etc/passwd",
} as const;

/** The workspace's own files in both fixtures (path -> content). */
export const WORKSPACE_FILES: Readonly<Record<string, string>> = {
  "inside.txt": "benign inside file\n",
  "sub/keep.txt": "keep me\n",
};

const LONG_SEGMENT = "d".repeat(200);

/** Every attempt. */
export const PATH_ATTEMPTS: readonly PathAttempt[] = [
  // The storage conformance suite's table: the string is refused before any provider is called.
  ...HOSTILE_PATHS.map((path) => everywhereInvalid(path, "storage conformance HOSTILE_PATHS")),

  // ".." in every position, aimed at the canaries next to the workspace.
  everywhereInvalid("../secret.txt", "parent of the root"),
  everywhereInvalid("../ws-evil/canary.txt", "sibling workspace whose name extends this one's"),
  everywhereInvalid("../ws-evil", "sibling workspace directory itself"),
  everywhereInvalid("../ws/../ws-evil/canary.txt", "climb out, come back, step sideways"),
  everywhereInvalid("sub/../../ws-evil/canary.txt", ".. after a real directory"),
  everywhereInvalid("sub/keep.txt/../../../secret.txt", ".. after a file name"),
  everywhereInvalid("..//..//secret.txt", "doubled slashes between .."),
  everywhereInvalid("/../../secret.txt", "absolute, then .."),
  everywhereInvalid("./../../outside/secret.txt", "./ then .."),
  everywhereInvalid("sub/./../.././secret.txt", "mixed . and .."),
  // Separators and terminators that are not "/".
  everywhereInvalid(".\\..\\secret.txt", "backslash separators"),
  everywhereInvalid("sub\\..\\..\\secret.txt", "backslash after a real directory"),
  everywhereInvalid("\\\\?\\C:\\secret.txt", "Windows extended-length path"),
  everywhereInvalid("..\u0000/secret.txt", "NUL after .."),
  everywhereInvalid("inside.txt\u0000.png", "NUL to cut off an extension"),
  everywhereInvalid("a\u001fb", "C0 control (unit separator)"),
  everywhereInvalid("D:/secret.txt", "Windows drive with a slash"),

  // Encodings are never decoded: each is one literal name inside the workspace.
  everywhereInside("%2e%2e/%2e%2e/secret.txt", "%2e%2e/%2e%2e/secret.txt", "URL-encoded dots"),
  everywhereInside("%2e%2e%2f%2e%2e%2fsecret.txt", "%2e%2e%2f%2e%2e%2fsecret.txt", "URL-encoded dots and slashes"),
  everywhereInside("..%2fsecret.txt", "..%2fsecret.txt", "URL-encoded slash after real dots"),
  everywhereInside("..%5csecret.txt", "..%5csecret.txt", "URL-encoded backslash"),
  everywhereInside("%252e%252e%252fsecret.txt", "%252e%252e%252fsecret.txt", "double-encoded dots and slash"),
  everywhereInside("%c0%ae%c0%ae/secret.txt", "%c0%ae%c0%ae/secret.txt", "overlong UTF-8 dots, encoded"),
  everywhereInside("..%c0%afsecret.txt", "..%c0%afsecret.txt", "overlong UTF-8 slash, encoded"),
  everywhereInside("%u002e%u002e/secret.txt", "%u002e%u002e/secret.txt", "IIS %u encoding"),
  everywhereInside("&#46;&#46;/secret.txt", "&#46;&#46;/secret.txt", "HTML entities"),
  everywhereInside("%00", "%00", "encoded NUL"),
  // Unicode look-alikes of "." and "/": only U+002E U+002E climbs, only U+002F separates.
  // (A file: URL is the tools' business, not storage's: it is read as the absolute path it names, below.)
  ...LOOKALIKE_PATHS.filter(([path]) => !path.startsWith("file:")).map(([path, landsOn]) =>
    path.startsWith("/")
      ? absolute(path, landsOn, "storage conformance LOOKALIKE_PATHS")
      : everywhereInside(path, landsOn, "storage conformance LOOKALIKE_PATHS"),
  ),
  absolute("file:///etc/passwd", "etc/passwd", "a file: URL names an absolute path"),
  everywhereInside("..\uff0fsecret.txt", "..\uff0fsecret.txt", "fullwidth solidus"),
  everywhereInside("..\u2044secret.txt", "..\u2044secret.txt", "fraction slash"),
  everywhereInside("\ufe52\ufe52/secret.txt", "\ufe52\ufe52/secret.txt", "small full stops"),
  everywhereInside(".\u200b./secret.txt", ".\u200b./secret.txt", "zero-width space between the dots"),
  everywhereInside("..\u0338/secret.txt", "..\u0338/secret.txt", "combining overlay on .."),
  everywhereInside(".. /secret.txt", ".. /secret.txt", "dots followed by a space"),
  // Absolute names are refused on local storage and rebased onto the workspace on R2; special-looking ones are never expanded.
  absolute("/proc/self/root/etc/passwd", "proc/self/root/etc/passwd", "procfs escape, absolute"),
  unexpanded("~/.ssh/id_rsa", "home directory shorthand"),
  unexpanded("$HOME/secret.txt", "shell variable"),
  everywhereInside("D:secret.txt", "D:secret.txt", "drive-relative Windows name (a plain name on POSIX)"),
  // Prefix containment: "ws" must never reach "ws-evil".
  everywhereInside("-evil/canary.txt", "-evil/canary.txt", "the rest of the sibling's name (prefix without separator)"),
  absolute("/ws-evil/canary.txt", "ws-evil/canary.txt", "the sibling's name, absolute"),
  everywhereInside("ws/../ws-evil/canary.txt", "ws-evil/canary.txt", "the sibling's name after a cancelled .."),
  everywhereInside("link-dir/../inside.txt", "inside.txt", ".. is lexical: it never climbs out through a symlinked directory", true),
  {
    path: Array(6).fill(LONG_SEGMENT).join("/"),
    why: "1205 bytes: a fine local path, over R2's 1024-byte key limit",
    local: inside(Array(6).fill(LONG_SEGMENT).join("/")),
    r2: invalid,
  },

  // Symlinks and special files of the local fixture (plain missing keys on R2).
  localLink("link-file", "symlink to a file outside (relative target)"),
  localLink("link-dir/secret.txt", "file under a symlinked directory outside"),
  localLink("link-dir", "a symlinked directory outside, viewed as a directory"),
  localLink("link-dir/new.txt", "new file under a symlinked directory outside"),
  localLink("link-up/outside/secret.txt", "symlink to the parent of the root"),
  localLink("link-up/ws-evil/canary.txt", "symlink to the parent, then the sibling workspace"),
  localLink("link-evil/canary.txt", "symlink to the sibling workspace (prefix collision)"),
  localLink("link-chain", "symlink to a symlink that leads outside"),
  localLink("sub/deep-link", "nested symlink climbing two levels"),
  localLink("dangling", "dangling symlink as a write target"),
  localLink("dangling-dir/new.txt", "dangling directory symlink as a parent"),
  localLink("loop", "symlink loop"),
  localLink("link-etc", "absolute symlink to a system file"),
  localLink("fifo", "a FIFO inside the workspace (not a regular file)"),
  localLink("./link-file", "symlink behind ./", "link-file"),
  localLink("sub/../link-file", "symlink behind a cancelled ..", "link-file"),
];
