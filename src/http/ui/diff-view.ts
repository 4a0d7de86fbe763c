/**
 * A change as the model would read it: a line diff with `N:hh` ids (fresh
 * ids on context and added lines, old ids on removed ones), rendered by the
 * same code as edit results, each line marked by its prefix (+, -, @@) as
 * well as by colour.
 */
import { html } from "hono/html";
import { diffLines, renderDiff } from "../../text/diff.ts";
import type { Html } from "./layout.ts";

const decoder = new TextDecoder("utf-8", { fatal: true });

/** The lines of a text file (BOM dropped, CRLF kept out of the content), or undefined for bytes that are not UTF-8. */
export function textLines(bytes: Uint8Array): string[] | undefined {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return undefined;
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lines = text.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function lineClass(line: string): string {
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+ ")) return "add";
  if (line.startsWith("- ")) return "del";
  if (line.startsWith("  ")) return "ctx";
  return "note";
}

/** Diff text (the renderDiff format) as marked-up lines. */
export function diffBlock(text: string): Html {
  if (text === "") return html`<p>No line changes (the bytes differ only in line endings, a BOM, or not at all).</p>`;
  // Block spans, no newline between them: copying still yields one line each.
  const lines = text.split("\n").map((line) => html`<span class="${lineClass(line)}">${line}</span>`);
  return html`<pre class="diff">${lines}</pre>`;
}

/** The diff from `before` to `after` (undefined: the side is absent). */
export function changeDiff(before: Uint8Array | undefined, after: Uint8Array | undefined): Html {
  const a = before ? textLines(before) : [];
  const b = after ? textLines(after) : [];
  if (!a || !b) return html`<p>Not text (${before?.byteLength ?? 0} B → ${after?.byteLength ?? 0} B): no line diff.</p>`;
  return diffBlock(renderDiff(diffLines(a, b, { context: 3 }), { maxLines: 400, maxLineChars: 400 }));
}
