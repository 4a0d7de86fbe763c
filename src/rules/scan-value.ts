/** A structured value rendered for scanning within a budget. */
export interface ValueText {
  /** JSON text of the value, cut at the budget. */
  readonly json: string;
  /** The value's string fields, raw (newlines intact, so line-anchored rules work), joined with "\n". */
  readonly strings: string;
  /** True when either rendering was cut. */
  readonly truncated: boolean;
}

const MAX_DEPTH = 64;

/**
 * Render `value` as JSON and as its raw string fields, each at most `budget`
 * characters. Unlike `JSON.stringify` the work stops at the budget, cycles
 * and BigInts do not throw, and a huge string is sliced before it is escaped.
 */
export function valueText(value: unknown, budget: number): ValueText {
  const json: string[] = [];
  let jsonLength = 0;
  const strings: string[] = [];
  let stringsLength = 0;
  let truncated = false;
  const ancestors = new Set<object>();

  const emit = (piece: string): boolean => {
    const room = budget - jsonLength;
    if (piece.length > room) {
      json.push(piece.slice(0, Math.max(0, room)));
      jsonLength = budget;
      truncated = true;
      return false;
    }
    json.push(piece);
    jsonLength += piece.length;
    return true;
  };
  const collect = (text: string): void => {
    if (stringsLength >= budget) {
      truncated = true;
      return;
    }
    const piece = text.slice(0, budget - stringsLength);
    if (piece.length < text.length) truncated = true;
    strings.push(piece);
    stringsLength += piece.length + 1;
  };

  // Returns false once the JSON budget is spent; string collection stops with it.
  const walk = (input: unknown, depth: number): boolean => {
    let node = input;
    if (node !== null && typeof node === "object" && typeof (node as { toJSON?: unknown }).toJSON === "function") {
      node = (node as { toJSON: () => unknown }).toJSON();
    }
    switch (typeof node) {
      case "string": {
        collect(node);
        // Escaping at most doubles-ish the length; slice first so a 50 MB string costs the budget, not 50 MB.
        return emit(JSON.stringify(node.slice(0, budget - jsonLength + 1)));
      }
      case "number":
        return emit(Number.isFinite(node) ? String(node) : "null");
      case "boolean":
        return emit(String(node));
      case "bigint":
        return emit(String(node));
      case "undefined":
      case "function":
      case "symbol":
        return emit("null");
    }
    if (node === null) return emit("null");
    const obj = node as object;
    if (ancestors.has(obj)) return emit('"[Circular]"');
    if (depth >= MAX_DEPTH) return emit('"[Too deep]"');
    ancestors.add(obj);
    try {
      if (Array.isArray(obj)) {
        if (!emit("[")) return false;
        for (let i = 0; i < obj.length; i++) {
          if (i > 0 && !emit(",")) return false;
          if (!walk(obj[i], depth + 1)) return false;
        }
        return emit("]");
      }
      if (!emit("{")) return false;
      let first = true;
      for (const key of Object.keys(obj)) {
        const item = (obj as Record<string, unknown>)[key];
        if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
        if (!first && !emit(",")) return false;
        first = false;
        if (!emit(`${JSON.stringify(key)}:`)) return false;
        if (!walk(item, depth + 1)) return false;
      }
      return emit("}");
    } finally {
      ancestors.delete(obj);
    }
  };

  walk(value, 0);
  return { json: json.join(""), strings: strings.join("\n"), truncated };
}
