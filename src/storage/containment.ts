/**
 * The real-path containment check for disk-backed providers. Kept pure (the
 * separator is a parameter) so it can be tested for both POSIX and Windows.
 */

/**
 * True when the real path `candidate` is `root` itself or lies below it.
 * Both must be real (symlink-free, normalised) absolute paths. A bare
 * `startsWith(root)` would accept "/ws-evil" for root "/ws"; the separator
 * after the root is what makes it a containment check.
 */
export function isInside(root: string, candidate: string, sep = "/"): boolean {
  if (candidate === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return candidate.startsWith(prefix);
}
