/**
 * The JSON-over-POST protocol of toolwarden's Durable Objects (observations,
 * workspace usage): one request a call, validated on arrival, answered with
 * JSON. Both sides live here so the objects and their clients cannot drift.
 */
import * as v from "valibot";
import { CodedError } from "../errors.ts";
import type { DurableObjectNamespaceLike } from "./durable.ts";

/** A JSON answer with `status`. */
export function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}

/**
 * Parse `request` against `schema` and answer with `handle`'s result: 400
 * for a body that is not JSON or not a request, 500 with the message when
 * `handle` throws.
 */
export async function serveObjectRequest<TSchema extends v.GenericSchema>(
  request: Request,
  schema: TSchema,
  handle: (call: v.InferOutput<TSchema>) => unknown | Promise<unknown>,
): Promise<Response> {
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return jsonResponse(400, { error: "the body must be JSON" });
  }
  const parsed = v.safeParse(schema, body);
  if (!parsed.success) return jsonResponse(400, { error: `bad request: ${v.summarize(parsed.issues)}` });
  try {
    return jsonResponse(200, await handle(parsed.output));
  } catch (error) {
    return jsonResponse(500, { error: error instanceof Error ? error.message : String(error) });
  }
}

/**
 * A caller of the object named `name` in `namespace`; a failed answer is
 * INTERNAL_ERROR naming `what` (the tool reports it, and nothing is written
 * without the object's say).
 */
export function objectCaller(namespace: DurableObjectNamespaceLike, what: string, url: string) {
  return async <T>(name: string, request: unknown): Promise<T> => {
    const stub = namespace.get(namespace.idFromName(name));
    const response = await stub.fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(request),
    });
    if (!response.ok) {
      const detail = await response.text().catch(() => "");
      throw new CodedError("INTERNAL_ERROR", `${what} failed (${response.status}): ${detail}`);
    }
    return (await response.json()) as T;
  };
}
