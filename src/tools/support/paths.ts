import { fail, resultText, type ToolResult } from "../../result.ts";
import { baseName, childPath, normalizeWorkspacePath, parentPath } from "../../storage/path.ts";
import type { Storage } from "../../storage/types.ts";
import {
  hasHiddenCharacters,
  hiddenCharacterNames,
  likelySpellings,
  lookAlikeDifference,
  lookAlikeTwins,
  mayHaveTwins,
  pathMayHaveTwins,
} from "./lookalike-names.ts";
import { shownPath, toolError } from "./remedy.ts";

/** The call a path argument came in: a refusal offers it again with the path corrected. */
export interface PathCall {
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
}

/** What a tool asks of its path argument. */
export interface ArgPathOptions {
  /**
   * The path must name a file (write, edit, batch_edit): a trailing "/"
   * names a directory, and storage would otherwise drop it and write a
   * regular file under the directory's name.
   */
  readonly file?: boolean;
  /** The call being checked, so a refusal can give it back corrected, ready to send. */
  readonly call?: PathCall;
}

/** A checked path argument: the normalised path, or the model-facing refusal. */
export type CheckedPath = { ok: true; path: string } | { ok: false; result: ToolResult };

/** What {@link resolve} makes of an input before any storage is asked. */
type Resolution = CheckedPath | { ok: "backslashes"; path: string };

/**
 * Normalise a path argument once, at the tool boundary, so observation keys
 * and messages use the same form the storage guard will. A refused path is
 * a model-facing FS_INVALID_PATH result.
 *
 * Absolute paths: agents trained on other tools send them. With storage
 * that has a real root directory (`storage.root`, local), an absolute path
 * inside the root means that file (and results name it relative to the
 * root); any other absolute path is refused, naming the root, because
 * reading it as workspace-relative would create a nested copy of the root
 * path inside the workspace. Without a real root (memory, R2, S3) a leading
 * "/" is the workspace root. A `file://` URL is the absolute path it names.
 *
 * Backslashes are refused (storage never takes them), with the path written
 * with forward slashes in the refusal.
 *
 * This is the part that needs no storage; {@link checkArgPath} adds the
 * checks that do.
 */
export function argPath(input: string, storage?: Pick<Storage, "root">, options: ArgPathOptions = {}): CheckedPath {
  const resolved = resolve(input, storage, options);
  if (resolved.ok !== "backslashes") return resolved;
  return { ok: false, result: backslashRefusal(input, resolved.path, options.call) };
}

/**
 * {@link argPath} plus the checks that ask storage, made only for the rare
 * paths that need them (so a plain ASCII path costs no extra call):
 * - a leading `~` or `$VAR` segment is something a shell would have
 *   expanded; when the workspace has no such entry, a tool that changes
 *   files refuses it, offering the path without it (view says so in its
 *   not-found answer instead);
 * - a tool that changes files refuses a path whose missing part differs
 *   from an existing name only by Unicode normalisation (NFC/NFD),
 *   invisible characters (U+200B...), an odd space (NBSP...) or whitespace
 *   at its ends (see ./lookalike-names.ts), because write would create a
 *   second, identical-looking entry; the refusal offers the name as it is
 *   on disk.
 * The corrections also go into the call a backslash refusal offers.
 */
export async function checkArgPath(input: string, storage: PathStorage, options: ArgPathOptions = {}): Promise<CheckedPath> {
  const resolved = resolve(input, storage, options);
  if (resolved.ok === "backslashes") {
    const corrected = await correctedPath(storage, resolved.path);
    return { ok: false, result: backslashRefusal(input, corrected, options.call) };
  }
  if (!resolved.ok) return FILE_URL.test(input) ? await resourceUriRefusal(storage, input, resolved, options.call) : resolved;
  if (!options.file) return resolved;
  const refusal = await changeRefusal(storage, resolved.path, options.call);
  return refusal ? { ok: false, result: refusal } : resolved;
}

