/**
 * The REST surface: `GET /v1/tools` and `POST /v1/tools/:name`. A call
 * answers 200 with the tool's result whether the tool succeeded or failed;
 * non-200 means the request itself could not be taken (see responses.ts).
 */
import type { Context, Hono } from "hono";
import { closestName } from "../pipeline/suggest.ts";
import { MAX_JSON_DEPTH, nestsDeeperThan, utf8Body } from "./body.ts";
import { usableTools } from "./catalog.ts";
import { holdsLongString, jsonStream } from "./json-stream.ts";
import type { ToolHost } from "./host.ts";
import type { AppEnv } from "./middleware.ts";
import { errorResponse } from "./responses.ts";
import { callerSession, isValidSessionId, MAX_SESSION_ID_CHARS, principalSession, SESSION_HEADER } from "./sessions.ts";

/** `application/json` or any `application/*+json`, parameters allowed. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(";", 1)[0].trim().toLowerCase();
  return type === "application/json" || /^application\/[^/]+\+json$/.test(type);
}

/** Register the REST routes on `app` (auth and the body limit are applied by the caller). */
export function mountRest(app: Hono<AppEnv>, host: ToolHost): void {
  app.get("/v1/tools", (c) => {
    const tools = usableTools(host.tools, c.get("principal").scopes);
    return c.json({ tools });
  });

  app.post("/v1/tools/:name", async (c) => {
    const name = c.req.param("name");
    if (!host.has(name)) return unknownTool(name, host);

    const session = restSession(c);
    if (session instanceof Response) return session;

    if (!isJsonMediaType(c.req.header("content-type"))) {
      const got = c.req.header("content-type");
      return errorResponse(
        400,
        "INVALID_ARGUMENT",
        `Content-Type must be application/json (got ${got ? JSON.stringify(got) : "none"}). ` +
          "Send the tool's arguments as a JSON object with `Content-Type: application/json`.",
      );
    }
    const body = await utf8Body(c.req);
    if (body === undefined) {
      return errorResponse(
        400,
        "INVALID_ARGUMENT",
        "The request body is not valid UTF-8. Send the arguments as JSON encoded in UTF-8; convert text in another encoding " +
          "(e.g. Latin-1) first, since its characters cannot be read as sent.",
      );
    }
    if (nestsDeeperThan(body)) {
      return errorResponse(
        400,
        "INVALID_ARGUMENT",
        `The request body nests arrays/objects more than ${MAX_JSON_DEPTH} levels deep. Tool arguments are a flat object ` +
          `(batch_edit's operations are the deepest, at 3 levels); send them as such.`,
      );
    }
    let args: unknown;
    try {
      args = JSON.parse(body);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      return errorResponse(
        400,
        "INVALID_ARGUMENT",
        `The request body is not valid JSON (${why}). Send the tool's arguments as one JSON object, ` +
          `e.g. {"path": "src/main.ts"}; send {} for a call without arguments.`,
      );
    }

    const principal = c.get("principal");
    const result = await host.call("rest", principal, session, name, args, c.req.raw.signal);
    // A large result (a whole-file view) is written as it is read rather than stringified whole first.
    return holdsLongString(result) ? c.body(jsonStream(result), 200, { "content-type": "application/json" }) : c.json(result);
  });

  app.on(["GET", "PUT", "PATCH", "DELETE"], "/v1/tools/:name", (c) =>
    errorResponse(
      405,
      "INVALID_ARGUMENT",
      `${c.req.method} is not supported here. Call a tool with POST /v1/tools/${c.req.param("name")} and a JSON body of arguments; ` +
        "GET /v1/tools lists the tools.",
      { allow: "POST" },
    ),
  );
}

/** The observation session of a REST call: the X-Session-Id header, else the caller's own session. */
function restSession(c: Context<AppEnv>): string | Response {
  const principal = c.get("principal");
  const header = c.req.header(SESSION_HEADER);
  if (header === undefined) return principalSession(principal);
  if (!isValidSessionId(header)) {
    return errorResponse(
      400,
      "INVALID_ARGUMENT",
      `${SESSION_HEADER} must be 1-${MAX_SESSION_ID_CHARS} visible ASCII characters (no spaces or control characters). ` +
        `Use e.g. a UUID, or omit the header to use the token's own session.`,
    );
  }
  return callerSession(principal, "rest", header);
}

function unknownTool(name: string, host: ToolHost): Response {
  const names = host.tools.map((t) => t.name);
  const guess = closestName(name, names);
  return errorResponse(
    404,
    "INVALID_ARGUMENT",
    `There is no tool ${JSON.stringify(name)}.${guess ? ` Did you mean ${JSON.stringify(guess)}?` : ""} Available tools: ${names.length ? names.join(", ") : "none"}. ` +
      "GET /v1/tools lists them with their input schemas.",
  );
}
