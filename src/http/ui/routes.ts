/**
 * `/ui`: the inspector, served by the same app on every runtime. A page
 * answers only a signed-in request (a cookie holding a token with scope
 * `audit` or `admin`); anything else gets the sign-in page. Reads come from
 * the workspace's history and its guarded storage (read-only); a revert is
 * a call to the app's own `POST /v1/revert` with the signed-in token, so it
 * is checked, compare-and-swapped and recorded exactly as an API revert.
 */
import type { Context, Hono, MiddlewareHandler } from "hono";
import { html } from "hono/html";
import type { LineHasher } from "../../hash/types.ts";
import type { HistoryStore } from "../../history/mod.ts";
import type { Authenticator } from "../auth.ts";
import type { ToolHost } from "../host.ts";
import type { AppEnv } from "../middleware.ts";
import { CSS, SCRIPT } from "./assets.ts";
import { lastEntries, summarizeSessions } from "./data.ts";
import { eventStream } from "./events.ts";
import { changeDiff } from "./diff-view.ts";
import { fileView, versionRows, workspaceTree } from "./files.ts";
import { type Html, page, signInPage } from "./layout.ts";
import { callPage, feedPage, filePage, filesPage, revertPage, sessionPage, sessionsPage, usageBlock } from "./pages.ts";
import { currentSession, endSession, mayInspect, sameOrigin, sameSecret, startSession, type UiSession } from "./session.ts";

/** What the inspector needs from the app. */
export interface UiOptions {
  readonly auth: Authenticator;
  readonly host: ToolHost;
  readonly hasher: LineHasher;
  /** Hosted workspaces (usage against quota), when the app has them. */
  readonly workspaces?: UsageSource;
}

/** What the feed reads of hosted workspaces: a workspace's usage and quota (undefined when not hosted). */
export interface UsageSource {
  info(workspace: string): Promise<{ usage: { bytes: number; files: number }; quota: { maxBytes: number; maxFiles: number } } | undefined>;
}

/** Calls shown on the feed page. */
const FEED_SIZE = 100;

const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy":
    "default-src 'none'; style-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  // same-origin, not no-referrer: with no-referrer Chrome sends `Origin: null` on form posts, which the origin checks refuse.
  "referrer-policy": "same-origin",
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
};

const headers: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
};

type Handler = (c: Context<AppEnv>, session: UiSession, history: HistoryStore) => Promise<Response>;