/** The storage calls the path checks make. */
export type PathStorage = Pick<Storage, "root" | "stat" | "list">;

function resolve(input: string, storage: Pick<Storage, "root"> | undefined, options: ArgPathOptions): Resolution {
  let named = input;
  if (FILE_URL.test(input)) {
    const fromUrl = fileUrlPath(input);
    if (typeof fromUrl !== "string") return { ok: false, result: badFileUrl(input, fromUrl.why) };
    named = fromUrl;
  }
  if (named.includes("\\") && !named.startsWith("\\")) {
    // Only a path that is valid once its backslashes are slashes is offered; anything else (and a
    // Windows root, UNC or device path, "\\x", "\\\\?\\C:") keeps the plain refusal.
    const slashed = resolve(named.replace(/\\/g, "/"), storage, { file: options.file });
    if (slashed.ok === true) return { ok: "backslashes", path: slashed.path };
  }
  let relative = named;
  const root = storage?.root;
  if (root !== undefined && named.startsWith("/")) {
    const inside = insideRoot(root, named);
    if (inside === undefined) return { ok: false, result: outsideRoot(input, named, root) };
    relative = inside;
  }
  let path: string;
  try {
    path = normalizeWorkspacePath(relative);
  } catch (error) {
    return { ok: false, result: toolError(error, input) };
  }
  if (options.file && named.endsWith("/")) return { ok: false, result: trailingSlash(input, path) };
  return { ok: true, path };
}

/** `absolute` relative to `root` ("" for the root itself), or undefined when it is not inside. */
function insideRoot(root: string, absolute: string): string | undefined {
  const base = root.replace(/\/+$/, "");
  // Lexical `..` is resolved by normalisation below, so "/root/../etc" must not pass as inside.
  const squeezed = absolute.replace(/\/{2,}/g, "/");
  if (squeezed === base || squeezed === `${base}/`) return "";
  if (!squeezed.startsWith(`${base}/`)) return undefined;
  return squeezed.slice(base.length + 1);
}

function outsideRoot(input: string, absolute: string, root: string): ToolResult {
  const what = input === absolute ? `The path \`${input}\` is absolute` : `The path \`${input}\` names \`${absolute}\`, which is absolute`;
  return fail(
    "FS_INVALID_PATH",
    `${what} and outside the workspace root \`${root}\`; nothing was read or changed. ` +
      `Use a workspace-relative path (e.g. "src/app.ts"); an absolute path is accepted only inside \`${root}/\`. ` +
      `See what exists: view {"path": "."}`,
  );
}

/** `path` is the normalised form (the trailing "/" dropped). */
function trailingSlash(input: string, path: string): ToolResult {
  const file = path === "" ? "<name>" : `${path}/<name>`;
  return fail(
    "FS_INVALID_PATH",
    `The path \`${input}\` ends with "/", so it names a directory, and this tool changes files; nothing was written. ` +
      `Use a workspace-relative path that names a file${path === "" ? "" : " inside it"}: {"path": ${JSON.stringify(file)}, ...}` +
      (path === "" ? "." : `, or, if \`${path}\` is the file you mean, {"path": ${JSON.stringify(path)}, ...}.`),
  );
}

// --- file:// URLs ------------------------------------------------------------

// Only "file:/…": "file:notes.txt" stays a (legal, if odd) relative name.
const FILE_URL = /^file:\//i;

/**
 * The absolute path a `file:` URL names (RFC 8089: `file:///p`,
 * `file://localhost/p`, `file:/p`), percent-escapes decoded as a URL's are;
 * a query or fragment is not part of the path. Or why it names none here.
 */
