/**
 * Reading the calls a failure text suggests, the way a model would: every
 * `tool {json}` written in the text (`view {"path": …}`, `batch_edit {…}`),
 * and every bare operation object (`{"operation": …}`), parsed as JSON.
 */

/** One call a text suggests. */
export interface SuggestedCall {
  readonly tool: string;
  readonly args: Record<string, unknown>;
}

const TOOLS = ["batch_edit", "view", "write", "edit"];

/** The JSON object starting at `text[from]` ("{"), or undefined when it does not parse. */
export function jsonAt(text: string, from: number): { value: unknown; end: number } | undefined {
  let depth = 0;
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") {
      depth--;
      if (depth === 0) {
        try {
          return { value: JSON.parse(text.slice(from, i + 1)), end: i + 1 };
        } catch {
          return undefined;
        }
      }
    }
  }
  return undefined;
}

/** Every `tool {json}` call in `text`, in order. */
export function suggestedCalls(text: string): SuggestedCall[] {
  const calls: SuggestedCall[] = [];
  const pattern = new RegExp(`\\b(${TOOLS.join("|")}) \\{`, "g");
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    const parsed = jsonAt(text, m.index + m[1].length + 1);
    if (parsed && typeof parsed.value === "object" && parsed.value !== null) {
      calls.push({ tool: m[1], args: parsed.value as Record<string, unknown> });
      pattern.lastIndex = parsed.end;
    }
  }
  return calls;
}

/** The first suggested call to `tool`, or throws with the text. */
export function firstCall(text: string, tool: string): Record<string, unknown> {
  const call = suggestedCalls(text).find((c) => c.tool === tool);
  if (!call) throw new Error(`no ${tool} call suggested in:\n${text}`);
  return call.args;
}

/** Every `{"operation": …}` object in `text` that is not inside a suggested batch_edit call. */
export function suggestedOperations(text: string): Record<string, unknown>[] {
  const ops: Record<string, unknown>[] = [];
  const pattern = /\{"operation": /g;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    const parsed = jsonAt(text, m.index);
    if (parsed) {
      ops.push(parsed.value as Record<string, unknown>);
      pattern.lastIndex = parsed.end;
    }
  }
  return ops;
}
