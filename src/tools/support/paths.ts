import { fail, type ToolResult } from "../../result.ts";
import { normalizeWorkspacePath } from "../../storage/path.ts";
import type { Storage } from "../../storage/types.ts";
import { toolError } from "./remedy.ts";

/** What a tool asks of its path argument. */
export interface ArgPathOptions {
  /**
   * The path must name a file (write, edit, batch_edit): a trailing "/"
   * names a directory, and storage would otherwise drop it and write a
   * regular file under the directory's name.
   */
  readonly file?: boolean;
}

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
 * "/" is the workspace root.
 */
export function argPath(
  input: string,
  storage?: Pick<Storage, "root">,
  options: ArgPathOptions = {},
): { ok: true; path: string } | { ok: false; result: ToolResult } {
  let relative = input;
  const root = storage?.root;
  if (root !== undefined && input.startsWith("/")) {
    const inside = insideRoot(root, input);
    if (inside === undefined) return { ok: false, result: outsideRoot(input, root) };
    relative = inside;
  }
  let path: string;
  try {
    path = normalizeWorkspacePath(relative);
  } catch (error) {
    return { ok: false, result: toolError(error, input) };
  }
  if (options.file && input.endsWith("/")) return { ok: false, result: trailingSlash(input, path) };
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

function outsideRoot(input: string, root: string): ToolResult {
  return fail(
    "FS_INVALID_PATH",
    `The path \`${input}\` is absolute and outside the workspace root \`${root}\`; nothing was read or changed. ` +
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

/** The path rule, said in every tool description. */
export const PATH_RULE = `- Paths are relative to the workspace root ("src/app.ts"). An absolute path is accepted when the workspace is a local directory and the path is inside it; with other storage a leading "/" means the workspace root.`;

/** The rule for the mutating tools, which need a file. */
export const FILE_PATH_RULE = `${PATH_RULE} A path ending in "/" names a directory and is refused.`;