export function fileUrlPath(url: string): string | { why: string } {
  let rest = url.slice("file:".length);
  if (rest.startsWith("//")) {
    const slash = rest.indexOf("/", 2);
    const host = rest.slice(2, slash === -1 ? rest.length : slash);
    if (host !== "" && host.toLowerCase() !== "localhost") return { why: `it names a file on another host (\`${host}\`)` };
    rest = slash === -1 ? "" : rest.slice(slash);
  }
  rest = rest.replace(/[?#].*$/s, "");
  if (!rest.startsWith("/")) return { why: "it has no absolute path after `file:`" };
  // An escaped "/" would become a separator the URL did not have.
  if (/%2f/i.test(rest)) return { why: 'it has an escaped "/" (%2F) inside a name' };
  try {
    return decodeURIComponent(rest);
  } catch {
    return { why: "it has a malformed %-escape" };
  }
}

/**
 * A file URL refused as outside the root may be this server's own MCP
 * resource URI, `file:///{workspace path}` (src/http/mcp-resources.ts):
 * when that reading names something that exists, the refusal offers it.
 */
async function resourceUriRefusal(storage: PathStorage, input: string, refused: CheckedPath, call: PathCall | undefined): Promise<CheckedPath> {
  const named = fileUrlPath(input);
  if (refused.ok || storage.root === undefined || typeof named !== "string") return refused;
  let relative: string;
  try {
    relative = normalizeWorkspacePath(named);
    if (relative === "" || (await storage.stat(relative)) === null) return refused;
  } catch {
    return refused;
  }
  const text = `${resultText(refused.result)}\nIf you meant this server's resource URI (file:///{path}, relative to the workspace), that path is \`${relative}\`:\n${sameCall(call, relative)}`;
  return { ok: false, result: fail("FS_INVALID_PATH", text) };
}

function badFileUrl(input: string, why: string): ToolResult {
  return fail(
    "FS_INVALID_PATH",
    `The path \`${input}\` is a file URL that names no file in this workspace: ${why}. Nothing was read or changed. ` +
      `Use a workspace-relative path (e.g. "src/app.ts"). See what exists: view {"path": "."}`,
  );
}

// --- backslashes ---------------------------------------------------------------

function backslashRefusal(input: string, slashed: string, call: PathCall | undefined): ToolResult {
  return fail(
    "FS_INVALID_PATH",
    `The path \`${input}\` uses "\\" as a separator; paths here use "/" (a backslash is never accepted in a path). ` +
      `Nothing was read or changed. The same call with forward slashes:\n${sameCall(call, slashed)}`,
  );
}

// --- a leading `~` or `$VAR` ------------------------------------------------------

/** A leading segment a shell would have expanded: `~`, `$NAME` or `${NAME}`. */
export interface ShellPrefix {
  /** The segment as written. */
  readonly segment: string;
  readonly kind: "home" | "variable";
  /** The path without it ("" when it was the whole path). */
  readonly rest: string;
}

const VARIABLE = /^\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\})$/;

/** The shell prefix of a normalised path, if it starts with one. Pure. */
export function shellPrefix(path: string): ShellPrefix | undefined {
  const slash = path.indexOf("/");
  const segment = slash === -1 ? path : path.slice(0, slash);
  const rest = slash === -1 ? "" : path.slice(slash + 1);
  if (segment === "~") return { segment, kind: "home", rest };
  if (VARIABLE.test(segment)) return { segment, kind: "variable", rest };
  return undefined;
}

/** Why the prefix is not what the model meant: the sentence both view and the changing tools use. */
export function shellPrefixReason(prefix: ShellPrefix): string {
  const what =
    prefix.kind === "home"
      ? "which a shell expands to the home directory; toolwarden expands nothing in a path"
      : "an environment variable a shell would expand; toolwarden expands nothing in a path";
  return `starts with \`${prefix.segment}\`, ${what}. Paths are relative to the workspace root, and the workspace has no entry named \`${prefix.segment}\``;
}

function prefixRefusal(path: string, prefix: ShellPrefix, call: PathCall | undefined): ToolResult {
  const next =
    prefix.rest === ""
      ? ` Name the file with a workspace-relative path, e.g. {"path": "notes.txt", ...}. See what exists: view {"path": "."}`
      : ` The same call with the workspace-relative path, without that prefix:\n${sameCall(call, prefix.rest)}`;
  return fail("FS_INVALID_PATH", `The path \`${path}\` ${shellPrefixReason(prefix)}, so nothing was read or changed.${next}`);
}

