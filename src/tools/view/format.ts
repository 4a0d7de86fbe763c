/** Small wording helpers shared by the view outputs. */

import { wholeCharRange } from "../../text/render.ts";
import { shownPath } from "../support/remedy.ts";

/** "1 line" / "3 lines". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A byte size as a person would say it: "812 B", "4.2 KiB", "3.0 MiB". */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GiB`;
}

/** Model input echoed in a message: JSON-quoted, bounded so a pasted blob does not flood the reply. */
export function quoteArg(text: string, max = 80): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, wholeCharRange(text, 0, max)[1])}…` : text);
}

/** The exact `view` call for these arguments, e.g. `view {"path": "a.ts", "start": 201}`. */
export function viewCall(path: string, args: Readonly<Record<string, unknown>> = {}): string {
  const parts = [`"path": ${JSON.stringify(shownPath(path))}`];
  for (const [key, value] of Object.entries(args)) {
    if (value !== undefined) parts.push(`${JSON.stringify(key)}: ${JSON.stringify(value)}`);
  }
  return `view {${parts.join(", ")}}`;
}