/** Register `/ui` and its pages on `app`. */
export function mountUi(app: Hono<AppEnv>, options: UiOptions): void {
  const { auth, host } = options;
  const render = (c: Context<AppEnv>, title: string, session: UiSession | undefined, body: Html | string, live = false) =>
    c.html(page(title, session, typeof body === "string" ? html`<p>${body}</p>` : body, { live }));

  /** Run `handler` for a signed-in request; anything else gets the sign-in page, never data. */
  const signedIn =
    (handler: Handler) =>
    async (c: Context<AppEnv>): Promise<Response> => {
      const session = await currentSession(c, auth);
      if (!session) return c.html(signInPage());
      const history = host.historyOf(session.principal.workspace);
      if (!history)
        return render(c, "No history", session, "This server does not record history (start it with a state directory, or on storage that keeps one).");
      return handler(c, session, history);
    };

  app.use("/ui", headers);
  app.use("/ui/*", headers);
  app.get("/ui/app.css", (c) => c.body(CSS, 200, { "content-type": "text/css; charset=utf-8" }));
  app.get("/ui/app.js", (c) => c.body(SCRIPT, 200, { "content-type": "text/javascript; charset=utf-8" }));

  app.get(
    "/ui",
    signedIn(async (c, session, history) => {
      const workspace = session.principal.workspace;
      // Usage is a courtesy: a registry that cannot answer leaves it out, not the feed.
      const info = await options.workspaces?.info(workspace).catch(() => undefined);
      const usage = info ? usageBlock(workspace, info.usage, info.quota) : undefined;
      return render(c, "Calls", session, feedPage((await history.query({ newest: true, limit: FEED_SIZE })).entries, usage), true);
    }),
  );

  app.post("/ui/signin", async (c) => {
    if (!sameOrigin(c)) return c.html(signInPage("The sign-in form must be sent from this page (the request came from another origin)."), 403);
    const form = await c.req.parseBody();
    const token = typeof form.token === "string" ? form.token.trim() : "";
    const outcome = token && !/\s/.test(token) ? await auth.authenticate(`Bearer ${token}`) : undefined;
    // Refusals re-render the form (200): a page that answers a person, not an API status for a client.
    if (!outcome?.ok) return c.html(signInPage("That token is not valid for this server. Paste a token with scope audit or admin."));
    if (!mayInspect(outcome.principal)) {
      const has = [...outcome.principal.scopes].join(", ") || "none";
      return c.html(signInPage(`This token has scopes ${has}; the inspector needs a token with scope audit (read) or admin (read and revert).`));
    }
    startSession(c, token);
    return c.redirect("/ui", 303);
  });

  app.post("/ui/signout", async (c) => {
    const session = await currentSession(c, auth);
    const form = await c.req.parseBody();
    // Signing out is harmless, but a forged sign-out is still refused.
    if (session && (!sameOrigin(c) || typeof form.csrf !== "string" || !sameSecret(form.csrf, session.csrf))) {
      return render(c, "Refused", session, "The sign-out form did not come from this page; use the Sign out button.");
    }
    endSession(c);
    return c.redirect("/ui", 303);
  });

  app.get(
    "/ui/call/:id",
    signedIn(async (c, session, history) => {
      const entry = await history.get(c.req.param("id") ?? "");
      if (!entry) return render(c, "No such call", session, "That call is not in this workspace's log (it may have aged out).");
      const diffs = await Promise.all(
        entry.changes.map(async (ch) =>
          changeDiff(ch.before ? await history.getBlob(ch.before.blob) : undefined, ch.after ? await history.getBlob(ch.after.blob) : undefined),
        ),
      );
      return render(c, `${entry.tool} ${entry.paths.join(", ")}`, session, callPage(entry, diffs, session));
    }),
  );

  app.get(
    "/ui/sessions",
    signedIn(async (c, session, history) => render(c, "Sessions", session, sessionsPage(summarizeSessions(await lastEntries(history, {}, 100_000))))),
  );

  app.get(
    "/ui/session",
    signedIn(async (c, session, history) => {
      const id = c.req.query("s") ?? "";
      const entries = id ? await lastEntries(history, { session: id }, 100_000) : [];
      return render(c, `Session ${id}`, session, sessionPage(summarizeSessions(entries)[0], entries.slice(-FEED_SIZE)));
    }),
  );

  app.get(
    "/ui/files",
    signedIn(async (c, session) => {
      const tree = await workspaceTree(await host.storageOf(session.principal.workspace));
      return render(c, "Files", session, filesPage(tree.entries, tree.truncated));
    }),
  );

  app.get(
    "/ui/file",
    signedIn(async (c, session, history) => {
      const path = c.req.query("path") ?? "";
      const storage = await host.storageOf(session.principal.workspace);
      const view = await fileView(storage, options.hasher, path);
      if (typeof view === "string") return render(c, path || "File", session, view);
      const entries = await lastEntries(history, { path: view.path, changesOnly: true }, 100_000);
      return render(c, view.path, session, filePage(view.path, view.current, versionRows(entries, view.path), session));
    }),
  );

  app.post(
    "/ui/revert",
    signedIn(async (c, session) => {
      const form = await c.req.parseBody();
      if (!sameOrigin(c) || typeof form.csrf !== "string" || !sameSecret(form.csrf, session.csrf)) {
        return render(
          c,
          "Refused",
          session,
          "This revert did not come from the inspector's own page (CSRF check); nothing was changed. Use the button on the page.",
        );
      }
      const field = (name: string) => (typeof form[name] === "string" ? (form[name] as string) : "");
      const body = field("change") ? { change: field("change") } : { path: field("path"), version: field("version"), expect: field("expect") || null };
      const response = await app.request(
        new URL("/v1/revert", c.req.url).href,
        { method: "POST", headers: { authorization: `Bearer ${session.token}`, "content-type": "application/json" }, body: JSON.stringify(body) },
        c.env,
      );
      const result = (await response.json()) as Parameters<typeof revertPage>[0];
      return render(c, result.ok ? "Reverted" : result.error ? "Revert refused" : "Revert conflict", session, revertPage(result));
    }),
  );

  app.get("/ui/events", eventStream(auth, host));

  app.get(
    "/ui/*",
    signedIn(async (c, session) => render(c, "Not found", session, "No such page in the inspector.")),
  );
}