// --- Unicode normalisation ------------------------------------------------------

const NON_ASCII = /[^\x00-\x7f]/;

/**
 * Names in `names` that are `name` under NFC but spelled otherwise (one
 * NFC, the other NFD: "é" as U+00E9 or as "e" + U+0301). They look the same
 * and are different names to the file system. Pure.
 */
export function normalizationTwins(name: string, names: Iterable<string>): string[] {
  // An ASCII name is its own NFC. Its only twins are rare singletons such as "\u212Aey" (KELVIN SIGN,
  // NFC "Key"); not looking for them spares every plain name the work.
  if (!NON_ASCII.test(name)) return [];
  const wanted = name.normalize("NFC");
  const twins: string[] = [];
  for (const candidate of names) {
    if (candidate !== name && candidate.normalize("NFC") === wanted) twins.push(candidate);
  }
  return twins;
}

/** A name's Unicode spelling, for a message: "composed, NFC", "decomposed, NFD" or "partly composed". */
export function spellingOf(name: string): string {
  if (name === name.normalize("NFC")) return "composed, NFC";
  if (name === name.normalize("NFD")) return "decomposed, NFD";
  return "partly composed";
}

/** A string as JSON with every non-ASCII character escaped (`"re\u0301sume\u0301"`), so two spellings read apart and copy exactly. */
export function asciiJson(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Whether a name reads as it is in a message: printable ASCII, no whitespace at a segment's ends. */
export function showsAsIs(name: string): boolean {
  return !/[^\x20-\x7e]/.test(name) && !name.split("/").some((s) => /^\s|\s$/.test(s));
}

/**
 * A path for a message: in backticks when it {@link showsAsIs}, else as
 * ASCII JSON, saying what does not show, so a look-alike (an invisible
 * character, another script's letter) reads apart and copies exactly.
 */
export function quotedPath(path: string): string {
  if (showsAsIs(path)) return `\`${path}\``;
  const hidden = hiddenCharacterNames(path);
  const ends = /[^\x20-\x7e]/.test(path) ? "" : "spaces at the start or end of a name";
  const what =
    hidden.length > 0
      ? `it has ${hidden.join(", ")}, which ${hidden.length === 1 ? "does" : "do"} not show`
      : ends
        ? `it has ${ends}, which do not show`
        : "it has characters outside ASCII";
  return `${asciiJson(path)} (written as JSON: ${what})`;
}

/** One segment of an absent path respelled to the name on disk. */
export interface Respelling {
  /** The directory it is in ("" the root). */
  readonly dir: string;
  /** The name as the path had it. */
  readonly asked: string;
  /** The name on disk. */
  readonly found: string;
}

/** How far {@link respell} got: the path with each respelled segment, and the respellings. */
export interface Respelled {
  readonly path: string;
  readonly respelled: readonly Respelling[];
  /** Where it stopped on a name with more than one twin: the twins there. */
  readonly ambiguous?: { readonly dir: string; readonly asked: string; readonly twins: readonly string[] };
}

/** Most entries listed to look for a twin; a truncated listing is backed by asking for the NFC and NFD spellings directly. */
const TWINS_LISTED = 5000;

/**
 * `path` (normalised) with each segment that does not exist replaced by its
 * one Unicode twin in the directory above, as long as there is one, from
 * the first missing segment down. Unchanged when the path exists, or when
 * its first missing segment has no twin (so a plain new name costs a stat
 * or two, and nothing at all for an ASCII path).
 */
export async function respell(storage: Pick<Storage, "stat" | "list">, path: string): Promise<Respelled> {
  const respelled: Respelling[] = [];
  let current = path;
  if (!pathMayHaveTwins(path)) return { path, respelled };
  for (let guard = 0; guard < 64; guard++) {
    const missing = await firstMissing(storage, current);
    if (missing === undefined) break;
    const asked = baseName(missing.path);
    const twins = await twinsIn(storage, missing.dir, asked);
    if (twins.length !== 1) {
      if (twins.length > 1) return { path: current, respelled, ambiguous: { dir: missing.dir, asked, twins } };
      break;
    }
    respelled.push({ dir: missing.dir, asked, found: twins[0] });
    current = childPath(missing.dir, twins[0]) + current.slice(missing.path.length);
  }
  return { path: current, respelled };
}

/** The shortest prefix of `path` that does not exist and the directory above it, or undefined when `path` exists (or meets a file). */
async function firstMissing(storage: Pick<Storage, "stat">, path: string): Promise<{ path: string; dir: string } | undefined> {
  if ((await storage.stat(path)) !== null) return undefined;
  let missing = path;
  let dir = parentPath(path);
  while (dir !== "") {
    const stat = await storage.stat(dir);
    if (stat?.kind === "file") return undefined;
    if (stat?.kind === "directory") break;
    missing = dir;
    dir = parentPath(dir);
  }
  return { path: missing, dir };
}

async function twinsIn(storage: Pick<Storage, "stat" | "list">, dir: string, name: string): Promise<string[]> {
  if (!mayHaveTwins(name)) return [];
  const listing = await storage.list(dir, { limit: TWINS_LISTED, sizes: false });
  const twins = lookAlikeTwins(
    name,
    listing.entries.filter((e) => !e.unaddressable).map((e) => e.name),
  );
  if (twins.length > 0 || !listing.truncated) return twins;
  // A cut listing: ask for the likeliest spellings directly (NFC, NFD, without the invisible characters and end spaces).
  const found: string[] = [];
  for (const form of likelySpellings(name)) if ((await storage.stat(childPath(dir, form))) !== null) found.push(form);
  return found;
}

/**
 * The NFC and NFD spellings of `name` that exist in `dir`, asked for
 * directly: the fallback when a listing was cut before it reached them.
 */
export async function otherSpellings(storage: Pick<Storage, "stat">, dir: string, name: string): Promise<string[]> {
  const found: string[] = [];
  for (const form of new Set([name.normalize("NFC"), name.normalize("NFD")])) {
    if (form !== name && (await storage.stat(childPath(dir, form))) !== null) found.push(form);
  }
  return found;
}

/** The sentence naming a respelled segment: where, the two spellings, and what alone differs. */
export function respellingText(r: Respelling): string {
  const difference = lookAlikeDifference(r.asked, r.found);
  if (!difference.normalization) {
    return (
      `\`${shownPath(r.dir)}\` has ${asciiJson(r.found)}, whose name differs from yours, ${asciiJson(r.asked)}, only by ${difference.text}: ` +
      `they look identical but are different names`
    );
  }
  return (
    `\`${shownPath(r.dir)}\` has \`${r.found}\`, whose name differs from \`${r.asked}\` in your path only by Unicode normalisation ` +
    `(on disk ${asciiJson(r.found)}, ${spellingOf(r.found)}; yours ${asciiJson(r.asked)}, ${spellingOf(r.asked)}): they look identical but are different names`
  );
}

/** A path in a message: as JSON with escapes when a look-alike character in it would not show. */
function spelled(path: string): string {
  return hasHiddenCharacters(path) ? asciiJson(path) : `\`${path}\``;
}

/** `existing`: the respelled path is a file already, which `write` replaces only after a view. */
function twinsRefusal(path: string, found: Respelled, call: PathCall | undefined, existing = false): ToolResult {
  const nothing =
    call?.tool === "write"
      ? "Nothing was written: `write` does not create a second entry that looks the same as an existing one."
      : "Nothing was read or changed.";
  if (found.ambiguous) {
    const { dir, asked, twins } = found.ambiguous;
    const spellings = twins
      .map((t) => `${asciiJson(t)} (${lookAlikeDifference(asked, t).normalization ? spellingOf(t) : lookAlikeDifference(asked, t).text})`)
      .join(", ");
    return fail(
      "FS_INVALID_PATH",
      `${spelled(path)} does not exist as spelled, and \`${shownPath(dir)}\` has ${twins.length} names that look the same as ${asciiJson(asked)}: ${spellings}. ` +
        `${nothing} Name the one you mean exactly; view {"path": ${asciiJson(shownPath(dir))}} lists them.`,
    );
  }
  const names = found.respelled.length === 1 ? "name" : "names";
  const next = existing
    ? `That file exists, and write replaces a file only if this session has viewed it (if it has not: view {"path": ${asciiJson(found.path)}} first). The same call with the ${names} as on disk:`
    : `The same call with the ${names} as on disk:`;
  return fail(
    "FS_INVALID_PATH",
    `${spelled(path)} does not exist as spelled: ${found.respelled.map(respellingText).join("; ")}. ` +
      `${nothing} ${next}\n${sameCall(call, found.path, true)}`,
  );
}

/**
 * The refusal of a path a tool that changes files must not take, or
 * undefined: a shell prefix the workspace has no entry for, or a missing
 * name with a Unicode twin next to it.
 */
async function changeRefusal(storage: PathStorage, path: string, call: PathCall | undefined): Promise<ToolResult | undefined> {
  try {
    const prefix = shellPrefix(path);
    if (prefix && (await storage.stat(prefix.segment)) === null) return prefixRefusal(path, prefix, call);
    const found = await respell(storage, path);
    if (found.ambiguous) return twinsRefusal(path, found, call);
    if (found.respelled.length > 0) {
      const existing = call?.tool === "write" && (await storage.stat(found.path))?.kind === "file";
      return twinsRefusal(path, found, call, existing);
    }
  } catch {
    // A courtesy check: the tool itself meets and reports whatever storage failure this met.
  }
  return undefined;
}

/** `path` with a missing shell prefix dropped and missing names respelled as on disk: what a refusal offers. */
async function correctedPath(storage: PathStorage, path: string): Promise<string> {
  try {
    const prefix = shellPrefix(path);
    const unprefixed = prefix && prefix.rest !== "" && (await storage.stat(prefix.segment)) === null ? prefix.rest : path;
    return (await respell(storage, unprefixed)).path;
  } catch {
    return path;
  }
}

// --- the call offered --------------------------------------------------------------

/** Longest call a refusal repeats whole; a longer one (a big write) is described instead. */
const MAX_CALL_CHARS = 2000;

/**
 * The call the model sent with `path` in place of its path, ready to send.
 * `ascii`: the path escaped (`\u0301`), when its spelling is the point.
 */
export function sameCall(call: PathCall | undefined, path: string, ascii = false): string {
  const shown = path === "" ? "." : path;
  const pathJson = ascii ? asciiJson(shown) : JSON.stringify(shown);
  if (call === undefined) return `{"path": ${pathJson}, ...} (the other arguments as you sent them)`;
  const parts = [`"path":${pathJson}`];
  for (const [key, value] of Object.entries(call.args)) {
    if (key !== "path" && value !== undefined) parts.push(`${JSON.stringify(key)}:${JSON.stringify(value)}`);
  }
  const whole = `${call.tool} {${parts.join(",")}}`;
  if (whole.length <= MAX_CALL_CHARS) return whole;
  return `${call.tool} {"path":${pathJson}, ...} (the other arguments as you sent them)`;
}

/** The path rule, said in every tool description. */
export const PATH_RULE = `- Paths are relative to the workspace root ("src/app.ts"). An absolute path is accepted when the workspace is a local directory and the path is inside it; with other storage a leading "/" means the workspace root. A file:// URL is read as its path; "~" and "$VAR" are not expanded.`;

/** The rule for the mutating tools, which need a file. */
export const FILE_PATH_RULE = `${PATH_RULE} A path ending in "/" names a directory and is refused.`;
