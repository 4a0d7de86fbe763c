/**
 * Query parameters are checked, not skimmed: an unknown name (a typo such as
 * `maxbytes`) or a repeated one is refused with 400 instead of being ignored,
 * because ignoring it silently does something else than what was asked
 * (e.g. a workspace with the default quota).
 */
import type { Context } from "hono";
import type { AppEnv } from "./middleware.ts";
import { errorResponse } from "./responses.ts";

/** Lower case without `_` and `-`: how a near miss of an accepted name is recognised. */
const folded = (name: string) => name.toLowerCase().replace(/[_-]/g, "");

/** A 400 when the query has a parameter not in `accepted`, or one given twice; undefined when it is fine. */
export function queryRefusal(c: Context<AppEnv>, accepted: readonly string[]): Response | undefined {
  const params = new URL(c.req.url).searchParams;
  const seen = new Set<string>();
  const route = `${c.req.method} ${new URL(c.req.url).pathname}`;
  const takes = accepted.length ? `it takes ${accepted.map((a) => `?${a}=`).join(", ")}` : "it takes no query parameters";
  for (const name of params.keys()) {
    if (!accepted.includes(name)) {
      const near = accepted.find((a) => folded(a) === folded(name));
      const hint = near ? `did you mean ?${near}=? ` : "";
      return errorResponse(400, "INVALID_ARGUMENT", `Unknown query parameter ?${name.slice(0, 60)}= on ${route}: ${hint}${takes}. Nothing was done.`);
    }
    if (seen.has(name)) {
      return errorResponse(400, "INVALID_ARGUMENT", `Query parameter ?${name}= is given twice on ${route}; give it once. Nothing was done.`);
    }
    seen.add(name);
  }
  return undefined;
}
