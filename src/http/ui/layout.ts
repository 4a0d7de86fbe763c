/** The inspector's page frame, sign-in page and small shared pieces (hono/html: every interpolation is escaped). */
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { UiSession } from "./session.ts";

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** Navigation: real links, in tab order. */
function nav(session: UiSession): Html {
  return html`<nav aria-label="Inspector">
    <ul class="nav">
      <li><a href="/ui">Calls</a></li>
      <li><a href="/ui/sessions">Sessions</a></li>
      <li><a href="/ui/files">Files</a></li>
    </ul>
    <form method="post" action="/ui/signout" class="signout">
      <span>Signed in as <strong>${session.principal.label}</strong> (${[...session.principal.scopes].join(", ")})</span>
      <input type="hidden" name="csrf" value="${session.csrf}" />
      <button type="submit">Sign out</button>
    </form>
  </nav>`;
}

/** A whole page. `live` loads the client script that streams new calls. */
export function page(title: string, session: UiSession | undefined, body: Html, options: { live?: boolean } = {}): Html {
  return html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${title} · toolwarden inspector</title>
    <link rel="stylesheet" href="/ui/app.css" />
    ${options.live ? html`<script src="/ui/app.js" defer></script>` : ""}
  </head>
  <body>
    <header><p class="brand"><a href="/ui">toolwarden inspector</a></p>${session ? nav(session) : ""}</header>
    <main id="main">
      <h1>${title}</h1>
      ${body}
    </main>
  </body>
</html>`;
}

/** The only thing an unauthenticated request sees. */
export function signInPage(message?: string): Html {
  return page(
    "Sign in",
    undefined,
    html`${message ? html`<p class="error" role="alert">${message}</p>` : ""}
      <form method="post" action="/ui/signin" class="signin">
        <label for="token">Token (scope <code>audit</code> to read, <code>admin</code> to revert)</label>
        <input id="token" name="token" type="password" autocomplete="off" required autofocus />
        <button type="submit">Sign in</button>
      </form>
      <p>The token is kept in an HttpOnly cookie for this site only; signing out removes it.</p>`,
  );
}

/** A short, readable duration. */
export function ms(n: number): string {
  return n < 10 ? `${n.toFixed(1)} ms` : `${Math.round(n)} ms`;
}

/** Bytes as B / KiB / MiB. */
export function size(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** An outcome code, marked in words as well as colour. */
export function outcome(code: string): Html {
  return html`<span class="${code === "OK" ? "ok" : "bad"}">${code}</span>`;
}
