/**
 * The `N:hh|` prefixes view prints before each line, pasted back as if they
 * were file text. Pure.
 */

const PREFIX = /^[ \t]*\d+:[0-9a-fA-F]{2}\|/;

/**
 * `text` with the `N:hh|` prefix removed from every line, when every
 * non-empty line carries one (and there is at least one); otherwise
 * undefined. Only the prefix is removed; the line's own indentation, which
 * follows the `|`, is kept.
 */
export function stripIdPrefixes(text: string): string | undefined {
  const lines = text.split("\n");
  let prefixed = 0;
  for (const line of lines) {
    if (line === "" || line === "\r") continue;
    if (!PREFIX.test(line)) return undefined;
    prefixed++;
  }
  if (prefixed === 0) return undefined;
  return lines.map((line) => line.replace(PREFIX, "")).join("\n");
}
