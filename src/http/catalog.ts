/**
 * What clients see of each tool: name, description, the JSON Schema of its
 * arguments and its annotations. The JSON Schema is generated from the
 * tool's valibot schema (the one the pipeline validates with), never written
 * by hand, so the advertised and the enforced shapes cannot drift apart.
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import type { ToolAnnotations, ToolDef } from "../tools/types.ts";
import type { Scope } from "./auth.ts";

/** A JSON Schema object. */
export type JsonSchema = Record<string, unknown>;

/** One tool as listed by `GET /v1/tools`, MCP `tools/list` and `/openapi.json`. */
export interface ToolDescriptor {
  readonly name: string;
  readonly description: string;
  /** The scope a token needs to call it. */
  readonly scope: Scope;
  /** JSON Schema (draft 2020-12) of the arguments object. */
  readonly inputSchema: JsonSchema;
  readonly annotations: ToolAnnotations;
}

/**
 * JSON Schema of what a client sends (`typeMode: "input"`: before defaults
 * and transforms). Checks with no JSON Schema form (custom `check`s) are left
 * out rather than failing start-up: the schema advises clients, and the
 * pipeline still enforces every check with a model-facing message.
 * MCP requires `type: "object"` at the top; a union of object forms gets it
 * added beside its `anyOf`, which keeps the meaning.
 */
export function inputSchemaOf(tool: Pick<ToolDef, "schema">): JsonSchema {
  const schema = toJsonSchema(tool.schema, { target: "draft-2020-12", typeMode: "input", errorMode: "ignore" }) as JsonSchema;
  return schema.type === "object" ? schema : { type: "object", ...schema };
}

/**
 * Annotations as clients should see them: a read-scope tool is marked
 * `readOnlyHint` and any other `destructiveHint` unless the tool says
 * otherwise itself (MCP's defaults assume the worst, so say it explicitly).
 */
export function annotationsOf(tool: Pick<ToolDef, "scope" | "annotations">): ToolAnnotations {
  const readOnly = tool.annotations.readOnlyHint ?? tool.scope === "read";
  const base: ToolAnnotations = readOnly ? { readOnlyHint: true } : { readOnlyHint: false, destructiveHint: true };
  return { ...base, ...tool.annotations };
}

/** The descriptor of one tool. */
export function describeTool(tool: ToolDef): ToolDescriptor {
  return {
    name: tool.name,
    description: tool.description,
    scope: tool.scope,
    inputSchema: inputSchemaOf(tool),
    annotations: annotationsOf(tool),
  };
}

/**
 * The tools a caller with `scopes` can use. Lists are filtered because a
 * model offered a tool its token can never call spends a turn finding that
 * out; a direct call still gets the pipeline's explanatory refusal.
 */
export function usableTools(tools: readonly ToolDescriptor[], scopes: ReadonlySet<Scope>): ToolDescriptor[] {
  return tools.filter((tool) => scopes.has(tool.scope));
}
