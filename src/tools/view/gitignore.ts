/**
 * .gitignore rules as git applies them: each file's patterns are relative to
 * its own directory, and a deeper file overrides a shallower one (the
 * deepest file with a verdict on a path decides). The workspace root is
 * taken as the repository root. Pure: callers read the files.
 */

import ignore, { type Ignore } from "ignore";

/** The rules of one .gitignore file and the directory it sits in ("" = workspace root). */
export interface IgnoreLayer {
  readonly base: string;
  readonly rules: Ignore;
}

/** Parse one .gitignore file's text (case-sensitive, as git is by default). */
export function ignoreLayer(base: string, text: string): IgnoreLayer {
  return { base, rules: ignore({ ignorecase: false }).add(text) };
}

/**
 * Whether `path` (workspace-relative) is excluded by `layers` (shallowest
 * first). Only the entry itself is judged: the walk never enters an
 * excluded directory, so the contents of one never reach this check.
 */
export function isIgnored(layers: readonly IgnoreLayer[], path: string, isDirectory: boolean): boolean {
  for (let i = layers.length - 1; i >= 0; i--) {
    const { base, rules } = layers[i];
    if (base !== "" && !path.startsWith(`${base}/`)) continue;
    const rel = base === "" ? path : path.slice(base.length + 1);
    if (rel === "") continue;
    const verdict = rules.test(isDirectory ? `${rel}/` : rel);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}
