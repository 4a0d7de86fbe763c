/**
 * Workspace path normalisation: the one place where an untrusted path string
 * becomes a workspace-relative POSIX path, or is refused.
 *
 * Decisions (each one is a promise callers rely on):
 * - A leading "/" means the workspace root: agents often send "/src/a.ts"
 *   meaning workspace-relative. A real absolute path such as "/etc/passwd"
 *   therefore names "etc/passwd" inside the workspace, which is harmless.
 * - ".." is resolved lexically and refused as soon as it would climb above the
 *   root at any point ("a/../b" is "b"; "a/../../a/b" is refused).
 * - Backslashes are refused outright rather than treated as separators: they
 *   are the Windows-separator trick ("..\\..\\x"), and on POSIX a name with a
 *   backslash is too surprising to be worth supporting.
 * - A first segment like "C:" is refused: it is a Windows drive, not a name.
 * - Percent-encoding is NOT decoded: "%2e%2e" is a literal file name. Paths
 *   arrive in JSON bodies, which the HTTP layer never URL-decodes.
 * - Unicode is not normalised (NFC/NFD) and look-alikes ("․․" U+2024,
 *   fullwidth "．．", "∕" U+2215) are ordinary characters in a name: only
 *   U+002F separates and only the two-code-unit ".." climbs.
 * - Refused: NUL and other C0 controls (U+0000-U+001F), DEL (U+007F), C1
 *   controls (U+0080-U+009F), the line and paragraph separators (U+2028,
 *   U+2029) and the bidirectional overrides and isolates (U+202A-U+202E,
 *   U+2066-U+2069), which make a name display as another name,
 *   lone surrogates (they cannot be encoded to UTF-8 faithfully), paths over
 *   4096 UTF-8 bytes and segments over 255 UTF-8 bytes (POSIX PATH_MAX and
 *   NAME_MAX).
 */
import { normalize } from "pathe";
import { FsError } from "./errors.ts";

/** Longest accepted input path, in UTF-8 bytes (POSIX PATH_MAX). */
export const MAX_PATH_BYTES = 4096;
/** Longest accepted path segment, in UTF-8 bytes (POSIX NAME_MAX). */
export const MAX_SEGMENT_BYTES = 255;

// C0 controls and DEL: invisible in logs and terminals, and NUL truncates C strings.
const CONTROL = /[\u0000-\u001f\u007f]/;
// C1 controls, line/paragraph separators and bidi overrides/isolates: they break lines or reorder
// what a reader sees, so a name could pass for another one.
const DECEPTIVE = /[\u0080-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
// Every character a shown name must escape: both sets above.
const UNSHOWABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// With the `u` flag a well-formed surrogate pair is one code point, so this matches only lone halves.
const LONE_SURROGATE = /\p{Cs}/u;
const DRIVE = /^[A-Za-z]:(\/|$)/;
const encoder = new TextEncoder();

function refuse(reason: string, input: string): never {
  throw new FsError("FS_INVALID_PATH", `invalid path: ${reason}`, { path: input });
}

/**
 * Normalise an untrusted path to a workspace-relative POSIX path ("" is the
 * root, no leading or trailing "/", no "." or ".." segments), or throw
 * `FsError("FS_INVALID_PATH")` naming the problem.
 */
export function normalizeWorkspacePath(input: string): string {
  if (typeof input !== "string") refuse("path must be a string", String(input));
  if (isPlainNormalized(input)) return input;
  return normalizeFully(input);
}

/** {@link normalizeWorkspacePath} without its shortcut for plain paths (exported for tests). */
export function normalizeFully(input: string): string {
  if (encoder.encode(input).length > MAX_PATH_BYTES) refuse(`longer than ${MAX_PATH_BYTES} bytes`, input);
  if (CONTROL.test(input)) refuse("contains a NUL or control character", input);
  if (DECEPTIVE.test(input)) {
    refuse("contains a C1 control, line separator or bidirectional override character", input);
  }
  if (LONE_SURROGATE.test(input)) refuse("contains a lone UTF-16 surrogate", input);
  if (input.includes("\\")) refuse("contains a backslash (Windows separators are not accepted; use '/')", input);

  const relative = input.replace(/^\/+/, "");
  if (DRIVE.test(relative)) refuse("starts with a Windows drive letter", input);

  // pathe does the lexical arithmetic. For a relative input it keeps every ".."
  // that could not be cancelled as a leading "..", so any ".." left in the
  // result means the path climbed above the root at some point: that check is ours.
  // Annotated: under `deno check` pathe's types (declared via node:path) resolve to any.
  const normalized: string = relative === "" ? "." : normalize(relative);
  const segments = normalized.split("/").filter((s) => s !== "" && s !== ".");
  if (segments.includes("..")) refuse("escapes the workspace root with '..'", input);
  for (const segment of segments) {
    if (encoder.encode(segment).length > MAX_SEGMENT_BYTES) {
      refuse(`has a segment longer than ${MAX_SEGMENT_BYTES} bytes`, input);
    }
  }
  return segments.join("/");
}

// Printable ASCII but "/", ":" and "\\": segments of such characters need no encoding checks (one byte each).
const PLAIN = /^[\x20-\x2e\x30-\x39\x3b-\x5b\x5d-\x7e]+(?:\/[\x20-\x2e\x30-\x39\x3b-\x5b\x5d-\x7e]+)*$/;
const DOT_SEGMENT = /(?:^|\/)\.\.?(?:\/|$)/;

/**
 * Whether `input` is already normalised and acceptable as it stands: plain
 * ASCII segments (no ":" so no drive letter), none "." or "..", none empty,
 * within the byte limits. Such a path (nearly every path a walk produces)
 * skips the full normalisation; anything else takes it.
 */
export function isPlainNormalized(input: string): boolean {
  if (input.length > MAX_PATH_BYTES || !PLAIN.test(input) || DOT_SEGMENT.test(input)) return false;
  if (input.length <= MAX_SEGMENT_BYTES) return true;
  for (const segment of input.split("/")) if (segment.length > MAX_SEGMENT_BYTES) return false;
  return true;
}

/** The parent of a normalised path ("" for a top-level entry and for the root). */
/** The directories above a normalized path, outermost first ("a/b/c.txt": ["a", "a/b"]). */
export function ancestorPaths(path: string): string[] {
  const result: string[] = [];
  for (let i = path.indexOf("/"); i !== -1; i = path.indexOf("/", i + 1)) result.push(path.slice(0, i));
  return result;
}

export function parentPath(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash === -1 ? "" : path.slice(0, slash);
}

/** The last segment of a normalised path ("" for the root). */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** Join a normalised directory path and a child name. */
export function childPath(dir: string, name: string): string {
  return dir === "" ? name : `${dir}/${name}`;
}

/**
 * Whether a name has a character no path may use and a listing must
 * escape (controls, separators, bidi, backslash): such an entry can only
 * have been made outside the API (another process, another bucket client).
 */
export function needsEscape(name: string): boolean {
  UNSHOWABLE.lastIndex = 0;
  return name.includes("\\") || UNSHOWABLE.test(name);
}

/**
 * A name (or path) as it may be shown: each control, separator or bidi
 * character written as `\u{hex}`, so a listing of a file another process
 * created cannot break lines or reorder text. Backslashes are doubled, so
 * the escaped form is unambiguous.
 */
export function escapeName(name: string): string {
  return name.replace(/\\/g, "\\\\").replace(UNSHOWABLE, (ch) => `\\u{${ch.charCodeAt(0).toString(16)}}`);
}
