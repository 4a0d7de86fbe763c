/**
 * What `edit` says when the ladder's own work on new_string would make the
 * file too large (see `EditTooLarge` in text/match.ts).
 */

import type { EditTooLarge } from "../../text/match.ts";
import { mib } from "../support/load.ts";
import { shownPath } from "../support/remedy.ts";

/** Longest old_string quoted whole in the refusal. */
const MAX_QUOTED_CHARS = 8 * 1024;

/**
 * LIMIT_EXCEEDED for new_string's indentation fitted to the file past the
 * size limit. The way out is the exact rung, where new_string is written as
 * sent: old_string as the file has it (quoted when short, else the view of
 * those lines), new_string in the file's own indentation.
 */
export function fittedTooLargeText(path: string, lines: readonly string[], r: EditTooLarge, limit: number): string {
  const { start, end } = r.range;
  const where = end - start === 1 ? `line ${end}` : `lines ${start + 1}-${end}`;
  const exact = JSON.stringify(lines.slice(start, end).join("\n"));
  const old =
    exact.length <= MAX_QUOTED_CHARS
      ? `"old_string": ${exact}`
      : `old_string copied exactly from view {"path": ${JSON.stringify(shownPath(path))}, "start": ${start + 1}, "end": ${end}} (without the "N:hh|" prefixes)`;
  return (
    `old_string matched ${where} of \`${shownPath(path)}\` only when whitespace is ignored, and new_string's indentation, fitted to the file's ` +
    `indentation there, would make the file at least ${size(r.bytes, limit)}; nothing was written. ` +
    `Send the edit again with ${old}, and new_string indented the way those lines are (an exact old_string writes new_string as you send it, ` +
    `with no indentation fitted); or make the change smaller.`
  );
}

/** "381.5 MiB, over the 32.0 MiB file size limit", in bytes when the two would read the same in MiB. */
function size(bytes: number, limit: number): string {
  const [b, l] = mib(bytes) === mib(limit) ? [`${bytes} bytes`, `${limit}-byte`] : [mib(bytes), mib(limit)];
  return `${b}, over the ${l} file size limit (maxFileBytes)`;
}
