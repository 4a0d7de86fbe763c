/**
 * The recovery a refusal of a shortened line gives (see text/shortened.ts):
 * a long line cannot be sent whole by a model that never saw it whole, so
 * the call that works is an `edit` with a short old_string around the
 * change, offered ready when it is certain, described otherwise. Whatever
 * else the refused text changed goes in a call that leaves that line out.
 */

import type { ShortenedFinding } from "./pasted.ts";
import { shownPath } from "./remedy.ts";

/** The tool whose text was refused. */
export type ShortenedTool = "write" | "edit" | "batch_edit";

/** Most ready edits one refusal lists. */
const MAX_READY = 3;

/**
 * The sentences after a refusal's "what was found" (and its "nothing was
 * written"): the ready edits, what to do with the rest. `otherLines`: the refused text
 * has lines besides the shortened ones.
 */
export function shortenedRemedy(path: string, found: readonly ShortenedFinding[], tool: ShortenedTool, otherLines: boolean): string {
  const p = shownPath(path);
  const out: string[] = [];
  let ready = 0;
  let described = false;
  const unchanged: number[] = [];
  for (const { change } of found) {
    if (change?.edit && ready < MAX_READY) {
      ready++;
      out.push(
        `To make your change to line ${change.line + 1} and keep the rest of that line as it is, send this edit (old_string is a short piece around the change):\n` +
          `edit ${JSON.stringify({ path: p, ...change.edit })}`,
      );
    } else if (change?.unchanged) unchanged.push(change.line + 1);
    else if (!described) {
      described = true;
      out.push(
        `To change a line too long to show whole, send edit with old_string a short piece of the part you saw, around the change, and new_string that piece with your change: ` +
          `the rest of the line stays as it is. To see another part of the line, search for words in it: view {"path": ${JSON.stringify(p)}, "content": "<words from the line>"}.`,
      );
    }
  }
  if (unchanged.length > 0) {
    const which = unchanged.length === 1 ? `Line ${unchanged[0]} is` : `Lines ${unchanged.join(", ")} are`;
    out.push(`${which} unchanged in what you sent: ${leaveOut(tool)}.`);
  }
  if (otherLines) out.push(otherChanges(tool));
  out.push(`If the marker really belongs in the file, send the same ${tool === "batch_edit" ? "batch" : "call"} with "verbatim": true.`);
  return out.join("\n");
}

function leaveOut(tool: ShortenedTool): string {
  if (tool === "write") return "write replaces every line, so change the lines you mean with edit or batch_edit instead, which leave the long line as it is";
  if (tool === "edit") return "leave it out of old_string and new_string";
  return "leave it out of the operation (its range and content)";
}

function otherChanges(tool: ShortenedTool): string {
  if (tool === "write") return "write needs every line whole: make your other changes with edit or batch_edit, which leave the long line as it is.";
  if (tool === "edit") return "Make the rest of your change in another edit whose old_string and new_string leave the long line out.";
  return "Send the operation's other lines in an operation of their own whose range leaves the long line out.";
}
