/** JSON Schema of a result's facts (ResultFacts in src/result.ts), shared by MCP `outputSchema` and the OpenAPI document. */

/** The properties of ResultFacts; every one optional. */
export const FACTS_PROPERTIES = {
  path: { type: "string", description: "the file the call read or wrote" },
  version: { type: "string", description: "the file's version after the call (a write's compare-and-swap is on it)" },
  lines: {
    type: "object",
    description: "a file view: the lines shown and the file's line count",
    properties: { from: { type: "integer" }, to: { type: "integer" }, total: { type: "integer" } },
    required: ["from", "to", "total"],
  },
  changes: {
    type: "array",
    description: "a change: each changed range (old and new spans) with the fresh N:hh ids of its new lines",
    items: {
      type: "object",
      properties: {
        oldStart: { type: "integer" },
        oldCount: { type: "integer" },
        newStart: { type: "integer" },
        newCount: { type: "integer" },
        ids: { type: "array", items: { type: "string" } },
        complete: { type: "boolean", description: "false when ids lists fewer than newCount lines (a change too large to diff, or the list was capped)" },
      },
      required: ["oldStart", "oldCount", "newStart", "newCount", "ids", "complete"],
    },
  },
} as const;
