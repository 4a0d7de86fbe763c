/**
 * Pasted view artifacts in text a tool is about to write: `N:hh|` prefixes
 * copied from view output, and a markdown code fence around code for a file
 * that is not markdown. None is ever written silently. The rule (also in
 * docs/tools.md):
 *
 * - Stripped, with a note, only when no legitimate file could contain it:
 *   every prefix names, by a verified id, a line of the current file inside
 *   the region being replaced (the lines an edit matched, a replace's range,
 *   the whole file for write). Content never starts with the id of the very
 *   line it replaces; a paste of the view always does.
 * - Refused otherwise, with the cleaned call and nothing written: a prefix
 *   or a fence could be content (documentation of view output, a fixture, a
 *   markdown snippet in a docstring), so the model says which it meant.
 * - Not checked when the file already has such lines (it is that kind of
 *   file), for markdown files (fences), or when the call says "verbatim": true.
 */

import { fenceWrapped, findViewPrefixes, isFenceLine, isMarkdownPath } from "../../text/artifacts.ts";

/** What to do with a text before writing it. */
export type PasteVerdict =
  | { readonly kind: "clean" }
  /** Write `text` instead, and say `note`. */
  | { readonly kind: "strip"; readonly text: string; readonly note: string }
  /** Write nothing; `what` says what was found, `cleaned` is the text without it. */
  | { readonly kind: "refuse"; readonly what: string; readonly cleaned: string };

/** What the check knows about the target. */
export interface PasteContext {
  /** Workspace path of the file (its extension decides about fences). */
  readonly path: string;
  /** The file's current lines, when it exists. */
  readonly fileLines?: readonly string[];
  /** Whether `N:hh` is a current id of a line in the region being replaced. */
  readonly ownsId?: (line: number, hash: number) => boolean;
}

/** Check `text` (rules in the module comment). */
export function checkPasted(text: string, target: PasteContext): PasteVerdict {
  const found: string[] = [];
  let cleaned = text;
  const fenced = isMarkdownPath(target.path) || target.fileLines?.some(isFenceLine) ? undefined : fenceWrapped(text);
  if (fenced) {
    cleaned = fenced.inner;
    const open = JSON.stringify(text.split("\n")[0].trim());
    const close = JSON.stringify(text.trimEnd().split("\n").pop()!.trim());
    found.push(`is wrapped in a markdown code fence (first line ${open}, last line ${close}), and \`${target.path}\` is not a markdown file`);
  }
  const prefixes = findViewPrefixes(cleaned);
  const existing = target.fileLines ? new Set(target.fileLines) : undefined;
  const pasted = prefixes?.prefixed.filter((p) => !existing?.has(p.text.replace(/\r$/, ""))) ?? [];
  if (prefixes && pasted.length > 0) {
    const own = target.ownsId;
    if (!fenced && own && prefixes.prefixed.every((p) => own(p.line, p.hash))) {
      const n = prefixes.prefixed.length;
      return {
        kind: "strip",
        text: prefixes.cleaned,
        note:
          `${n === 1 ? "1 line" : `${n} lines`} of the content started with "N:hh|", the view prefix of the very line ${n === 1 ? "it replaces" : "they replace"}; ` +
          `the prefixes were removed and only the text after them written. Send content without the prefixes.`,
      };
    }
    cleaned = prefixes.cleaned;
    const first = pasted[0].text;
    const sample = first.length > 60 ? `${first.slice(0, 60)}…` : first;
    found.push(
      `has ${pasted.length === 1 ? "a line" : `${pasted.length} lines`} starting with a view prefix "N:hh|" (e.g. ${JSON.stringify(sample)}); ` +
        `view shows that prefix in front of each line, it is not part of the file`,
    );
  }
  return found.length === 0 ? { kind: "clean" } : { kind: "refuse", what: found.join(", and "), cleaned };
}

/** The closing sentences of a refusal: what to send, and how to keep the text as it was. */
export function pastedRemedy(call: string): string {
  return `Nothing was written. Send the cleaned call:\n${call}\nIf the text really belongs in the file as sent, send the same call with "verbatim": true.`;
}
