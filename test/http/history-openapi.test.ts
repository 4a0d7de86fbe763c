/**
 * `/openapi.json` describes the audit and history routes as the server
 * answers them: the replies of a real session's log, history and revert fit
 * the documented schemas (every required field, no field left out), and
 * every documented query parameter is one the server takes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startHistoryApp } from "../helpers/history-app.ts";
import { api, fiveEdits, type HistoryTarget, ok } from "../helpers/history-flow.ts";

type Schema = {
  readonly type?: string | string[];
  readonly properties?: Record<string, Schema>;
  readonly required?: string[];
  readonly items?: Schema;
  readonly enum?: unknown[];
};
type Operation = {
  readonly parameters?: { name: string; in: string }[];
  readonly responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
};

/** Where `value` departs from `schema` (types, required and documented properties, enums), as readable lines. */
function departures(value: unknown, schema: Schema, at = "$"): string[] {
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  const kind = value === null ? "null" : Array.isArray(value) ? "array" : Number.isInteger(value) ? "integer" : typeof value;
  if (types.length > 0 && !types.includes(kind) && !(kind === "integer" && types.includes("number"))) return [`${at}: ${kind}, documented ${types.join("|")}`];
  if (schema.enum && !schema.enum.includes(value)) return [`${at}: ${JSON.stringify(value)} not in ${JSON.stringify(schema.enum)}`];
  if (kind === "array" && schema.items) return (value as unknown[]).flatMap((item, i) => departures(item, schema.items!, `${at}[${i}]`));
  if (kind !== "object" || !schema.properties) return [];
  const record = value as Record<string, unknown>;
  const missing = (schema.required ?? []).filter((key) => !(key in record)).map((key) => `${at}.${key}: required, missing`);
  const extra = Object.keys(record)
    .filter((key) => !(key in schema.properties!))
    .map((key) => `${at}.${key}: not documented`);
  const inner = Object.entries(record).flatMap(([key, v]) => (schema.properties![key] ? departures(v, schema.properties![key], `${at}.${key}`) : []));
  return [...missing, ...extra, ...inner];
}

let fixture: ReturnType<typeof startHistoryApp>;
let target: HistoryTarget;
let paths: Record<string, Record<string, Operation>>;

const okSchema = (op: Operation) => op.responses["200"].content!["application/json"].schema;

beforeAll(async () => {
  fixture = startHistoryApp();
  target = fixture.target;
  paths = ((await (await fetch(`${target.url}/openapi.json`)).json()) as { paths: typeof paths }).paths;
  await fiveEdits(target, "s1");
});
afterAll(() => fixture.stop());

describe("the audit and history routes in /openapi.json", () => {
  test("are described", () => {
    expect(Object.keys(paths["/v1/audit"])).toEqual(["get"]);
    expect(Object.keys(paths["/v1/history"])).toEqual(["get"]);
    expect(Object.keys(paths["/v1/history/content"])).toEqual(["get"]);
    expect(Object.keys(paths["/v1/revert"])).toEqual(["post"]);
  });

  test("GET /v1/audit's reply fits its schema, and every documented parameter is taken", async () => {
    const op = paths["/v1/audit"].get;
    const page = await api(target, "/v1/audit?changes=1&limit=2", target.auditToken);
    expect(page.status).toBe(200);
    expect(departures(page.json, okSchema(op))).toEqual([]);
    const cursor = (page.json as { cursor?: string }).cursor;
    expect(cursor).toBeString();
    const examples: Record<string, string> = {
      since: "2020-01-01T00:00:00Z",
      limit: "5",
      session: "s1",
      principal: "agent",
      cursor: cursor!,
      changes: "true",
      path: "win.txt",
    };
    const names = op.parameters!.map((p) => p.name);
    expect(names.sort()).toEqual(Object.keys(examples).sort());
    for (const name of names) {
      const reply = await api(target, `/v1/audit?${name}=${encodeURIComponent(examples[name])}`, target.auditToken);
      expect({ name, status: reply.status }).toEqual({ name, status: 200 });
      expect(departures(reply.json, okSchema(op))).toEqual([]);
    }
    // An undocumented parameter is refused, so the list above is the whole of what the route takes.
    expect((await api(target, "/v1/audit?sessoin=s1", target.auditToken)).status).toBe(400);
  });

  test("GET /v1/history's reply fits its schema, and its versions serve through /v1/history/content", async () => {
    const reply = await api(target, "/v1/history?path=src/app.ts", target.auditToken);
    expect(reply.status).toBe(200);
    expect(departures(reply.json, okSchema(paths["/v1/history"].get))).toEqual([]);
    const { versions } = reply.json as unknown as { versions: { after: { version: string } | null }[] };
    expect(versions.length).toBe(2);
    const names = paths["/v1/history/content"].get.parameters!.map((p) => p.name);
    expect(names).toEqual(["path", "version"]);
    const content = await fetch(`${target.url}/v1/history/content?path=src/app.ts&version=${encodeURIComponent(versions[0].after!.version)}`, {
      headers: { authorization: `Bearer ${target.auditToken}` },
    });
    expect(content.status).toBe(200);
    expect(Object.keys(paths["/v1/history/content"].get.responses["200"].content!)).toEqual([content.headers.get("content-type")!]);
  });

  test("POST /v1/revert's reply fits its schema, with a conflict and with a revert done", async () => {
    const op = paths["/v1/revert"].post;
    // Another session changes a file the log's last change made, so its revert is a conflict.
    await ok(target, "view", { path: "src/app.ts" }, "other");
    await ok(target, "edit", { path: "src/app.ts", old_string: "8080", new_string: "9090" }, "other");
    const log = await api(target, "/v1/audit?session=s1&changes=1", target.auditToken);
    const entries = log.json.entries;
    const appEdit = entries.find((e) => e.changes.some((c) => c.path === "src/app.ts"))!;
    const conflict = await api(target, "/v1/revert", target.adminToken, { change: appEdit.id });
    expect(conflict.status).toBe(200);
    expect((conflict.json as { ok: boolean }).ok).toBe(false);
    expect(departures(conflict.json, okSchema(op))).toEqual([]);
    const docEdit = entries.find((e) => e.changes.some((c) => c.path === "docs/bom.md"))!;
    const done = await api(target, "/v1/revert", target.adminToken, { change: docEdit.id });
    expect((done.json as { ok: boolean }).ok).toBe(true);
    expect(departures(done.json, okSchema(op))).toEqual([]);
  });
});
