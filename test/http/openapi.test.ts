/** `/openapi.json`: a self-consistent OpenAPI 3.1 document whose tool schemas are the served ones. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { jsonHeaders, startServer, TOKENS, type TestServer } from "../helpers/server.ts";

/** An operation of the document, with the fields these tests read. */
interface Operation {
  readonly operationId: string;
  readonly responses: Record<string, { readonly description: string }>;
  readonly requestBody: { readonly content: Record<string, { readonly schema: unknown }> };
  readonly security: unknown[];
  readonly parameters: { readonly name: string }[];
  readonly "x-toolwarden-scope": string;
}

/** The OpenAPI document, with the fields these tests read. */
interface Doc {
  readonly openapi: string;
  readonly info: unknown;
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: { readonly securitySchemes?: unknown };
}

/** Every `$ref` in the document, with where it was found. */
function refs(node: unknown, at = "#"): Array<[string, string]> {
  if (Array.isArray(node)) return node.flatMap((item, i) => refs(item, `${at}/${i}`));
  if (typeof node !== "object" || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === "$ref" && typeof value === "string" ? [[at, value] as [string, string]] : refs(value, `${at}/${key}`),
  );
}

function resolve(doc: Doc, ref: string): unknown {
  return ref
    .slice(2)
    .split("/")
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
}

describe("openapi.json", () => {
  let server: TestServer;
  let doc: Doc;
  beforeAll(async () => {
    server = startServer();
    const response = await fetch(`${server.url}/openapi.json`);
    expect(response.status).toBe(200);
    doc = (await response.json()) as Doc;
  });
  afterAll(() => server.stop());

  test("is OpenAPI 3.1 with the REST paths", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info).toMatchObject({ title: "toolwarden", version: "9.9.9-test" });
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/healthz", "/v1/tools", "/v1/tools/view", "/v1/tools/write", "/v1/tools/{name}"]));
  });

  test("every operation has a unique operationId and responses; every $ref resolves", () => {
    const ids: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        expect(["get", "post"]).toContain(method);
        expect(typeof op.operationId).toBe("string");
        expect(Object.keys(op.responses).length).toBeGreaterThan(0);
        for (const [status, response] of Object.entries(op.responses)) {
          expect(status).toMatch(/^[1-5]\d\d$/);
          expect(typeof response.description).toBe("string");
        }
        ids.push(op.operationId);
        expect(path.startsWith("/")).toBe(true);
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
    const all = refs(doc);
    expect(all.length).toBeGreaterThan(5);
    for (const [at, ref] of all) {
      expect({ at, ref, resolved: resolve(doc, ref) !== undefined }).toEqual({ at, ref, resolved: true });
    }
  });

  test("each tool's request schema is the schema GET /v1/tools serves", async () => {
    const response = await fetch(`${server.url}/v1/tools`, { headers: jsonHeaders(TOKENS.full) });
    const { tools } = (await response.json()) as { tools: Array<{ name: string; scope: string; inputSchema: Record<string, unknown> }> };
    for (const tool of tools) {
      const op = doc.paths[`/v1/tools/${tool.name}`].post;
      const { $schema, ...expected } = tool.inputSchema;
      expect($schema).toBe("https://json-schema.org/draft/2020-12/schema");
      expect(op.requestBody.content["application/json"].schema).toEqual(expected);
      expect(op["x-toolwarden-scope"]).toBe(tool.scope);
      expect(op.security).toEqual([{ bearerAuth: [] }]);
      expect(op.parameters.map((p) => p.name)).toContain("X-Session-Id");
    }
  });

  test("declares bearer auth, and none in no-auth mode", async () => {
    expect(doc.components.securitySchemes).toEqual({ bearerAuth: { type: "http", scheme: "bearer" } });
    expect(doc.paths["/healthz"].get.security).toEqual([]);
    const open = startServer({ auth: { mode: "none", workspace: "local" } });
    try {
      const openDoc = (await (await fetch(`${open.url}/openapi.json`)).json()) as Doc;
      expect(openDoc.components.securitySchemes).toBeUndefined();
      expect(openDoc.paths["/v1/tools/view"].post.security).toEqual([]);
      expect(openDoc.paths["/v1/tools/view"].post.responses["401"]).toBeUndefined();
    } finally {
      await open.stop();
    }
  });
});
